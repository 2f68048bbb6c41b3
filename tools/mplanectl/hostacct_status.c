// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status --prog hostacct: hooks, rail and QP counters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hostacct.h"
#include "mp_hostacct_limits.h"
#include "mp_bpf.h"
#include "mp_out.h"
#include "mp_pin.h"
#include "mplane_events.h"
#include "mplane_maps.h"

/* The fields of struct mplane_rail_acct, in order: all __u64. */
const char *const hostacct_rail_names[] = {
	"packets", "bytes", "ect", "ecn_ce", "udp_ce", "tcp_ce",
	"roce_packets", "roce_bytes", "roce_ce", "cnp", "malformed",
	"truncated",
};
#define RAIL_FIELDS	HOSTACCT_RAIL_FIELDS
_Static_assert(sizeof(hostacct_rail_names) / sizeof(hostacct_rail_names[0]) ==
	       RAIL_FIELDS, "a name for every rail counter");

struct qp_row {
	struct mplane_qp_key key;
	struct mplane_qp_acct acct;
};

struct ha_status {
	char dir[256];
	bool pinned;
	__u64 rail[__MPLANE_DIR_MAX][RAIL_FIELDS];
	struct qp_row *qps;
	size_t nr_qps;
	struct mplane_event_stats ev;
	struct mp_hostacct_limits lim;
	__u64 qp_entries;		/* the QP map's, every device's */
};

static int open_pin(const struct ha_status *st, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", st->dir, name);
	return bpf_obj_get(path);
}

static int read_rails(struct ha_status *st, int ifindex)
{
	struct mplane_rail_key key = { .ifindex = ifindex };
	int fd = open_pin(st, HOSTACCT_PIN_RAIL), err = 0;

	if (fd < 0)
		return -errno;
	for (key.dir = 0; key.dir < __MPLANE_DIR_MAX && !err; key.dir++)
		err = mp_percpu_sum(fd, &key, st->rail[key.dir], RAIL_FIELDS);
	close(fd);
	return err;
}

static int read_qps(struct ha_status *st, int ifindex)
{
	struct mplane_qp_key key, *prev = NULL;
	int fd = open_pin(st, HOSTACCT_PIN_QP);
	struct qp_row row, *rows;

	if (fd < 0)
		return -errno;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		row.key = key;
		prev = &row.key;
		st->qp_entries++;
		/* Evicted meanwhile (LRU), or of another device: skip it. */
		if (key.ifindex != (__u32)ifindex ||
		    bpf_map_lookup_elem(fd, &key, &row.acct))
			continue;
		rows = realloc(st->qps, (st->nr_qps + 1) * sizeof(*rows));
		if (!rows)
			break;
		st->qps = rows;
		st->qps[st->nr_qps++] = row;
		prev = &st->qps[st->nr_qps - 1].key;
	}
	close(fd);
	return 0;
}

/* Pins made before the limits were counted have none: zeros. */
static int read_limits(struct ha_status *st)
{
	int fd = open_pin(st, HOSTACCT_PIN_LIMITS), err;
	__u32 zero = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = mp_percpu_sum(fd, &zero, (__u64 *)&st->lim,
			 sizeof(st->lim) / sizeof(__u64));
	close(fd);
	return err;
}

/* The LRU's evictions: every QP made and no longer in the map. */
static __u64 qp_evicted(const struct ha_status *st)
{
	return st->lim.qp_created > st->qp_entries ?
	       st->lim.qp_created - st->qp_entries : 0;
}

static int read_events(struct ha_status *st)
{
	int fd = open_pin(st, HOSTACCT_PIN_EV_STATS), err;
	__u32 zero = 0;

	if (fd < 0)
		return -errno;
	err = mp_percpu_sum(fd, &zero, (__u64 *)&st->ev,
			    sizeof(st->ev) / sizeof(__u64));
	close(fd);
	return err;
}

static int read_all(struct mpbpf_target *t, struct ha_status *st)
{
	int d, err;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		err = mpbpf_query(t, d);
		if (err)
			return err;
	}
	err = mpbpf_query(t, -1);
	if (err)
		return err;
	err = mp_pin_dev_dir(t->dev, st->dir, sizeof(st->dir), false);
	if (err)
		return err;
	st->pinned = !access(st->dir, F_OK);
	if (!st->pinned)
		return 0;
	err = read_rails(st, t->ifindex);
	if (!err)
		err = read_qps(st, t->ifindex);
	if (!err)
		err = read_events(st);
	if (!err)
		err = read_limits(st);
	return err;
}

/* "tc", "xdp" or NULL: where direction @d of @t is counted. */
static const char *hook_of(const struct mpbpf_target *t, int d)
{
	if (d == MPLANE_DIR_INGRESS && t->xdp_slot.ours)
		return "xdp";
	return t->slots[d].ours ? "tc" : NULL;
}

static __u32 prog_of(const struct mpbpf_target *t, int d)
{
	if (d == MPLANE_DIR_INGRESS && t->xdp_slot.ours)
		return t->xdp_slot.prog_id;
	return t->slots[d].prog_id;
}

static struct json_object *dir_json(const struct mpbpf_target *t,
				    const struct ha_status *st, int d)
{
	struct json_object *obj = json_object_new_object();
	const char *hook = hook_of(t, d);
	size_t i;

	/* "attached" is a boolean in every command; the hook has its key. */
	json_object_object_add(obj, "attached", json_object_new_boolean(hook != NULL));
	if (hook) {
		json_object_object_add(obj, "hook", json_object_new_string(hook));
		if (!strcmp(hook, "tc"))
			json_object_object_add(obj, "tc_hook", json_object_new_string(
					       mp_tc_hook_name(t->slots[d].hook)));
		json_object_object_add(obj, "prog_id",
				       json_object_new_int64(prog_of(t, d)));
	}
	for (i = 0; st->pinned && i < RAIL_FIELDS; i++)
		json_object_object_add(obj, hostacct_rail_names[i],
				       json_object_new_uint64(st->rail[d][i]));
	return obj;
}

static struct json_object *qp_json(const struct qp_row *r)
{
	struct json_object *obj = json_object_new_object();
	const struct mplane_qp_acct *a = &r->acct;

#define ADD(k, v) json_object_object_add(obj, k, json_object_new_uint64(v))
	ADD("qpn", r->key.qpn);
	json_object_object_add(obj, "dir", json_object_new_string(
			       mpbpf_hooks[r->key.dir % __MPLANE_DIR_MAX].name));
	ADD("packets", a->packets);
	ADD("bytes", a->bytes);
	ADD("ecn_ce", a->ecn_ce);
	ADD("cnp", a->cnp);
	ADD("ack_req", a->ack_req);
	ADD("last_psn", a->last_psn);
#undef ADD
	return obj;
}

static void print_json(const struct mpbpf_target *t, const struct ha_status *st)
{
	struct json_object *obj = json_object_new_object(), *qps, *ev;
	size_t i;
	int d;

	json_object_object_add(obj, "dev", json_object_new_string(t->dev));
	json_object_object_add(obj, "ifindex", json_object_new_int(t->ifindex));
	json_object_object_add(obj, "prog", json_object_new_string("hostacct"));
	if (st->pinned)
		json_object_object_add(obj, "pin", json_object_new_string(st->dir));
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		json_object_object_add(obj, mpbpf_hooks[d].name,
				       dir_json(t, st, d));
	qps = json_object_new_array();
	for (i = 0; i < st->nr_qps; i++)
		json_object_array_add(qps, qp_json(&st->qps[i]));
	json_object_object_add(obj, "qps", qps);
	ev = json_object_new_object();
	json_object_object_add(ev, "produced", json_object_new_uint64(st->ev.produced));
	json_object_object_add(ev, "dropped", json_object_new_uint64(st->ev.dropped));
	json_object_object_add(obj, "events", ev);
	ev = json_object_new_object();
	json_object_object_add(ev, "qp_entries", json_object_new_uint64(st->qp_entries));
	json_object_object_add(ev, "qp_created", json_object_new_uint64(st->lim.qp_created));
	json_object_object_add(ev, "qp_evicted", json_object_new_uint64(qp_evicted(st)));
	json_object_object_add(ev, "qp_create_failed",
			       json_object_new_uint64(st->lim.qp_create_failed));
	json_object_object_add(ev, "rail_full", json_object_new_uint64(st->lim.rail_full));
	json_object_object_add(obj, "limits", ev);
	mp_json_print(obj);
}

static void print_qps(const struct ha_status *st)
{
	const struct qp_row *r;
	size_t i;

	if (!st->nr_qps)
		return;
	printf("  %-9s %-8s %12s %14s %10s %8s %8s %9s\n", "qpn", "dir",
	       "packets", "bytes", "ecn_ce", "cnp", "ack_req", "last_psn");
	for (i = 0; i < st->nr_qps; i++) {
		r = &st->qps[i];
		printf("  %#-9x %-8s %12llu %14llu %10llu %8llu %8llu %9u\n",
		       r->key.qpn, mpbpf_hooks[r->key.dir % __MPLANE_DIR_MAX].name,
		       r->acct.packets, r->acct.bytes, r->acct.ecn_ce,
		       r->acct.cnp, r->acct.ack_req, r->acct.last_psn);
	}
}

/* "xdp", "tc (tcx)", "tc (cls_bpf)" or "not attached", for people. */
static const char *hook_text(const struct mpbpf_target *t, int d,
			     char *buf, size_t size)
{
	const char *hook = hook_of(t, d);

	if (!hook || strcmp(hook, "tc"))
		return hook ? hook : "not attached";
	snprintf(buf, size, "tc (%s)", mp_tc_hook_name(t->slots[d].hook));
	return buf;
}

static void print_text(const struct mpbpf_target *t, const struct ha_status *st)
{
	char in[16], eg[16];
	size_t i;

	printf("%s (ifindex %d): hostacct, ingress %s, egress %s\n", t->dev,
	       t->ifindex, hook_text(t, MPLANE_DIR_INGRESS, in, sizeof(in)),
	       hook_text(t, MPLANE_DIR_EGRESS, eg, sizeof(eg)));
	if (!st->pinned)
		return;
	printf("  maps pinned in %s\n", st->dir);
	printf("  %-14s %14s %14s\n", "counter", "ingress", "egress");
	for (i = 0; i < RAIL_FIELDS; i++)
		printf("  %-14s %14llu %14llu\n", hostacct_rail_names[i],
		       st->rail[MPLANE_DIR_INGRESS][i],
		       st->rail[MPLANE_DIR_EGRESS][i]);
	print_qps(st);
	printf("  events: %llu produced, %llu dropped (ring full)\n",
	       st->ev.produced, st->ev.dropped);
	printf("  QP map: %llu entries, %llu made, %llu evicted (LRU full), %llu refused; rail map full for %llu packets\n",
	       st->qp_entries, st->lim.qp_created, qp_evicted(st),
	       st->lim.qp_create_failed, st->lim.rail_full);
}

int hostacct_status(struct mpbpf_target *t)
{
	struct ha_status st = {};
	int err;

	err = read_all(t, &st);
	if (err) {
		mp_err("%s: %s", t->dev, strerror(-err));
		free(st.qps);
		return err;
	}
	if (mp_json)
		print_json(t, &st);
	else
		print_text(t, &st);
	free(st.qps);
	return 0;
}
