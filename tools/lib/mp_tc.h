/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A program of ours on the tc ingress or egress of a device: through tcx
 * (Linux 6.6) where the kernel has it, else as a cls_bpf filter on the
 * clsact qdisc at our fixed handle and priority.  tcx programs are
 * attached without a link, so they stay after the tool exits, as
 * filters do.  Only programs of ours (known by name) are ever replaced
 * or taken off; other tools' programs on either hook are left alone.
 */
#ifndef MP_TC_H
#define MP_TC_H

#include <stdbool.h>
#include <linux/bpf.h>

enum mp_tc_hook {
	MP_TC_NONE,			/* nothing of ours */
	MP_TC_TCX,
	MP_TC_CLS_BPF,
};

/* What --tc-hook and MPLANE_TC_HOOK choose, by mp_tc_choice_names. */
enum mp_tc_choice {
	MP_TC_AUTO,			/* tcx where the kernel has it */
	MP_TC_WANT_TCX,
	MP_TC_WANT_CLS_BPF,
};

/* "auto", "tcx", "cls_bpf", NULL: an MP_OPT_CHOICE's words. */
extern const char *const mp_tc_choice_names[];

/* How our program is known on a hook. */
struct mp_tc_ours {
	const char *const *names;	/* its program names, NULL-ended */
	__u32 handle, prio;		/* cls_bpf: our fixed slot */
	bool first;			/* tcx: ahead of all others (counters) */
};

/* One hook of one device, for one program of ours. */
struct mp_tc_point {
	int ifindex;
	bool egress;
	const struct mp_tc_ours *ours;
};

struct mp_tc_prog {
	__u32 id;			/* 0: none */
	char name[BPF_OBJ_NAME_LEN];
};

/* What a hook holds, as far as we are concerned. */
struct mp_tc_state {
	struct mp_tc_prog tcx;		/* ours on tcx */
	struct mp_tc_prog cls;		/* whatever holds our cls_bpf slot */
	bool cls_ours;
};

/* Whether the kernel has tcx, found by asking it about @ifindex:
 * 1, 0, or a negative errno. */
int mp_tc_have_tcx(int ifindex);

/*
 * The hook @choice means on this kernel; -EOPNOTSUPP, said on stderr
 * with @dev, for tcx on a kernel without it.
 */
int mp_tc_choose(enum mp_tc_choice choice, const char *dev, int ifindex,
		 enum mp_tc_hook *hook);

/* MPLANE_TC_HOOK as a choice, MP_TC_AUTO when unset; -EINVAL, said on
 * stderr, for a word that is none of mp_tc_choice_names. */
int mp_tc_env_choice(enum mp_tc_choice *choice);

/* Look at both hooks of @p into @st: 0 or a negative errno. */
int mp_tc_query(const struct mp_tc_point *p, struct mp_tc_state *st);

/* Where ours is, by @st: tcx first, as it runs first. */
enum mp_tc_hook mp_tc_where(const struct mp_tc_state *st);

/* "tcx", "cls_bpf", or NULL for MP_TC_NONE. */
const char *mp_tc_hook_name(enum mp_tc_hook hook);

/*
 * Put @prog_fd on @hook of @p, replacing ours there in place, then take
 * ours off the other hook, so that nothing runs twice.  -EBUSY when a
 * foreign filter holds our cls_bpf slot (by @st, or found by the kernel
 * as the attach fails); 0 or a negative errno.
 */
int mp_tc_attach(const struct mp_tc_point *p, enum mp_tc_hook hook,
		 int prog_fd, const struct mp_tc_state *st);

/* Take ours off whichever hook of @p holds it; 0 or a negative errno. */
int mp_tc_detach(const struct mp_tc_point *p, const struct mp_tc_state *st);

#endif /* MP_TC_H */
