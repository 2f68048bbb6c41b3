/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF programs that 'mplanectl bpf' manages, as a table: each has a
 * fixed tc slot on the clsact hooks of a device, program names to know
 * it by, optionally an XDP variant for ingress, and its own load and
 * status.  attach, status and detach are written once, against this
 * table; adding a program is one more struct mpbpf_kind.
 */
#ifndef MPLANECTL_BPF_PROG_H
#define MPLANECTL_BPF_PROG_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <linux/mplane.h>
#include "mp_opt.h"
#include "mp_tc.h"
#include "mplane_maps.h"

/* Sets of directions, as chosen by --ingress/--egress/--both. */
#define MPBPF_DIR(d)		(1u << (d))
#define MPBPF_BOTH		(MPBPF_DIR(MPLANE_DIR_INGRESS) | \
				 MPBPF_DIR(MPLANE_DIR_EGRESS))

/*
 * What the 'bpf' commands' option tables set: --prog, the directions
 * (attach and detach), --xdp and --tc-hook (attach).  Each command has its
 * own table, as the directions mean "count" to one and "detach from" to
 * the other; --prog is the same entry in all of them.
 */
struct mpbpf_settings {
	int prog;			/* index into mpbpf_prog_names */
	bool ingress, egress, both, xdp;
	int tc_hook;			/* enum mp_tc_choice; -1: not given */
};

extern const char *const mpbpf_prog_names[];

#define MPBPF_OPT_PROG							\
	{ "prog", 'p', MP_OPT_CHOICE, MP_OPT_AT(struct mpbpf_settings, prog), \
	  "NAME", "the program",						\
	  .choices = mpbpf_prog_names, .def = "pktcount" }

struct mpbpf_hook {
	enum mplane_pktcount_dir dir;
	const char *name;
};

/* Ingress and egress, indexed by enum mplane_pktcount_dir. */
extern const struct mpbpf_hook mpbpf_hooks[__MPLANE_DIR_MAX];

/*
 * What holds a program's place on one hook (or its XDP hook): ours on
 * tcx or cls_bpf, else whatever holds our cls_bpf slot.
 */
struct mpbpf_slot {
	__u32 prog_id;			/* 0 when the slot is free */
	bool ours;			/* a program of this kind */
	enum mp_tc_hook hook;		/* where ours is (tc hooks only) */
	struct mp_tc_state tc;		/* both tc hooks, as mp_tc saw them */
	char prog_name[BPF_OBJ_NAME_LEN];
	__u8 tag[BPF_TAG_SIZE];		/* XDP only: the code's hash */
};

struct mpbpf_kind;

/* One device and what a command does to it. */
struct mpbpf_target {
	const struct mpbpf_kind *kind;
	const char *dev;
	int ifindex;
	unsigned int dirs;		/* MPBPF_DIR() bits */
	bool xdp;			/* ingress through XDP rather than tc */
	int tc_choice;			/* --tc-hook, -1 when not given */
	enum mp_tc_hook tc_hook;	/* attach: the hook it chose */
	struct mpbpf_slot slots[__MPLANE_DIR_MAX];
	struct mpbpf_slot xdp_slot;
	bool xdp_shared;		/* the hook holds libxdp's dispatcher */
};

/* Program fds of a loaded object, for attach to put on the hooks. */
struct mpbpf_loaded {
	void *skel;
	int tc_fd[__MPLANE_DIR_MAX];
	int xdp_fd;
};

struct mpbpf_kind {
	const char *name;		/* --prog NAME */
	__u32 tc_handle;		/* the fixed tc slot: handle and */
	__u32 tc_prio;			/* priority ("pref" in tc) */
	bool tc_first;			/* tcx: ahead of other programs */
	const char *tc_progs[__MPLANE_DIR_MAX];	/* names the kernel reports */
	const char *xdp_prog;		/* NULL: no XDP variant */
	int (*load)(const struct mpbpf_target *t, struct mpbpf_loaded *l);
	/*
	 * With xdp_prog: a second instance of the object, opened and not
	 * loaded, its maps the ones load() pinned and its XDP program the
	 * only one to load, for libxdp to load as a component of its
	 * dispatcher (bpf_xdp.c).  unload() closes it.
	 */
	int (*open_xdp)(const struct mpbpf_target *t, struct mpbpf_loaded *l,
			struct bpf_object **obj);
	void (*unload)(struct mpbpf_loaded *l);
	/* Print what is attached and the counters, text or JSON. */
	int (*status)(struct mpbpf_target *t);
	/* Optional: after detach, once nothing of it is left on the device. */
	void (*cleanup)(const struct mpbpf_target *t);
};

extern const struct mpbpf_kind pktcount_kind;
extern const struct mpbpf_kind hostacct_kind;

/*
 * Parse the command line with @cmd, whose table sets a struct
 * mpbpf_settings, into @t: the program, the directions (both when none
 * is given), DEV and its ifindex.  MP_OPT_RUN, or the status to exit with.
 */
int mpbpf_parse(const struct mp_opt_cmd *cmd, int argc, char **argv,
		struct mpbpf_target *t);

/* Look at @t's slot on hook @dir, or at its XDP hook when @dir is -1,
 * into t->slots[dir] (t->xdp_slot); 0 or a negative errno. */
int mpbpf_query(struct mpbpf_target *t, int dir);

/* Put @prog_fd on @hook of direction @dir (by t->slots[dir], which
 * mpbpf_query() filled), and take ours off the other tc hook; take ours
 * off both.  0 or a negative errno. */
int mpbpf_tc_attach(const struct mpbpf_target *t, int dir,
		    enum mp_tc_hook hook, int prog_fd);
int mpbpf_tc_detach(const struct mpbpf_target *t, int dir);

/* The XDP hook, through libxdp (bpf_xdp.c): libxdp quiet unless
 * @verbose; query into t->xdp_slot; attach the program loaded as @new_fd
 * (kept if it is already there); take t->xdp_slot's program off. */
void mpbpf_xdp_setup(bool verbose);
int mpbpf_xdp_query(struct mpbpf_target *t);
int mpbpf_xdp_attach(const struct mpbpf_target *t, int new_fd);
int mpbpf_xdp_detach(const struct mpbpf_target *t);

/* "tc handle 0x4d50 priority 19792" of @t, for messages. */
const char *mpbpf_slot_str(const struct mpbpf_target *t);

#endif /* MPLANECTL_BPF_PROG_H */
