// SPDX-License-Identifier: GPL-2.0
/*
 * ar on one switch: load bpf/ar.bpf.c once, pin its maps, fill them from
 * the fabric's ports and the kernel's routes, and put its two programs on
 * every port.  The caller has entered the switch's network namespace.
 */
#include <errno.h>
#include <net/if.h>
#include <linux/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ar.h"
#include "ar.skel.h"
#include "fabric.h"
#include "mp_bpf.h"
#include "mp_out.h"
#include "mp_pin.h"
#include "mp_rtnl.h"
#include "mplane_maps.h"
#include "mp_ar_vq.h"

int ar_pin_path(char *buf, size_t size, const char *prefix,
		const char *node, const char *name)
{
	int n;

	if (name)
		n = snprintf(buf, size, MP_FABRIC_PIN_DIR "/%s/%s/%s", prefix,
			     node, name);
	else
		n = snprintf(buf, size, MP_FABRIC_PIN_DIR "/%s/%s", prefix,
			     node);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Pin every named map (not .rodata, .bss) so that a second attach reuses
 * them and the counters carry over. */
static int set_pins(struct ar *skel, const char *dir)
{
	struct bpf_map *map;
	char path[300];

	bpf_object__for_each_map(map, skel->obj) {
		if (bpf_map__is_internal(map))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     bpf_map__name(map)) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if (bpf_map__set_pin_path(map, path))
			return -EINVAL;
	}
	return 0;
}

/* The settings that are the program's rodata, by the same name in both:
 * one list, so that attach writes and status reads back the same ones. */
#define AR_RODATA_SETTINGS(X)						\
	X(policy) X(flowlet_gap_ns) X(kmin_bytes) X(kmax_bytes) X(pmax)	\
	X(aqm) X(pi_target_ns) X(pi_period_ns) X(pi_alpha_mhz)		\
	X(pi_beta_mhz) X(sample_every) X(sample_ns)

static void set_rodata(struct ar *skel, const struct ar_settings *s)
{
#define TO_RODATA(field)	skel->rodata->field = s->field;
	AR_RODATA_SETTINGS(TO_RODATA)
#undef TO_RODATA
	if (s->ring_bytes)
		bpf_map__set_max_entries(skel->maps.mp_events, s->ring_bytes);
}

static struct ar *load(const struct mp_fabric_node *n, const char *dir,
		       const struct ar_settings *s)
{
	struct ar *skel;
	int err;

	skel = ar__open();
	if (!skel) {
		mp_err("%s: opening BPF object: %s", n->name, strerror(errno));
		return NULL;
	}
	set_rodata(skel, s);
	err = set_pins(skel, dir);
	if (!err)
		err = ar__load(skel);
	if (err) {
		mp_err("%s: loading BPF programs: %s (-v shows libbpf's log; 'bpf detach --fabric' drops maps of another layout)",
		       n->name, strerror(-err));
		ar__destroy(skel);
		return NULL;
	}
	return skel;
}

/*
 * A port is usable when it is up with a carrier, as the kernel's own
 * routes see it, and as the watcher decides.  Asked over netlink: this
 * process has entered the switch's network namespace, but /sys is still
 * the host's.
 */
static __u32 port_is_up(struct mp_rtnl *r, const char *ifname)
{
	struct mp_nlerr e;
	struct mp_link l;

	if (mp_rtnl_get_link(r, ifname, &l, &e))
		return 0;
	return (l.flags & IFF_UP) && (l.flags & IFF_LOWER_UP);
}

static int fill_port(struct ar *skel, const struct mp_fabric_node *n,
		     const struct mp_fabric_port *port, struct mp_rtnl *r)
{
	int cfg_fd = bpf_map__fd(skel->maps.mp_port_cfg);
	int vq_fd = bpf_map__fd(skel->maps.mp_vq);
	struct mplane_port_cfg cfg = {};
	struct vq_entry vq = {};
	__u32 ifindex;

	ifindex = if_nametoindex(port->ifname);
	if (!ifindex) {
		mp_err("%s: port %s: %s", n->name, port->ifname,
		       strerror(errno));
		return -errno;
	}
	cfg.rate_bps = port->rate_bps;
	cfg.limit_bytes = fabric_tbf_limit(port->rate_bps, port->buffer_us);
	cfg.up = port_is_up(r, port->ifname);
	if (bpf_map_update_elem(cfg_fd, &ifindex, &cfg, BPF_ANY))
		return -errno;
	/* A queue that exists stays: it is still draining. */
	if (bpf_map_update_elem(vq_fd, &ifindex, &vq, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

static int fill_ports(struct ar *skel, const struct mp_fabric_node *n)
{
	struct mp_rtnl r;
	unsigned int i;
	int err;

	/* The program and fill_port() share struct vq_entry's layout. */
	if (bpf_map__value_size(skel->maps.mp_vq) != sizeof(struct vq_entry))
		return -EPROTO;
	err = mp_rtnl_open(&r, 0);
	if (err)
		return err;
	for (i = 0; i < n->nports && !err; i++)
		err = fill_port(skel, n, &n->ports[i], &r);
	mp_rtnl_close(&r);
	return err;
}

/*
 * The routes as the kernel has them now: every route is written over its
 * old entry (no moment without it), then entries of routes that are gone
 * are deleted.
 */
struct lpm_sync {
	int v4, v6;
	struct mplane_lpm4_key *keep4;
	struct mplane_lpm6_key *keep6;
	unsigned int n4, n6;
};

#define AR_MAX_ROUTES	4096	/* max_entries of mp_lpm4 and mp_lpm6 */

static int add_route(int family, const unsigned char *dst, unsigned int plen,
		     const struct mplane_nh_group *g, void *data)
{
	struct lpm_sync *ls = data;
	struct mplane_lpm4_key k4 = { .prefixlen = plen };
	struct mplane_lpm6_key k6 = { .prefixlen = plen };

	if (family == AF_INET) {
		if (ls->n4 >= AR_MAX_ROUTES)
			return -E2BIG;
		memcpy(&k4.addr, dst, 4);
		ls->keep4[ls->n4++] = k4;
		return bpf_map_update_elem(ls->v4, &k4, g, BPF_ANY) ? -errno : 0;
	}
	if (ls->n6 >= AR_MAX_ROUTES)
		return -E2BIG;
	memcpy(k6.addr, dst, 16);
	ls->keep6[ls->n6++] = k6;
	return bpf_map_update_elem(ls->v6, &k6, g, BPF_ANY) ? -errno : 0;
}

static bool kept(const void *keys, unsigned int n, const void *key,
		 size_t size)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!memcmp((const char *)keys + i * size, key, size))
			return true;
	return false;
}

/* Delete every entry of @fd that is not among the @n @keep keys. */
static void prune(int fd, const void *keep, unsigned int n, size_t size)
{
	char key[sizeof(struct mplane_lpm6_key)], next[sizeof(key)];
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, size);
		if (!kept(keep, n, key, size) && !bpf_map_delete_elem(fd, key)) {
			prev = NULL;	/* the walk starts again */
			continue;
		}
		prev = key;
	}
}

int ar_sync_routes(int lpm4_fd, int lpm6_fd, struct ar_route_stats *rs)
{
	struct lpm_sync ls = { .v4 = lpm4_fd, .v6 = lpm6_fd };
	int err = -ENOMEM;

	ls.keep4 = calloc(AR_MAX_ROUTES, sizeof(*ls.keep4));
	ls.keep6 = calloc(AR_MAX_ROUTES, sizeof(*ls.keep6));
	if (ls.keep4 && ls.keep6)
		err = ar_read_routes(rs, add_route, &ls);
	if (!err) {
		prune(lpm4_fd, ls.keep4, ls.n4, sizeof(*ls.keep4));
		prune(lpm6_fd, ls.keep6, ls.n6, sizeof(*ls.keep6));
	}
	free(ls.keep4);
	free(ls.keep6);
	return err;
}

static int fill_routes(struct ar *skel, const struct mp_fabric_node *n,
		       struct ar_route_stats *rs)
{
	int err;

	err = ar_sync_routes(bpf_map__fd(skel->maps.mp_lpm4),
			     bpf_map__fd(skel->maps.mp_lpm6), rs);
	if (err)
		mp_err("%s: reading routes: %s", n->name, strerror(-err));
	return err;
}

static const char *const ar_progs[] = { AR_PROG_INGRESS, AR_PROG_EGRESS, NULL };

/* On tcx, after what is there: counters on the port go first. */
static const struct mp_tc_ours ar_ours = {
	.names = ar_progs, .handle = AR_TC_HANDLE, .prio = AR_TC_PRIO,
};

/* @p for a port's hook, and what it holds into @st: 0 or an errno. */
static int port_hook(const char *ifname, bool egress, struct mp_tc_point *p,
		     struct mp_tc_state *st)
{
	*p = (struct mp_tc_point){ .ifindex = if_nametoindex(ifname),
				   .egress = egress, .ours = &ar_ours };
	if (!p->ifindex)
		return -errno;
	return mp_tc_query(p, st);
}

/* Which hook ar runs on, ingress and egress of @ifindex. */
static int port_hooks(int ifindex, enum mp_tc_hook hook[2])
{
	struct mp_tc_state st;
	struct mp_tc_point p;
	int egress, err;

	for (egress = 0; egress < 2; egress++) {
		p = (struct mp_tc_point){ .ifindex = ifindex, .egress = egress,
					  .ours = &ar_ours };
		err = mp_tc_query(&p, &st);
		if (err)
			return err;
		hook[egress] = mp_tc_where(&st);
	}
	return 0;
}

static int attach_hook(const struct mp_fabric_node *n, const char *ifname,
		       bool egress, enum mp_tc_hook hook,
		       const struct bpf_program *prog)
{
	struct mp_tc_state st;
	struct mp_tc_point p;
	int err;

	err = port_hook(ifname, egress, &p, &st);
	if (!err)
		err = mp_tc_attach(&p, hook, bpf_program__fd(prog), &st);
	if (err == -EBUSY)
		mp_err("%s: %s: tc handle %#x priority %u holds a filter that is not mplane's",
		       n->name, ifname, AR_TC_HANDLE, AR_TC_PRIO);
	else if (err)
		mp_err("%s: %s: attaching: %s", n->name, ifname, strerror(-err));
	return err;
}

static int attach_ports(struct ar *skel, const struct mp_fabric_node *n,
			enum mp_tc_choice choice)
{
	enum mp_tc_hook hook;
	unsigned int i;
	int err = 0;

	if (n->nports)
		err = mp_tc_choose(choice, n->ports[0].ifname,
				   if_nametoindex(n->ports[0].ifname), &hook);
	for (i = 0; i < n->nports && !err; i++) {
		err = attach_hook(n, n->ports[i].ifname, false, hook,
				  skel->progs.mp_ar_ingress);
		if (!err)
			err = attach_hook(n, n->ports[i].ifname, true, hook,
					  skel->progs.mp_ar_egress);
	}
	return err;
}

static int pin_prog(struct bpf_program *prog, const char *dir,
		    const char *name)
{
	char path[300];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	unlink(path);
	return bpf_program__pin(prog, path);
}

/* The settings, for status: a re-attach loads new ones, so its pin is
 * replaced, never reused as set_pins() reuses the maps. */
static int pin_settings(struct ar *skel, const char *dir)
{
	char path[300];

	if (snprintf(path, sizeof(path), "%s/%s", dir, AR_PIN_SETTINGS) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	unlink(path);
	return bpf_map__pin(skel->maps.rodata, path);
}

/*
 * The programs user space runs: the watcher changes a port's state with
 * one, 'telemetry sample' starts and stops the sampler with the other.
 * The sampler's timer map is pinned with the other maps (set_pins()), so
 * detach, removing the pins, also stops the timer.
 */
static int pin_syscall_progs(struct ar *skel, const char *dir)
{
	int err;

	err = pin_prog(skel->progs.mp_ar_port_state, dir, AR_PROG_PORT_STATE);
	if (!err)
		err = pin_prog(skel->progs.mp_ar_sampler, dir, AR_PROG_SAMPLER);
	return err;
}

int ar_switch_attach(const struct mp_fabric *f,
		     const struct mp_fabric_node *n,
		     const struct ar_settings *s, struct ar_route_stats *rs)
{
	char dir[256];
	struct ar *skel;
	int err;

	err = ar_pin_path(dir, sizeof(dir), f->prefix, n->name, NULL);
	if (!err)
		err = mp_pin_mkdir(dir);
	if (err) {
		mp_err("%s: %s", dir, strerror(-err));
		return err;
	}
	skel = load(n, dir, s);
	if (!skel)
		return -EINVAL;
	err = fill_ports(skel, n);
	if (err)
		mp_err("%s: filling port maps: %s", n->name, strerror(-err));
	if (!err)
		err = fill_routes(skel, n, rs);
	if (!err)
		err = pin_syscall_progs(skel, dir);
	if (!err)
		err = pin_settings(skel, dir);
	if (!err)
		err = attach_ports(skel, n, s->tc_choice);
	ar__destroy(skel);
	return err;
}

static void detach_hook(const char *ifname, bool egress)
{
	struct mp_tc_state st;
	struct mp_tc_point p;

	if (!port_hook(ifname, egress, &p, &st))
		mp_tc_detach(&p, &st);
}

int ar_switch_detach(const struct mp_fabric *f,
		     const struct mp_fabric_node *n)
{
	char dir[256];
	unsigned int i;

	for (i = 0; i < n->nports; i++) {
		detach_hook(n->ports[i].ifname, false);
		detach_hook(n->ports[i].ifname, true);
	}
	if (ar_pin_path(dir, sizeof(dir), f->prefix, n->name, NULL))
		return -ENAMETOOLONG;
	mp_pin_remove_dir(dir);
	return 0;
}

bool ar_switch_attached(const struct mp_fabric *f,
			const struct mp_fabric_node *n)
{
	char path[256];

	return !ar_pin_path(path, sizeof(path), f->prefix, n->name,
			    "mp_port_cfg") && !access(path, F_OK);
}

static int pinned_fd(const struct mp_fabric *f, const struct mp_fabric_node *n,
		     const char *name)
{
	char path[256];
	int fd;

	if (ar_pin_path(path, sizeof(path), f->prefix, n->name, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int ar_switch_settings(const struct mp_fabric *f,
		       const struct mp_fabric_node *n, struct ar_settings *s)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key = 0;
	struct ar__rodata ro;
	int fd, err;

	fd = pinned_fd(f, n, AR_PIN_SETTINGS);
	if (fd < 0)
		return fd;
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (!err && info.value_size != sizeof(ro))
		err = -EPROTO;
	if (!err && bpf_map_lookup_elem(fd, &key, &ro))
		err = -errno;
	close(fd);
	if (err)
		return err;
	memset(s, 0, sizeof(*s));
#define FROM_RODATA(field)	s->field = ro.field;
	AR_RODATA_SETTINGS(FROM_RODATA)
#undef FROM_RODATA
	return 0;
}

static void sum_stats(const struct mplane_port_stats *percpu, int ncpu,
		      struct mplane_port_stats *sum)
{
	const __u64 *src;
	__u64 *dst = (__u64 *)sum;
	size_t i, nfields = sizeof(*sum) / sizeof(__u64);
	int c;

	memset(sum, 0, sizeof(*sum));
	for (c = 0; c < ncpu; c++) {
		src = (const __u64 *)&percpu[c];
		for (i = 0; i < nfields; i++)
			dst[i] += src[i];
	}
}

/* The queue as the next packet would find it: drained up to now, as the
 * ingress program reads it. */
static __u64 vq_now(const struct mplane_vq *vq, __u64 rate_bps)
{
	struct timespec ts;
	__u64 now, dt, drained;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	dt = now > vq->last_ns ? now - vq->last_ns : 0;
	if (dt > 1000000000ULL)
		dt = 1000000000ULL;
	drained = rate_bps / 1000 * dt / 8000000;
	return vq->q_bytes > drained ? vq->q_bytes - drained : 0;
}

int ar_port_status(const struct mp_fabric *f, const struct mp_fabric_node *n,
		   int ifindex, struct ar_port_status *ps)
{
	int ncpu = libbpf_num_possible_cpus();
	struct mplane_port_stats percpu[ncpu > 0 ? ncpu : 1];
	struct vq_entry vq = {};
	int cfg, vqf, st, err = 0;
	__u32 key = ifindex;

	memset(ps, 0, sizeof(*ps));
	cfg = pinned_fd(f, n, "mp_port_cfg");
	vqf = pinned_fd(f, n, "mp_vq");
	st = pinned_fd(f, n, "mp_port_stats");
	if (cfg < 0 || vqf < 0 || st < 0) {
		err = -ENOENT;
		goto out;
	}
	if (bpf_map_lookup_elem(cfg, &key, &ps->cfg)) {
		err = -errno;
		goto out;
	}
	if (!bpf_map_lookup_elem_flags(vqf, &key, &vq, BPF_F_LOCK)) {
		ps->vq = vq.vq;
		ps->vq.q_bytes = vq_now(&vq.vq, ps->cfg.rate_bps);
		ps->pi = vq.pi;
	}
	if (ncpu > 0 && !bpf_map_lookup_elem(st, &key, percpu))
		sum_stats(percpu, ncpu, &ps->stats);
	err = port_hooks(ifindex, ps->hook);
out:
	if (cfg >= 0)
		close(cfg);
	if (vqf >= 0)
		close(vqf);
	if (st >= 0)
		close(st);
	return err;
}
