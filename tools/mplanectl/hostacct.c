// SPDX-License-Identifier: GPL-2.0
/* hostacct in the table of bpf programs: its load, with pinned maps. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hostacct.h"
#include "hostacct.skel.h"
#include "mp_bpf.h"
#include "mp_out.h"
#include "mp_pin.h"
#include "mplane_maps.h"

/*
 * Point every map at its pin: libbpf reuses a pinned map that is there
 * (counters carry on) and pins the new ones after load.
 */
static int set_pins(struct hostacct *skel, const char *dir)
{
	struct bpf_map *maps[] = {
		skel->maps.mp_rail_acct, skel->maps.mp_qp_acct,
		skel->maps.mp_events, skel->maps.mp_event_stats,
		skel->maps.mp_event_readers, skel->maps.mp_hacct_limits,
	};
	char path[512];
	size_t i;
	int err;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 bpf_map__name(maps[i]));
		err = bpf_map__set_pin_path(maps[i], path);
		if (err)
			return err;
	}
	return 0;
}

static int protect_pins(struct hostacct *skel)
{
	struct bpf_map *map;
	int err;

	bpf_object__for_each_map(map, skel->obj) {
		if (!bpf_map__pin_path(map))
			continue;
		err = mp_pin_protect(bpf_map__pin_path(map));
		if (err)
			return err;
	}
	return 0;
}

/* Whether a hostacct program is on any hook of the device. */
static bool attached(const struct mpbpf_target *t)
{
	return t->slots[MPLANE_DIR_INGRESS].ours ||
	       t->slots[MPLANE_DIR_EGRESS].ours || t->xdp_slot.ours;
}

/*
 * Pins with no program attached are stale: their device (or namespace)
 * went away without a detach, and a new one now has the same name and
 * namespace inode.  Its counters start from zero, not from those.
 */
static int fresh_dir(const char *dir)
{
	int err = mp_pin_remove_dir(dir);
	char path[256];

	if (err)
		return err;
	snprintf(path, sizeof(path), "%s", dir);
	return mp_pin_dev_dir(strrchr(path, '/') + 1, path, sizeof(path), true);
}

/*
 * A pin that libbpf cannot reuse (made by an mplanectl whose maps had
 * another layout, such as the event counters before the readers' slots)
 * fails the load with a bare EINVAL: name it, and the way out.
 */
static int check_pins_reusable(const struct mpbpf_target *t,
			       struct hostacct *skel)
{
	struct bpf_map_info info;
	struct bpf_map *map;
	const char *pin;
	int fd, err = 0;

	bpf_object__for_each_map(map, skel->obj) {
		pin = bpf_map__pin_path(map);
		fd = pin ? bpf_obj_get(pin) : -1;
		if (fd < 0)
			continue;
		if (!mp_map_info(fd, &info) &&
		    (info.type != bpf_map__type(map) ||
		     info.key_size != bpf_map__key_size(map) ||
		     info.value_size != bpf_map__value_size(map) ||
		     info.max_entries != bpf_map__max_entries(map))) {
			mp_err("%s: %s was pinned by another version of mplanectl, with another layout: 'mplanectl bpf detach --prog hostacct %s' first (its counters start again)",
			       t->dev, pin, t->dev);
			err = -EEXIST;
		}
		close(fd);
		if (err)
			break;
	}
	return err;
}

static int load_pinned(const struct mpbpf_target *t, struct hostacct *skel)
{
	char dir[256];
	int err;

	err = mp_pin_dev_dir(t->dev, dir, sizeof(dir), true);
	if (!err && !attached(t))
		err = fresh_dir(dir);
	if (err) {
		mp_err("%s: pin directory %s: %s", t->dev, dir, strerror(-err));
		return err;
	}
	err = set_pins(skel, dir);
	if (!err)
		err = check_pins_reusable(t, skel);
	if (err == -EEXIST)
		return err;
	if (!err)
		err = hostacct__load(skel);
	if (err) {
		mp_err("%s: loading BPF programs: %s (-v shows libbpf's log)",
		       t->dev, strerror(-err));
		return err;
	}
	err = protect_pins(skel);
	if (err)
		mp_err("%s: chmod of the pins in %s: %s", t->dev, dir,
		       strerror(-err));
	return err;
}

/* The object, opened: NULL, said, with errno set, when it cannot be. */
static struct hostacct *open_object(const struct mpbpf_target *t)
{
	struct hostacct *skel = hostacct__open();
	int err = errno;

	if (!skel) {
		mp_err("%s: opening BPF object: %s", t->dev, strerror(err));
		errno = err;
	}
	return skel;
}

static int load(const struct mpbpf_target *t, struct mpbpf_loaded *l)
{
	struct hostacct *skel;
	int err;

	skel = open_object(t);
	if (!skel)
		return -errno;
	err = load_pinned(t, skel);
	if (err) {
		hostacct__destroy(skel);
		return err;
	}
	l->skel = skel;
	l->tc_fd[MPLANE_DIR_INGRESS] = bpf_program__fd(skel->progs.mp_hacct_tc_in);
	l->tc_fd[MPLANE_DIR_EGRESS] = bpf_program__fd(skel->progs.mp_hacct_tc_eg);
	l->xdp_fd = bpf_program__fd(skel->progs.mp_hacct_xdp);
	return 0;
}

/*
 * The object again, for libxdp to load its XDP program as a component of
 * the dispatcher: its maps are the pins that load() made or reused, so
 * XDP counts into the same counters as tc.
 */
static int open_xdp(const struct mpbpf_target *t, struct mpbpf_loaded *l,
		    struct bpf_object **obj)
{
	struct bpf_program *prog;
	struct hostacct *skel;
	char dir[256];
	int err;

	err = mp_pin_dev_dir(t->dev, dir, sizeof(dir), false);
	if (err) {
		mp_err("%s: pin directory %s: %s", t->dev, dir, strerror(-err));
		return err;
	}
	skel = open_object(t);
	if (!skel)
		return -errno;
	err = set_pins(skel, dir);
	bpf_object__for_each_program(prog, skel->obj)
		if (!err && prog != skel->progs.mp_hacct_xdp)
			err = bpf_program__set_autoload(prog, false);
	if (err) {
		mp_err("%s: preparing the XDP program: %s", t->dev,
		       strerror(-err));
		hostacct__destroy(skel);
		return err;
	}
	l->skel = skel;
	*obj = skel->obj;
	return 0;
}

static void unload(struct mpbpf_loaded *l)
{
	hostacct__destroy(l->skel);
}

static void cleanup(const struct mpbpf_target *t)
{
	char dir[256];
	int err;

	err = mp_pin_dev_dir(t->dev, dir, sizeof(dir), false);
	if (!err)
		err = mp_pin_remove_dir(dir);
	if (err)
		mp_err("%s: removing pins: %s", t->dev, strerror(-err));
}

const struct mpbpf_kind hostacct_kind = {
	.name		= "hostacct",
	.tc_handle	= HOSTACCT_TC_HANDLE,
	.tc_prio	= HOSTACCT_TC_PRIO,
	.tc_first	= true,
	.tc_progs	= {
		[MPLANE_DIR_INGRESS]	= HOSTACCT_PROG_TC_IN,
		[MPLANE_DIR_EGRESS]	= HOSTACCT_PROG_TC_EG,
	},
	.xdp_prog	= HOSTACCT_PROG_XDP,
	.load		= load,
	.open_xdp	= open_xdp,
	.unload		= unload,
	.status		= hostacct_status,
	.cleanup	= cleanup,
};
