// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status --prog hostacct: hooks, rail and QP counters. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hostacct.h"
#include "mp_hostacct_limits.h"
#include "mp_bpf.h"
#include "mp_out.h"
#include "mp_pin.h"
#include "mp_print.h"
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

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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

/* Counters down, a direction across, as JSON has one object for each. */
static const struct mp_print_col dir_cols[] = {
	{ .width = 14, .left = true },
	{ .header = "ingress", .width = 14 },
	{ .header = "egress", .width = 14 },
};

/* A direction's column: its hook and program, then its counters. */
static void print_dir(const struct mpbpf_target *t, const struct ha_status *st,
		      int d)
{
	const char *hook = hook_of(t, d);
	size_t i;

	mp_print_table_col();
	mp_print_open_object(mpbpf_hooks[d].name);
	/* "attached" is a boolean in every command; the hook has its key. */
	mp_print_bool(MP_PRINT_JSON, "attached", NULL, hook != NULL);
	if (hook) {
		/* "tc (tcx)" or "tc (cls_bpf)": which tc hook is one cell. */
		mp_print_cell_open();
		mp_print_str(MP_PRINT_ANY, "hook", "%s", hook);
		if (!strcmp(hook, "tc"))
			mp_print_str(MP_PRINT_ANY, "tc_hook", " (%s)",
				     mp_tc_hook_name(t->slots[d].hook));
		mp_print_cell_close();
		mp_print_u64(MP_PRINT_ANY, "prog_id", "%" PRIu64, prog_of(t, d));
	} else {
		mp_print_text("not attached");
		mp_print_text("-");
	}
	for (i = 0; st->pinned && i < RAIL_FIELDS; i++)
		mp_print_u64(MP_PRINT_ANY, hostacct_rail_names[i], "%" PRIu64,
			     (uint64_t)st->rail[d][i]);
	mp_print_close_object();
}

static void print_dirs(const struct mpbpf_target *t, const struct ha_status *st)
{
	size_t i;
	int d;

	mp_print_table_open(2, dir_cols, ARRAY_SIZE(dir_cols));
	mp_print_table_col();
	mp_print_text("hook");
	mp_print_text("prog_id");
	for (i = 0; st->pinned && i < RAIL_FIELDS; i++)
		mp_print_text("%s", hostacct_rail_names[i]);
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		print_dir(t, st, d);
	mp_print_table_close();
}

static const struct mp_print_col qp_cols[] = {
	{ .header = "qpn", .width = 9, .left = true },
	{ .header = "dir", .width = 8, .left = true },
	{ .header = "packets", .width = 12 },
	{ .header = "bytes", .width = 14 },
	{ .header = "ecn_ce", .width = 10 },
	{ .header = "cnp", .width = 8 },
	{ .header = "ack_req", .width = 8 },
	{ .header = "last_psn", .width = 9 },
};

static void print_qp(const struct qp_row *r)
{
	const struct mplane_qp_acct *a = &r->acct;

	mp_print_table_row();
	mp_print_open_object(NULL);
	mp_print_u64(MP_PRINT_ANY, "qpn", "%#" PRIx64, r->key.qpn);
	mp_print_str(MP_PRINT_ANY, "dir", "%s",
		     mpbpf_hooks[r->key.dir % __MPLANE_DIR_MAX].name);
	mp_print_u64(MP_PRINT_ANY, "packets", "%" PRIu64, (uint64_t)a->packets);
	mp_print_u64(MP_PRINT_ANY, "bytes", "%" PRIu64, (uint64_t)a->bytes);
	mp_print_u64(MP_PRINT_ANY, "ecn_ce", "%" PRIu64, (uint64_t)a->ecn_ce);
	mp_print_u64(MP_PRINT_ANY, "cnp", "%" PRIu64, (uint64_t)a->cnp);
	mp_print_u64(MP_PRINT_ANY, "ack_req", "%" PRIu64, (uint64_t)a->ack_req);
	mp_print_u64(MP_PRINT_ANY, "last_psn", "%" PRIu64, (uint64_t)a->last_psn);
	mp_print_close_object();
}

static void print_qps(const struct ha_status *st)
{
	size_t i;

	mp_print_open_array("qps");
	mp_print_table_open(2, qp_cols, ARRAY_SIZE(qp_cols));
	for (i = 0; i < st->nr_qps; i++)
		print_qp(&st->qps[i]);
	mp_print_table_close();
	mp_print_close_array();
}

/* Without pins there is nothing to count yet: text says nothing of it. */
static void print_limits(const struct ha_status *st)
{
	enum mp_print_to to = st->pinned ? MP_PRINT_ANY : MP_PRINT_JSON;

	mp_print_open_object("event_ring");
	mp_print_u64(to, "produced", "  events: %" PRIu64 " produced",
		     (uint64_t)st->ev.produced);
	mp_print_u64(to, "dropped", ", %" PRIu64 " dropped (ring full)\n",
		     (uint64_t)st->ev.dropped);
	mp_print_close_object();
	mp_print_open_object("limits");
	mp_print_u64(to, "qp_entries", "  QP map: %" PRIu64 " entries",
		     (uint64_t)st->qp_entries);
	mp_print_u64(to, "qp_created", ", %" PRIu64 " made",
		     (uint64_t)st->lim.qp_created);
	mp_print_u64(to, "qp_evicted", ", %" PRIu64 " evicted (LRU full)",
		     (uint64_t)qp_evicted(st));
	mp_print_u64(to, "qp_create_failed", ", %" PRIu64 " refused",
		     (uint64_t)st->lim.qp_create_failed);
	mp_print_u64(to, "rail_full", "; rail map full for %" PRIu64 " packets\n",
		     (uint64_t)st->lim.rail_full);
	mp_print_close_object();
}

static void print_status(const struct mpbpf_target *t,
			 const struct ha_status *st)
{
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "dev", "%s", t->dev);
	mp_print_s64(MP_PRINT_ANY, "ifindex", " (ifindex %" PRId64 ")",
		     t->ifindex);
	mp_print_str(MP_PRINT_ANY, "prog", ": %s\n", "hostacct");
	if (st->pinned)
		mp_print_str(MP_PRINT_ANY, "pin", "  maps pinned in %s\n",
			     st->dir);
	print_dirs(t, st);
	print_qps(st);
	print_limits(st);
	mp_print_end();
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
	print_status(t, &st);
	free(st.qps);
	return 0;
}
