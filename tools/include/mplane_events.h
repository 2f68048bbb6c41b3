/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mplane_events.h: the telemetry event records.  The BPF programs (and
 * the kmod relay, and user-space pollers through marks.bpf.c) write
 * them into BPF ring buffers; mplanectl's feed reads them
 * (tools/lib/mp_event.c decodes them).  Not kernel ABI: mplane.ko only
 * emits tracepoints, whose values (enum mplane_rate_cause, the plane
 * states) are in uapi/linux/mplane.h.  Numbers are a format shared by
 * programs of different versions: append, never renumber.
 */
#ifndef MPLANE_EVENTS_H
#define MPLANE_EVENTS_H

#include <linux/mplane.h>

/*
 * Telemetry events.  Every producer (BPF programs, kmod tracepoints relayed
 * by BPF, samplers) writes records that begin with this header into a BPF
 * ring buffer; readers skip types they do not know using @len, so new event
 * types and new trailing fields never break an older reader.
 */
#define MPLANE_EVENT_VERSION	1

enum mplane_event_type {
	MPLANE_EV_NONE,
	MPLANE_EV_QUEUE_SAMPLE,
	MPLANE_EV_ECN_MARK,
	MPLANE_EV_CNP,
	MPLANE_EV_PATH_SWITCH,
	MPLANE_EV_FLOWLET_SWITCH,
	MPLANE_EV_PORT_STATE,
	MPLANE_EV_PLANE_STATE,
	MPLANE_EV_FAILOVER,
	MPLANE_EV_STEP_MARK,
	MPLANE_EV_RATE_UPDATE,		/* a QP's DCQCN rate changed */
	MPLANE_EV_COLLECTIVE,		/* a collective's iteration, per rank */
	MPLANE_EV_PLANE_SAMPLE,		/* mplane.ko's sampler, per plane */
	MPLANE_EV_PORT_SAMPLE,		/* the switch sampler, per port */
	MPLANE_EV_COUNTER,		/* a polled counter (user space) */
	MPLANE_EV_PLANE_SELECT,		/* a sampled plane choice of mp0 */
	MPLANE_EV_FAULT,		/* a fault injected into the fabric */
	__MPLANE_EV_MAX,
};

struct mplane_event_hdr {
	__u8	version;	/* MPLANE_EVENT_VERSION */
	__u8	type;		/* enum mplane_event_type */
	__u16	len;		/* bytes of the whole record, header included */
	__u16	cpu;
	__u16	plane;		/* plane index, or 0xffff when not a plane */
	__u32	ifindex;
	__u32	flags;
	__u64	ts_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
};

#define MPLANE_EVENT_NO_PLANE	0xffff

/* A generic record: most events carry up to four values. */
struct mplane_event {
	struct mplane_event_hdr	hdr;
	__u64			val[4];
};

/*
 * A BPF ring has one consumer: two readers of mp_events would each get
 * part of the stream.  So every object also has mp_event_readers, an
 * array of MPLANE_EV_READERS rings that readers who need the whole
 * stream beside the others (the exporter, beside a recorder) create and
 * put in a free slot: each record goes to mp_events and to every ring
 * in a slot.  A slot's ring is MPLANE_EV_READER_RING_BYTES.
 */
#define MPLANE_EV_READERS		4
#define MPLANE_EV_READER_RING_BYTES	(1024 * 1024)

/* Every producer of events counts, per CPU, what it tried and what the
 * full ring refused, mp_events's (dropped: reserved + dropped =
 * produced) and each reader slot's. */
struct mplane_event_stats {
	__u64	produced;
	__u64	dropped;
	__u64	reader_dropped[MPLANE_EV_READERS];
};

/* Values of the BPF events (struct mplane_event.val[]). */
/* QUEUE_SAMPLE: [0] q_bytes, [1] dre_bytes, [2] tx_packets, [3] hwm_bytes */
/* ECN_MARK:     [0] q_bytes, [1] mark probability (of 65536) */
/* CNP:          [0] qpn, [1] dir, [2] src IPv4 or 0 (host byte order);
 *               hostacct emits one per CNP it sees, at either hook, and
 *               nothing else (CE marks are counted, not streamed) */
/* PATH_SWITCH/FLOWLET_SWITCH: [0] old ifindex, [1] new ifindex,
 *               [2] flow hash, [3] q_bytes of the new port */
/* PORT_STATE:   [0] up, [1] old up */
/* STEP_MARK:    [0] step, [1] pid, [2] kind, [3] the application's own
 *               CLOCK_MONOTONIC time of the mark, 0 if it gave none */
/*
 * From mplane.ko's tracepoints, relayed by bpf/kmtrace.bpf.c; hdr.ifindex
 * is the mplane device's, hdr.plane the plane's index, hdr.flags the inode
 * number of the device's network namespace (as 'stat -L -c %i' shows it
 * for /proc/PID/ns/net; 0 when unknown): ifindexes are per namespace, and
 * one relay sees the mplane devices of every namespace.
 * PLANE_STATE:  [0] state, [1] old state (enum mplane_plane_state),
 *               [2] reason (enum mplane_plane_reason), [3] rail ifindex
 * FAILOVER:     [0] reason, [1] planes still usable (bitmask)
 * PLANE_SAMPLE: [0] q_bytes (the rail's qdisc backlog and BQL in flight),
 *               [1] tx_bytes, [2] ecn_ce, [3] cnp (all three cumulative,
 *               as IFLA_MPLANE_PSTAT_*)
 * RATE_UPDATE:  [0] qpn, [1] new rate (kbit/s), [2] old rate (kbit/s),
 *               [3] enum mplane_rate_cause; hdr.plane is the plane the
 *               CNP came in on for a cut, else MPLANE_EVENT_NO_PLANE
 * PLANE_SELECT: [0] policy, [1] flow hash, [2] load score, [3] 1 when
 *               a new flowlet began; one choice in sel_sample_every
 * From the switch sampler (bpf/ar.bpf.c's timer); hdr.ifindex is the port:
 * PORT_SAMPLE:  [0] q_bytes (the virtual queue now), [1] tx_bytes,
 *               [2] ce_marked, [3] tx_packets (cumulative)
 * From user-space pollers (mplanectl telemetry record); hdr.flags is the
 * counter's id, named by the capture's MPLANE_CF_COUNTER_NAME frame:
 * COUNTER:      [0] value, [1] enum mplane_counter_kind
 * From user space through marks.bpf.c's mp_user_event, on the clock of
 * every other event:
 * COLLECTIVE:   [0] iteration, [1] rank, [2] enum mplane_mark_kind (STEP
 *               as it begins, STEP_END as it ends), [3] bytes per rank;
 *               hdr.flags is the operation (enum mplane_coll_op),
 *               hdr.ifindex the job (the pid of its 'collective run'),
 *               and the warm-up's iterations are not marked
 * FAULT:        [0] enum mplane_fault_action, [1] its value (a rate in
 *               bit/s, a loss in parts per million, else 0), [2] the
 *               fault's number in its schedule: 0 for a fault applied
 *               once, 2C for the down of a flap's cycle C and 2C + 1 for
 *               its up, [3] what it was applied to and how, MPLANE_FAULT_
 *               SPEC() below; hdr.plane is the plane (or
 *               MPLANE_EVENT_NO_PLANE for the whole fabric), hdr.ifindex
 *               the port's ifindex in its node's namespace (0 for a
 *               switch, a plane or the fabric), hdr.flags the node's
 *               index in the fabric's state file (0 without a node).
 *               One event per target and step, emitted just before the
 *               change is made, so that it comes before its effects.
 */
enum mplane_counter_kind {
	MPLANE_COUNTER_NETDEV,		/* rtnetlink link statistics */
	MPLANE_COUNTER_ETHTOOL,		/* ethtool -S */
	MPLANE_COUNTER_RDMA,		/* /sys/class/infiniband hw_counters */
	__MPLANE_COUNTER_MAX,
};

/* The operations of 'mplanectl collective' (COLLECTIVE's hdr.flags). */
enum mplane_coll_op {
	MPLANE_COLL_ALLREDUCE,
	MPLANE_COLL_ALLGATHER,
	MPLANE_COLL_REDUCE_SCATTER,
	MPLANE_COLL_BROADCAST,
	MPLANE_COLL_ALLTOALL,
	MPLANE_COLL_PERMUTATION,	/* each rank to another: background */
	MPLANE_COLL_INCAST,		/* every rank to rank 0: background */
	__MPLANE_COLL_MAX,
};

/* What 'mplanectl fabric fault' did (FAULT's val[0]) and to what. */
enum mplane_fault_action {
	MPLANE_FAULT_DOWN,		/* the link or port stops carrying */
	MPLANE_FAULT_UP,		/* and carries again */
	MPLANE_FAULT_DEGRADE,		/* its rate drops to val[1] bit/s */
	MPLANE_FAULT_LOSS,		/* it loses val[1] ppm of packets */
	MPLANE_FAULT_CLEAR,		/* back to how the fabric was built */
	__MPLANE_FAULT_MAX,
};

enum mplane_fault_target {
	MPLANE_FAULT_LINK,		/* both ends of one link */
	MPLANE_FAULT_PORT,		/* one end */
	MPLANE_FAULT_SWITCH,		/* every port of a leaf or spine */
	MPLANE_FAULT_PLANE,		/* every link of a plane */
	MPLANE_FAULT_FABRIC,		/* every link (clear) */
	__MPLANE_FAULT_TARGET_MAX,
};

/* How the fault was made. */
enum mplane_fault_via {
	MPLANE_FAULT_VIA_ADMIN,		/* the ports' admin state (rtnetlink) */
	MPLANE_FAULT_VIA_TBF,		/* the rate of the ports' root tbf */
	MPLANE_FAULT_VIA_NETEM,		/* netem under that tbf */
	MPLANE_FAULT_VIA_BPF,		/* bpf/fault_loss.bpf.c on tc egress */
	MPLANE_FAULT_VIA_ALL,		/* clear: whatever was made, undone */
	__MPLANE_FAULT_VIA_MAX,
};

/*
 * The node named by a fault (the first node of a link as it was given,
 * "p0l0" of "p0l0:s1"), and the node at the far end of the port named,
 * when one was: a role and an index (H, L or S; the plane is hdr.plane),
 * so that a reader names them without the fabric's state file.  A port
 * is named by its far end: "s1" of a leaf is its port to spine 1, and a
 * host's port in plane P is "r<P>".
 */
enum mplane_fault_role {
	MPLANE_FAULT_ROLE_NONE,
	MPLANE_FAULT_ROLE_HOST,
	MPLANE_FAULT_ROLE_LEAF,
	MPLANE_FAULT_ROLE_SPINE,
};

/* FAULT's val[3]: bits 0-7 the target, 8-15 the way, 16-23 the node's
 * role, 24-39 its index, 40-47 the far end's role, 48-63 its index. */
#define MPLANE_FAULT_SPEC(target, via, role, index, peer_role, peer_index) \
	((__u64)(target) | (__u64)(via) << 8 | (__u64)(role) << 16 |	\
	 (__u64)((index) & 0xffff) << 24 | (__u64)(peer_role) << 40 |	\
	 (__u64)((peer_index) & 0xffff) << 48)
#define MPLANE_FAULT_SPEC_TARGET(v)	((__u32)((v) & 0xff))
#define MPLANE_FAULT_SPEC_VIA(v)	((__u32)(((v) >> 8) & 0xff))
#define MPLANE_FAULT_SPEC_ROLE(v)	((__u32)(((v) >> 16) & 0xff))
#define MPLANE_FAULT_SPEC_INDEX(v)	((__u32)(((v) >> 24) & 0xffff))
#define MPLANE_FAULT_SPEC_PEER_ROLE(v)	((__u32)(((v) >> 40) & 0xff))
#define MPLANE_FAULT_SPEC_PEER_INDEX(v)	((__u32)(((v) >> 48) & 0xffff))

#endif /* MPLANE_EVENTS_H */
