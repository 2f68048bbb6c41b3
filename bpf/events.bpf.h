/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event stream every mplane BPF program writes: one ring buffer per
 * object (mp_events), records as in tools/include/mplane_events.h, a
 * copy for each reader that asked for its own (mp_event_readers), and
 * per-CPU counts of what was produced and what each full ring refused.
 *
 * Wakeups are batched: a record is submitted without waking the reader
 * unless the ring holds more than ev_wakeup_bytes, so a busy port costs one
 * wakeup per batch, not per packet.  Readers poll with a timeout, so a
 * quiet ring still drains.
 */
#ifndef MPLANE_EVENTS_BPF_H
#define MPLANE_EVENTS_BPF_H

#include <linux/mplane.h>
#include "mplane_events.h"

#define MP_EVENTS_RING_BYTES	(256 * 1024)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MP_EVENTS_RING_BYTES);
} mp_events SEC(".maps");

/* The readers' own rings (tools/include/mplane_events.h): empty slots
 * until a reader fills one. */
struct mp_event_reader_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MPLANE_EV_READER_RING_BYTES);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MPLANE_EV_READERS);
	__type(key, __u32);
	__array(values, struct mp_event_reader_ring);
} mp_event_readers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mplane_event_stats);
} mp_event_stats SEC(".maps");

/* Wake the reader once this many bytes wait; 0 wakes on every record. */
const volatile __u64 ev_wakeup_bytes = 64 * 1024;
/* Event types to emit, as a bitmask of 1 << enum mplane_event_type. */
const volatile __u32 ev_mask = ~0U;

static __always_inline bool mp_event_wanted(__u32 type)
{
	return ev_mask & (1U << type);
}

/* The wakeup flag for a record about to go into @ring: batched. */
static __always_inline __u64 mp_event_wakeup(void *ring)
{
	if (ev_wakeup_bytes &&
	    bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) < ev_wakeup_bytes)
		return BPF_RB_NO_WAKEUP;
	return BPF_RB_FORCE_WAKEUP;
}

/* @e into reader slot @slot's ring, if there is one; a refusal counted. */
static __always_inline void mp_event_to_reader(const __u32 slot,
					       struct mplane_event *e,
					       struct mplane_event_stats *st)
{
	__u32 key = slot;
	void *ring = bpf_map_lookup_elem(&mp_event_readers, &key);

	/* The mask is for the verifier: clang may read the index back from
	 * the key's stack slot, where it is no longer a known constant. */
	if (ring && bpf_ringbuf_output(ring, e, sizeof(*e),
				       mp_event_wakeup(ring)) && st)
		st->reader_dropped[slot & (MPLANE_EV_READERS - 1)]++;
}

/* Slot by slot, with constant keys: clang cannot unroll a loop whose
 * key's address is taken, and the verifier need not walk one. */
_Static_assert(MPLANE_EV_READERS == 4,
	       "mp_event_fan_out() names each slot, and the mask needs 2^n");
static __always_inline void mp_event_fan_out(struct mplane_event *e,
					     struct mplane_event_stats *st)
{
	mp_event_to_reader(0, e, st);
	mp_event_to_reader(1, e, st);
	mp_event_to_reader(2, e, st);
	mp_event_to_reader(3, e, st);
}

/* As mp_event_emit(), with hdr.flags set: for the types whose flags carry
 * a value (PLANE_SAMPLE's load score, COUNTER's id).  The record is made
 * on the stack and copied into each ring: one copy of 56 bytes a ring is
 * cheaper than a reservation a ring for the few that are there. */
static __always_inline void mp_event_emit_flags(__u32 type, __u32 ifindex,
						__u16 plane, __u32 hdr_flags,
						__u64 v0, __u64 v1,
						__u64 v2, __u64 v3)
{
	struct mplane_event_stats *st;
	struct mplane_event e;
	__u32 zero = 0;

	if (!mp_event_wanted(type))
		return;
	st = bpf_map_lookup_elem(&mp_event_stats, &zero);
	if (st)
		st->produced++;
	e.hdr.version = MPLANE_EVENT_VERSION;
	e.hdr.type = type;
	e.hdr.len = sizeof(e);
	e.hdr.cpu = bpf_get_smp_processor_id();
	e.hdr.plane = plane;
	e.hdr.ifindex = ifindex;
	e.hdr.flags = hdr_flags;
	e.hdr.ts_ns = bpf_ktime_get_ns();
	e.val[0] = v0;
	e.val[1] = v1;
	e.val[2] = v2;
	e.val[3] = v3;
	if (bpf_ringbuf_output(&mp_events, &e, sizeof(e),
			       mp_event_wakeup(&mp_events)) && st)
		st->dropped++;
	mp_event_fan_out(&e, st);
}

static __always_inline void mp_event_emit(__u32 type, __u32 ifindex,
					  __u16 plane, __u64 v0, __u64 v1,
					  __u64 v2, __u64 v3)
{
	mp_event_emit_flags(type, ifindex, plane, 0, v0, v1, v2, v3);
}

#endif /* MPLANE_EVENTS_BPF_H */
