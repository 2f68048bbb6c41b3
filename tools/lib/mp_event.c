// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mp_event.h"
#include "mp_names.h"
#include "mp_print.h"
#include "mplane_events.h"

static const char *const type_names[__MPLANE_EV_MAX] = {
	[MPLANE_EV_NONE]		= "none",
	[MPLANE_EV_QUEUE_SAMPLE]	= "queue_sample",
	[MPLANE_EV_ECN_MARK]		= "ecn_mark",
	[MPLANE_EV_CNP]			= "cnp",
	[MPLANE_EV_PATH_SWITCH]		= "path_switch",
	[MPLANE_EV_FLOWLET_SWITCH]	= "flowlet_switch",
	[MPLANE_EV_PORT_STATE]		= "port_state",
	[MPLANE_EV_PLANE_STATE]		= "plane_state",
	[MPLANE_EV_FAILOVER]		= "failover",
	[MPLANE_EV_STEP_MARK]		= "step_mark",
	[MPLANE_EV_RATE_UPDATE]		= "rate_update",
	[MPLANE_EV_COLLECTIVE]		= "collective",
	[MPLANE_EV_PLANE_SAMPLE]	= "plane_sample",
	[MPLANE_EV_PORT_SAMPLE]		= "port_sample",
	[MPLANE_EV_COUNTER]		= "counter",
	[MPLANE_EV_PLANE_SELECT]	= "plane_select",
	[MPLANE_EV_FAULT]		= "fault",
};

/* As documented next to struct mplane_event in the uapi. */
static const char *const val_names[__MPLANE_EV_MAX][4] = {
	[MPLANE_EV_QUEUE_SAMPLE]	= { "q_bytes", "dre_bytes",
					    "tx_packets", "hwm_bytes" },
	[MPLANE_EV_ECN_MARK]		= { "q_bytes", "prob" },
	[MPLANE_EV_CNP]			= { "qpn", "dir", "src" },
	[MPLANE_EV_PATH_SWITCH]		= { "old_ifindex", "new_ifindex",
					    "flow_hash", "q_bytes" },
	[MPLANE_EV_FLOWLET_SWITCH]	= { "old_ifindex", "new_ifindex",
					    "flow_hash", "q_bytes" },
	[MPLANE_EV_PORT_STATE]		= { "up", "old_up" },
	[MPLANE_EV_STEP_MARK]		= { "step_index", "pid", "kind",
					    "app_ts_ns" },
	[MPLANE_EV_COLLECTIVE]		= { "iteration", "rank", "kind",
					    "bytes" },
	[MPLANE_EV_PLANE_STATE]		= { "state", "old_state", "reason",
					    "rail_ifindex" },
	[MPLANE_EV_FAILOVER]		= { "reason", "usable_mask" },
	[MPLANE_EV_PLANE_SAMPLE]	= { "q_bytes", "tx_bytes", "ecn_ce",
					    "cnp" },
	[MPLANE_EV_PORT_SAMPLE]		= { "q_bytes", "tx_bytes",
					    "ce_marked", "tx_packets" },
	[MPLANE_EV_COUNTER]		= { "value", "kind" },
	[MPLANE_EV_PLANE_SELECT]	= { "policy", "flow_hash", "load",
					    "new_flowlet" },
	[MPLANE_EV_FAULT]		= { "action", "value", "step_index",
					    "spec" },
	[MPLANE_EV_RATE_UPDATE]		= { "qpn", "rate_kbps", "old_kbps",
					    "cause" },
};

/*
 * The values that are an enum.  JSON has the number under "NAME_id" and,
 * when this build knows it, the name under "NAME", as "state" is a name
 * in every other command's JSON; text shows the name.
 */
static const struct mp_names *const val_enums[__MPLANE_EV_MAX][4] = {
	[MPLANE_EV_CNP]			= { [1] = &mp_dir_names },
	[MPLANE_EV_STEP_MARK]		= { [2] = &mp_mark_kind_names },
	[MPLANE_EV_COLLECTIVE]		= { [2] = &mp_mark_kind_names },
	[MPLANE_EV_PLANE_STATE]		= { &mp_state_names, &mp_state_names,
					    &mp_reason_names },
	[MPLANE_EV_FAILOVER]		= { &mp_reason_names },
	[MPLANE_EV_COUNTER]		= { [1] = &mp_counter_kind_names },
	[MPLANE_EV_PLANE_SELECT]	= { &mp_policy_names },
	[MPLANE_EV_FAULT]		= { &mp_fault_action_names },
	[MPLANE_EV_RATE_UPDATE]		= { [3] = &mp_rate_cause_names },
};

static bool val_is_enum(unsigned int type, unsigned int i)
{
	return type < __MPLANE_EV_MAX && i < 4 && val_enums[type][i];
}

const char *mp_event_val_label(unsigned int type, unsigned int i,
			       uint64_t val)
{
	if (!val_is_enum(type, i) || val > UINT32_MAX)
		return NULL;
	return mp_name(val_enums[type][i], val);
}

const char *mp_rate_cause_name(uint64_t cause)
{
	return mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3, cause);
}

/* QPNs and plane masks read best in hex. */
bool mp_event_val_hex(unsigned int type, unsigned int i)
{
	return (type == MPLANE_EV_RATE_UPDATE && i == 0) ||
	       (type == MPLANE_EV_FAILOVER && i == 1);
}

int mp_event_decode(const void *data, size_t size, struct mplane_event *e)
{
	const struct mplane_event_hdr *h = data;

	if (size < sizeof(*h) || h->len < sizeof(*h) || h->len > size)
		return -EINVAL;
	if (h->version != MPLANE_EVENT_VERSION)
		return -EPROTO;
	memset(e, 0, sizeof(*e));
	memcpy(e, data, h->len < sizeof(*e) ? h->len : sizeof(*e));
	return 0;
}

const char *mp_event_type_name(unsigned int type)
{
	return type < __MPLANE_EV_MAX ? type_names[type] : NULL;
}

int mp_event_type_parse(const char *name)
{
	int i;

	for (i = 0; i < __MPLANE_EV_MAX; i++)
		if (!strcmp(name, type_names[i]))
			return i;
	return -1;
}

const char *mp_event_val_name(unsigned int type, unsigned int i)
{
	if (type >= __MPLANE_EV_MAX || i >= 4)
		return NULL;
	return val_names[type][i];
}

int mp_evq_push(struct mp_evq *q, const struct mplane_event *e,
		unsigned int source)
{
	struct mp_event_item *items;
	size_t cap;

	if (q->n == q->cap) {
		cap = q->cap ? q->cap * 2 : 256;
		items = realloc(q->items, cap * sizeof(*items));
		if (!items)
			return -ENOMEM;
		q->items = items;
		q->cap = cap;
	}
	q->items[q->n].ev = *e;
	q->items[q->n].source = source;
	q->n++;
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct mp_event_item *x = a, *y = b;

	if (x->ev.hdr.ts_ns != y->ev.hdr.ts_ns)
		return x->ev.hdr.ts_ns < y->ev.hdr.ts_ns ? -1 : 1;
	/* Equal stamps keep a stable, repeatable order. */
	if (x->ev.hdr.cpu != y->ev.hdr.cpu)
		return x->ev.hdr.cpu < y->ev.hdr.cpu ? -1 : 1;
	return (x->source > y->source) - (x->source < y->source);
}

size_t mp_evq_release(struct mp_evq *q, uint64_t upto, mp_evq_cb cb,
		      void *data)
{
	size_t i, done;

	if (!q->n)
		return 0;	/* and no qsort() of NULL */
	qsort(q->items, q->n, sizeof(*q->items), by_ts);
	for (done = 0; done < q->n; done++) {
		const struct mp_event_item *it = &q->items[done];

		if (it->ev.hdr.ts_ns > upto)
			break;
		if (it->ev.hdr.ts_ns < q->released_ts)
			q->late++;
		else
			q->released_ts = it->ev.hdr.ts_ns;
		cb(it, data);
	}
	for (i = done; i < q->n; i++)
		q->items[i - done] = q->items[i];
	q->n -= done;
	return done;
}

void mp_evq_free(struct mp_evq *q)
{
	free(q->items);
	memset(q, 0, sizeof(*q));
}

void mp_event_print_val(const struct mplane_event *e, unsigned int i,
			enum mp_print_to to)
{
	const char *vn = mp_event_val_name(e->hdr.type, i);
	const char *label = mp_event_val_label(e->hdr.type, i, e->val[i]);
	char vkey[8], idkey[48];
	bool hex;

	/* A type that is known says which of its values mean something. */
	if (!vn && mp_event_type_name(e->hdr.type))
		return;
	if (!vn) {
		snprintf(vkey, sizeof(vkey), "v%u", i);
		vn = vkey;
	}
	if (to == MP_PRINT_ANY)
		mp_print_text(" %s=", vn);
	if (!val_is_enum(e->hdr.type, i)) {
		hex = mp_event_val_hex(e->hdr.type, i);
		mp_print_u64(to, vn, hex ? "%#" PRIx64 : "%" PRIu64, e->val[i]);
		return;
	}
	/* The number for machines; the name, when known, for both. */
	snprintf(idkey, sizeof(idkey), "%s_id", vn);
	mp_print_u64(label ? MP_PRINT_JSON : to, idkey, "%" PRIu64, e->val[i]);
	if (label)
		mp_print_str(to, vn, "%s", label);
}
