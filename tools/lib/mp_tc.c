// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * tcx through the bpf() syscall itself, as Debian 12's libbpf (1.1)
 * has no call for it; cls_bpf through libbpf's bpf_tc_*().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mp_bpf.h"
#include "mp_out.h"
#include "mp_tc.h"
#include "mp_tcx_uapi.h"

const char *const mp_tc_choice_names[] = { "auto", "tcx", "cls_bpf", NULL };

static int sys_bpf(int cmd, void *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size) < 0 ? -errno : 0;
}

static __u32 tcx_type(bool egress)
{
	return egress ? MP_BPF_TCX_EGRESS : MP_BPF_TCX_INGRESS;
}

/* Up to @n program ids of the tcx hook, in the order they run. */
static int tcx_ids(int ifindex, bool egress, __u32 *ids, __u32 *n)
{
	struct mp_tcx_query_attr q = {
		.target_ifindex = ifindex,
		.attach_type = tcx_type(egress),
		.prog_ids = (__u64)(unsigned long)ids,
		.count = *n,
	};
	int err = sys_bpf(BPF_PROG_QUERY, &q, sizeof(q));

	*n = err ? 0 : q.count;
	return err;
}

int mp_tc_have_tcx(int ifindex)
{
	/* A kernel property: one answer serves every device. */
	static int have = -1;
	__u32 n = 0;
	int err;

	if (have >= 0)
		return have;
	/* Before 6.6 no attach type past BPF_NETFILTER is known: EINVAL. */
	err = tcx_ids(ifindex, false, NULL, &n);
	if (err && err != -EINVAL)
		return err;
	have = !err;
	return have;
}

int mp_tc_choose(enum mp_tc_choice choice, const char *dev, int ifindex,
		 enum mp_tc_hook *hook)
{
	int have;

	if (choice == MP_TC_WANT_CLS_BPF) {
		*hook = MP_TC_CLS_BPF;
		return 0;
	}
	have = mp_tc_have_tcx(ifindex);
	if (have < 0) {
		mp_err("%s: asking the kernel for tcx: %s", dev, strerror(-have));
		return have;
	}
	if (!have && choice == MP_TC_WANT_TCX) {
		mp_err("%s: this kernel has no tcx (Linux 6.6 or later): use --tc-hook cls_bpf or auto",
		       dev);
		return -EOPNOTSUPP;
	}
	*hook = have ? MP_TC_TCX : MP_TC_CLS_BPF;
	return 0;
}

int mp_tc_env_choice(enum mp_tc_choice *choice)
{
	const char *word = getenv("MPLANE_TC_HOOK");
	int i;

	*choice = MP_TC_AUTO;
	if (!word || !*word)
		return 0;
	for (i = 0; mp_tc_choice_names[i]; i++) {
		if (!strcmp(word, mp_tc_choice_names[i])) {
			*choice = i;
			return 0;
		}
	}
	mp_err("MPLANE_TC_HOOK=%s: not auto, tcx or cls_bpf", word);
	return -EINVAL;
}

const char *mp_tc_hook_name(enum mp_tc_hook hook)
{
	switch (hook) {
	case MP_TC_TCX:
		return "tcx";
	case MP_TC_CLS_BPF:
		return "cls_bpf";
	default:
		return NULL;
	}
}

static bool is_ours(const struct mp_tc_ours *o, const char *name)
{
	const char *const *n;

	for (n = o->names; *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

/* The first program of ours on the tcx hook, into @prog. */
static int tcx_find(const struct mp_tc_point *p, struct mp_tc_prog *prog)
{
	__u32 ids[MP_TCX_MAX_PROGS], n = MP_TCX_MAX_PROGS, i;
	int err;

	memset(prog, 0, sizeof(*prog));
	if (mp_tc_have_tcx(p->ifindex) <= 0)
		return 0;
	err = tcx_ids(p->ifindex, p->egress, ids, &n);
	for (i = 0; !err && i < n; i++) {
		/* ENOENT: taken off since the query; not ours to care. */
		if (mp_prog_name(ids[i], prog->name) ||
		    !is_ours(p->ours, prog->name))
			continue;
		prog->id = ids[i];
		return 0;
	}
	memset(prog, 0, sizeof(*prog));
	return err;
}

static void cls_slot(const struct mp_tc_point *p, struct bpf_tc_hook *hook,
		     struct bpf_tc_opts *opts)
{
	/* libbpf rejects options with non-zero bytes it does not know. */
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = p->ifindex;
	hook->attach_point = p->egress ? BPF_TC_EGRESS : BPF_TC_INGRESS;
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->handle = p->ours->handle;
	opts->priority = p->ours->prio;
}

static int cls_find(const struct mp_tc_point *p, struct mp_tc_state *st)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	cls_slot(p, &hook, &opts);
	err = bpf_tc_query(&hook, &opts);
	/*
	 * ENOENT: the hook has filters, none in our slot.  EINVAL: no clsact
	 * qdisc, no filter on the hook yet, or a filter of another kind or
	 * protocol at our priority, which an attach would find in its way.
	 */
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	if (err)
		return err;
	err = mp_prog_name(opts.prog_id, st->cls.name);
	if (err)
		return err;
	st->cls.id = opts.prog_id;
	st->cls_ours = is_ours(p->ours, st->cls.name);
	return 0;
}

int mp_tc_query(const struct mp_tc_point *p, struct mp_tc_state *st)
{
	int err;

	memset(st, 0, sizeof(*st));
	err = tcx_find(p, &st->tcx);
	return err ? err : cls_find(p, st);
}

enum mp_tc_hook mp_tc_where(const struct mp_tc_state *st)
{
	if (st->tcx.id)
		return MP_TC_TCX;
	return st->cls_ours ? MP_TC_CLS_BPF : MP_TC_NONE;
}

/* BPF_PROG_ATTACH or _DETACH of @fd; @old_fd is replaced if >= 0. */
static int tcx_call(const struct mp_tc_point *p, int cmd, int fd, int old_fd)
{
	struct mp_tcx_attach_attr a = {
		.target_ifindex = p->ifindex,
		.attach_bpf_fd = fd,
		.attach_type = tcx_type(p->egress),
	};

	if (old_fd >= 0) {
		/* In place: the others keep their order around it. */
		a.attach_flags = MP_BPF_F_REPLACE;
		a.replace_bpf_fd = old_fd;
	} else if (cmd == BPF_PROG_ATTACH && p->ours->first) {
		/* BEFORE with no relative: the head of the chain. */
		a.attach_flags = MP_BPF_F_BEFORE;
	}
	return sys_bpf(cmd, &a, sizeof(a));
}

static int tcx_attach(const struct mp_tc_point *p, int prog_fd,
		      const struct mp_tc_prog *old)
{
	int old_fd = -1, err;

	if (old->id) {
		old_fd = bpf_prog_get_fd_by_id(old->id);
		if (old_fd < 0)
			return -errno;
	}
	err = tcx_call(p, BPF_PROG_ATTACH, prog_fd, old_fd);
	if (old_fd >= 0)
		close(old_fd);
	return err;
}

/* Every program of ours off the tcx hook: a crash between an attach
 * and its replace could have left two. */
static int tcx_detach_all(const struct mp_tc_point *p)
{
	struct mp_tc_prog prog;
	int i, fd, err = 0;

	for (i = 0; i < MP_TCX_MAX_PROGS && !err; i++) {
		err = tcx_find(p, &prog);
		if (err || !prog.id)
			break;
		fd = bpf_prog_get_fd_by_id(prog.id);
		if (fd < 0)
			return -errno;
		err = tcx_call(p, BPF_PROG_DETACH, fd, -1);
		close(fd);
	}
	return err;
}

static int cls_attach(const struct mp_tc_point *p, int prog_fd,
		      const struct mp_tc_state *st)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	if (st->cls.id && !st->cls_ours)
		return -EBUSY;
	cls_slot(p, &hook, &opts);
	/* One clsact qdisc serves both hooks, and may be there already. */
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	opts.prog_fd = prog_fd;
	/* Without REPLACE a slot taken since the query fails rather than
	 * losing a foreign filter. */
	if (st->cls_ours)
		opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	/* What the kernel answers when a filter bpf_tc_query() cannot see
	 * (classic BPF, or another kind) holds the slot. */
	return err == -EEXIST || err == -EINVAL ? -EBUSY : err;
}

static int cls_detach(const struct mp_tc_point *p)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	cls_slot(p, &hook, &opts);
	err = bpf_tc_detach(&hook, &opts);
	return err == -ENOENT ? 0 : err;
}

int mp_tc_attach(const struct mp_tc_point *p, enum mp_tc_hook hook,
		 int prog_fd, const struct mp_tc_state *st)
{
	int err;

	if (hook == MP_TC_TCX) {
		err = tcx_attach(p, prog_fd, &st->tcx);
		/* Ours leaves cls_bpf only once tcx runs it: never a gap. */
		if (!err && st->cls_ours)
			err = cls_detach(p);
		return err;
	}
	err = cls_attach(p, prog_fd, st);
	if (!err && st->tcx.id)
		err = tcx_detach_all(p);
	return err;
}

int mp_tc_detach(const struct mp_tc_point *p, const struct mp_tc_state *st)
{
	int err = 0, ret;

	if (st->tcx.id)
		err = tcx_detach_all(p);
	if (st->cls_ours) {
		ret = cls_detach(p);
		if (!err)
			err = ret;
	}
	return err;
}
