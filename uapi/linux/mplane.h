/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * mplane: the one contract shared by mplane.ko, the BPF programs and the
 * user-space tools.  Numbers in this file are ABI: append, never renumber.
 */
#ifndef _UAPI_LINUX_MPLANE_H
#define _UAPI_LINUX_MPLANE_H

#ifdef __KERNEL__
#include <linux/types.h>
#elif defined(__bpf__) && defined(__VMLINUX_H__)
/* BPF programs get the kernel types from vmlinux.h. */
#else
#include <linux/types.h>
#endif

#define MPLANE_GENL_VERSION	1
#define MPLANE_LINK_KIND	"mplane"

/* The most planes (rails) one mplane device can hold. */
#define MPLANE_MAX_PLANES	16

/*
 * IFLA_INFO_DATA of an mplane device: `ip link add mp0 type mplane` and
 * `mplanectl link set mp0 ...`.  Every setting can change while traffic
 * flows; the kernel rejects out-of-range values with an extack message
 * naming the attribute and its range.
 */
enum {
	IFLA_MPLANE_UNSPEC,
	IFLA_MPLANE_PLANE_COUNT,	/* u32, read-only: planes enslaved */
	IFLA_MPLANE_POLICY,		/* u8: enum mplane_policy */
	IFLA_MPLANE_FLOWLET_GAP_US,	/* u32: idle time that ends a flowlet */
	IFLA_MPLANE_PROBE_INTERVAL_US,	/* u32: liveness probe period */
	IFLA_MPLANE_PROBE_MISSES,	/* u32: misses that fail a plane */
	IFLA_MPLANE_HOLDDOWN_MS,	/* u32: wait before re-admitting a plane */
	IFLA_MPLANE_CONG_THRESHOLD,	/* u32: congestion score that deprioritises */
	IFLA_MPLANE_CONG_HALFLIFE_US,	/* u32: decay of the congestion score */
	IFLA_MPLANE_GSO_MODE,		/* u8: enum mplane_gso_mode */
	IFLA_MPLANE_PEERS,		/* nest of IFLA_MPLANE_PEER: probe targets */
	__IFLA_MPLANE_MAX,
};
#define IFLA_MPLANE_MAX (__IFLA_MPLANE_MAX - 1)

/* In IFLA_MPLANE_PEERS: one binary IPv4 (4 bytes) or IPv6 (16) address. */
#define IFLA_MPLANE_PEER		1

#define MPLANE_FLOWLET_GAP_US_DEFAULT	100
#define MPLANE_FLOWLET_GAP_US_MAX	1000000
#define MPLANE_PROBE_INTERVAL_US_DEFAULT 1000
#define MPLANE_PROBE_INTERVAL_US_MIN	50
#define MPLANE_PROBE_INTERVAL_US_MAX	1000000
#define MPLANE_PROBE_MISSES_DEFAULT	3
#define MPLANE_PROBE_MISSES_MAX		255
#define MPLANE_HOLDDOWN_MS_DEFAULT	50
#define MPLANE_HOLDDOWN_MS_MAX		60000
#define MPLANE_CONG_THRESHOLD_DEFAULT	64
#define MPLANE_CONG_THRESHOLD_MAX	1000000
#define MPLANE_CONG_HALFLIFE_US_DEFAULT	1000
#define MPLANE_CONG_HALFLIFE_US_MAX	10000000
#define MPLANE_PROBE_MISSES_MIN		1
#define MPLANE_MAX_PEERS		64

/*
 * Liveness probes between mplane devices: UDP to MPLANE_PROBE_PORT of a
 * peer's mplane address, sent on each plane; the peer's mplane device
 * answers on the plane the request came in on.  Fields are big-endian.
 */
#define MPLANE_PROBE_PORT		4792
#define MPLANE_PROBE_MAGIC		0x4d505052	/* "MPPR" */

enum {
	MPLANE_PROBE_REQUEST = 1,
	MPLANE_PROBE_REPLY = 2,
};

struct mplane_probe_hdr {
	__be32	magic;
	__u8	version;	/* 1 */
	__u8	type;		/* MPLANE_PROBE_REQUEST or _REPLY */
	__u8	plane;		/* the sender's plane index, echoed back */
	__u8	reserved;
	__be64	seq;
	__be64	sent_ns;	/* the requester's clock, echoed back */
};

/* How a GSO super-packet is spread (IFLA_MPLANE_GSO_MODE). */
enum mplane_gso_mode {
	MPLANE_GSO_WHOLE,	/* one plane choice per super-packet */
	MPLANE_GSO_SEGMENT,	/* segment in mp0, choose per segment */
	__MPLANE_GSO_MAX,
};

/*
 * IFLA_INFO_SLAVE_DATA of a rail enslaved to an mplane device.  WEIGHT and
 * ADMIN are settable (`mplanectl link plane RAIL weight 4 admin drain`);
 * the rest are read-only and rejected if sent.
 */
enum {
	IFLA_MPLANE_PLANE_UNSPEC,
	IFLA_MPLANE_PLANE_ID,		/* u32, read-only: plane index */
	IFLA_MPLANE_PLANE_STATE,	/* u8, read-only: enum mplane_plane_state */
	IFLA_MPLANE_PLANE_REASON,	/* u8, read-only: enum mplane_plane_reason */
	IFLA_MPLANE_PLANE_WEIGHT,	/* u32: capacity; 0 = the link speed */
	IFLA_MPLANE_PLANE_ADMIN,	/* u8: enum mplane_plane_admin */
	IFLA_MPLANE_PLANE_LOAD,		/* u32, read-only: current load score */
	IFLA_MPLANE_PLANE_CONG_SCORE,	/* u32, read-only: congestion score */
	IFLA_MPLANE_PLANE_STATS,	/* nest, read-only: IFLA_MPLANE_PSTAT_* */
	IFLA_MPLANE_PLANE_PAD,
	__IFLA_MPLANE_PLANE_MAX,
};
#define IFLA_MPLANE_PLANE_MAX (__IFLA_MPLANE_PLANE_MAX - 1)

#define MPLANE_WEIGHT_MAX		1000000

enum mplane_plane_admin {
	MPLANE_ADMIN_UP,
	MPLANE_ADMIN_DRAIN,	/* no new flowlets; running ones finish */
	MPLANE_ADMIN_DOWN,	/* carries nothing from the next packet on */
	__MPLANE_ADMIN_MAX,
};

/*
 * Per-plane counters, u64 each, in IFLA_MPLANE_PLANE_STATS and in the same
 * order in `ethtool -S mp0` (as planeN_NAME).  Append only.
 */
enum {
	IFLA_MPLANE_PSTAT_UNSPEC,
	IFLA_MPLANE_PSTAT_TX_PACKETS,
	IFLA_MPLANE_PSTAT_TX_BYTES,
	IFLA_MPLANE_PSTAT_RX_PACKETS,
	IFLA_MPLANE_PSTAT_RX_BYTES,
	IFLA_MPLANE_PSTAT_SELECTIONS,	/* new flowlet or per-packet choices */
	IFLA_MPLANE_PSTAT_DROP_NO_ROUTE,
	IFLA_MPLANE_PSTAT_DROP_XMIT,	/* the rail refused the packet */
	IFLA_MPLANE_PSTAT_STATE_CHANGES,
	IFLA_MPLANE_PSTAT_FAILOVERS,	/* times traffic was moved away */
	IFLA_MPLANE_PSTAT_ECN_CE,
	IFLA_MPLANE_PSTAT_CNP,
	IFLA_MPLANE_PSTAT_PROBES_SENT,
	IFLA_MPLANE_PSTAT_PROBES_LOST,
	IFLA_MPLANE_PSTAT_PAD,
	__IFLA_MPLANE_PSTAT_MAX,
};
#define IFLA_MPLANE_PSTAT_MAX (__IFLA_MPLANE_PSTAT_MAX - 1)

enum mplane_plane_state {
	MPLANE_PLANE_UP,
	MPLANE_PLANE_DOWN,
	MPLANE_PLANE_CONGESTED,
	MPLANE_PLANE_PROBING,
	MPLANE_PLANE_ADMIN_DOWN,
	__MPLANE_PLANE_STATE_MAX,
};

/* Why a plane is in its current state. */
enum mplane_plane_reason {
	MPLANE_REASON_NONE,
	MPLANE_REASON_CARRIER,		/* rail lost carrier or is down */
	MPLANE_REASON_HOLDDOWN,		/* carrier back, waiting hold-down */
	MPLANE_REASON_PROBE_MISS,	/* liveness probes missed */
	MPLANE_REASON_ECN,		/* congestion score over threshold */
	MPLANE_REASON_ADMIN,		/* drained or disabled by the operator */
	MPLANE_REASON_MASTER_DOWN,	/* the mplane device itself is down */
	__MPLANE_REASON_MAX,
};

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
	MPLANE_EV_RATE_UPDATE,		/* reserved for DCQCN rate control */
	MPLANE_EV_COLLECTIVE,		/* reserved for the collective engine */
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

/* A generic record: most events carry up to four values. */
struct mplane_event {
	struct mplane_event_hdr	hdr;
	__u64			val[4];
};

/*
 * Packet counters of the first BPF program (bpf/pktcount.bpf.c), one
 * per-CPU array slot per direction and protocol class.
 */
enum mplane_pktcount_dir {
	MPLANE_DIR_INGRESS,
	MPLANE_DIR_EGRESS,
	__MPLANE_DIR_MAX,
};

enum mplane_pktcount_class {
	MPLANE_PKT_IPV4,
	MPLANE_PKT_IPV6,
	MPLANE_PKT_ARP,
	MPLANE_PKT_OTHER,
	__MPLANE_PKT_CLASS_MAX,
};

#define MPLANE_PKTCOUNT_SLOTS	(__MPLANE_DIR_MAX * __MPLANE_PKT_CLASS_MAX)

struct mplane_pktcount {
	__u64	packets;
	__u64	bytes;
};

/*
 * How mp0 spreads packets over its eligible planes (IFLA_MPLANE_POLICY).
 * The load-aware policies compare each plane's load: queued bytes (qdisc
 * and BQL) plus a decaying rate estimate, scaled by the plane's capacity.
 */
enum mplane_policy {
	MPLANE_POLICY_FLOWLET,	/* least loaded, re-chosen after an idle gap */
	MPLANE_POLICY_HASH,	/* static flow hash: the ECMP baseline */
	MPLANE_POLICY_RR,	/* per-packet round robin: balance-rr baseline */
	MPLANE_POLICY_SPRAY,	/* per packet, least loaded, random tie-break */
	__MPLANE_POLICY_MAX,
};

#endif /* _UAPI_LINUX_MPLANE_H */
