// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP hook of 'mplanectl bpf', shared through libxdp's dispatcher.
 *
 * A device has one XDP hook.  A program attached to it directly owns it:
 * the next tool either replaces it or is refused.  libxdp instead puts a
 * small dispatcher program on the hook and links each tool's program to
 * it as a component (a freplace extension), so that xdp-loader, xdp-tools
 * and mplane share one device.  hostacct joins the dispatcher that is
 * there, or makes one; it refuses only a program that was attached
 * directly by a tool that does not use libxdp, as libxdp itself does.
 *
 * libxdp loads the component itself, as an extension of the dispatcher,
 * so it gets an object of its own (kind->open_xdp): a second instance
 * of the program's object whose maps are the pinned ones that the tc
 * programs count into.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>

#include "bpf_prog.h"
#include "mp_bpf.h"
#include "mp_out.h"

/*
 * hostacct counts what the device receives, so it runs before any other
 * component, which might drop (libxdp's default priority is 50; lower
 * runs first).  It returns XDP_PASS, on which the dispatcher goes on to
 * the next component.
 */
#define MPBPF_XDP_RUN_PRIO	10

static int libxdp_print_all(enum libxdp_print_level level, const char *fmt,
			    va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/* As libbpf: libxdp's warnings are about cases that we report in our own
 * words, so they are shown with -v only. */
void mpbpf_xdp_setup(bool verbose)
{
	libxdp_set_print(verbose ? libxdp_print_all : NULL);
}

static void xdp_err(const struct mpbpf_target *t, const char *what, int err)
{
	char buf[128];

	libxdp_strerror(err, buf, sizeof(buf));
	mp_err("%s: xdp: %s: %s", t->dev, what, buf);
}

static void fill_slot(struct mpbpf_slot *slot, struct xdp_program *prog,
		      const struct mpbpf_kind *k)
{
	slot->prog_id = xdp_program__id(prog);
	snprintf(slot->prog_name, sizeof(slot->prog_name), "%s",
		 xdp_program__name(prog));
	slot->ours = !strcmp(slot->prog_name, k->xdp_prog);
	memcpy(slot->tag, xdp_program__tag(prog), sizeof(slot->tag));
}

/*
 * t->xdp_slot: ours, when one of the dispatcher's components is ours, or
 * when ours was attached directly (by an mplanectl before libxdp); else a
 * program attached directly by another tool, which the hook cannot be
 * shared with; else nothing (no program, or a dispatcher with other
 * tools' components only, which ours can join).
 */
int mpbpf_xdp_query(struct mpbpf_target *t)
{
	struct xdp_program *prog = NULL;
	struct xdp_multiprog *mp;
	int err;

	memset(&t->xdp_slot, 0, sizeof(t->xdp_slot));
	mp = xdp_multiprog__get_from_ifindex(t->ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err == -ENOENT ? 0 : err;
	t->xdp_shared = !xdp_multiprog__is_legacy(mp);
	if (!t->xdp_shared) {
		prog = xdp_multiprog__main_prog(mp);
		if (prog)
			fill_slot(&t->xdp_slot, prog, t->kind);
	}
	while (t->xdp_shared && (prog = xdp_multiprog__next_prog(prog, mp))) {
		fill_slot(&t->xdp_slot, prog, t->kind);
		if (t->xdp_slot.ours)
			break;
		memset(&t->xdp_slot, 0, sizeof(t->xdp_slot));
	}
	xdp_multiprog__close(mp);
	return 0;
}

/* Our component (or our directly attached program) off the hook; the
 * dispatcher stays while other components use it. */
int mpbpf_xdp_detach(const struct mpbpf_target *t)
{
	struct xdp_program *prog;
	int err;

	prog = xdp_program__from_id(t->xdp_slot.prog_id);
	err = libxdp_get_error(prog);
	if (err)
		return err;
	err = xdp_program__detach(prog, t->ifindex, XDP_MODE_UNSPEC, 0);
	xdp_program__close(prog);
	return err;
}

/*
 * Whether the program on the hook is already the one this mplanectl
 * loads: the same instructions, as the kernel's tag says (an extension
 * and an XDP program of the same code have the same tag).
 */
static bool same_program(const struct mpbpf_target *t, int new_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (new_fd < 0 || bpf_obj_get_info_by_fd(new_fd, &info, &len))
		return false;
	return !memcmp(info.tag, t->xdp_slot.tag, sizeof(info.tag));
}

static int join_dispatcher(const struct mpbpf_target *t)
{
	struct mpbpf_loaded l = { .xdp_fd = -1 };
	struct xdp_program *prog;
	struct bpf_object *obj;
	int err;

	err = t->kind->open_xdp(t, &l, &obj);
	if (err)
		return err;
	prog = xdp_program__create(&(struct xdp_program_opts){
		.sz = sizeof(struct xdp_program_opts),
		.obj = obj, .prog_name = t->kind->xdp_prog });
	err = libxdp_get_error(prog);
	if (err) {
		xdp_err(t, "libxdp cannot take the program", err);
		goto out;
	}
	xdp_program__set_run_prio(prog, MPBPF_XDP_RUN_PRIO);
	err = xdp_program__attach(prog, t->ifindex, XDP_MODE_UNSPEC, 0);
	if (err)
		xdp_err(t, "attaching through libxdp's dispatcher", err);
	xdp_program__close(prog);
out:
	t->kind->unload(&l);
	return err;
}

/*
 * Attach ours, or keep it when it is the same program: the counters are
 * in pinned maps either way.  A different one (another mplanectl's) is
 * replaced by taking the old one off first, so that no packet is ever
 * counted twice; the packets of that instant are not counted.
 */
int mpbpf_xdp_attach(const struct mpbpf_target *t, int new_fd)
{
	int err;

	if (t->xdp_slot.ours) {
		if (t->xdp_shared && same_program(t, new_fd))
			return 0;
		err = mpbpf_xdp_detach(t);
		if (err) {
			xdp_err(t, "taking the old program off", err);
			return err;
		}
	}
	return join_dispatcher(t);
}
