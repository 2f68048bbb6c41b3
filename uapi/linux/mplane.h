/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * mplane: the kernel's ABI, what mplane.ko and user space agree on: the
 * rtnl attributes of a device and its planes, their states, the probe's
 * wire format and the RoCEv2 header its congestion control reads.
 * Numbers in this file are ABI: append, never renumber.  What only user
 * space and the BPF programs share (events, map layouts, the capture
 * file, the mark protocol) is in tools/include/.
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
	IFLA_MPLANE_SAMPLE_INTERVAL_US,	/* u32: mplane:plane_sample period, 0 = off */
	IFLA_MPLANE_CC,			/* nest of IFLA_MPLANE_CC_*: congestion control */
	IFLA_MPLANE_QPS,		/* nest of IFLA_MPLANE_QP, read-only */
	IFLA_MPLANE_REORDER_US,		/* u32: RoCEv2 resequencing window, 0 = off */
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
/* IFLA_MPLANE_SAMPLE_INTERVAL_US: 0 is off (the default); finer than
 * 10 us, the ticks alone would take most of a CPU.
 */
#define MPLANE_SAMPLE_INTERVAL_US_MIN	10
#define MPLANE_SAMPLE_INTERVAL_US_MAX	1000000
#define MPLANE_PROBE_MISSES_MIN		1
#define MPLANE_MAX_PEERS		64

/*
 * IFLA_MPLANE_REORDER_US: how long mp0 holds a RoCEv2 request that came
 * past a gap in its QP's PSNs, waiting for the packets before it, which
 * spraying sent over another plane.  Held packets go up in PSN order as
 * the gap fills; when the window ends first, or a QP holds
 * MPLANE_REORDER_DEPTH packets, they go up as they are and the receiver's
 * transport sees the gap.  0 (the default) is off.  mp0 plays the part
 * of an RDMA NIC that places packets out of order, for a transport (such
 * as rxe) that takes every reordering for a loss.
 */
#define MPLANE_REORDER_US_DEFAULT	0
#define MPLANE_REORDER_US_MAX		100000
#define MPLANE_REORDER_DEPTH		256	/* packets held a QP */
#define MPLANE_REORDER_HELD_MAX		4096	/* packets held a device */

/*
 * Liveness probes between mplane devices: UDP to MPLANE_PROBE_PORT of a
 * peer's mplane address, sent on each plane; the peer's mplane device
 * answers on the plane the request came in on.  Fields are big-endian.
 * A reply echoes the request whole; the requester takes it only when it
 * carries one of its recent sequence numbers with the nonce it sent for
 * that sequence and plane (a keyed hash only it can make), so that no
 * one off the path can bring a plane back with forged answers.
 */
#define MPLANE_PROBE_PORT		4792
#define MPLANE_PROBE_MAGIC		0x4d505052	/* "MPPR" */
#define MPLANE_PROBE_VERSION		2

enum {
	MPLANE_PROBE_REQUEST = 1,
	MPLANE_PROBE_REPLY = 2,
};

struct mplane_probe_hdr {
	__be32	magic;
	__u8	version;	/* MPLANE_PROBE_VERSION */
	__u8	type;		/* MPLANE_PROBE_REQUEST or _REPLY */
	__u8	plane;		/* the sender's plane index, echoed back */
	__u8	reserved;
	__be64	seq;
	__be64	sent_ns;	/* the requester's clock, echoed back */
	__be64	nonce;		/* the requester's, for this seq and plane */
};

/*
 * Endpoint congestion control (IFLA_MPLANE_CC): mp0 is the NIC, so it
 * runs DCQCN (Zhu et al., SIGCOMM 2015) for the RoCEv2 traffic it carries.
 *
 * Notification point: a RoCEv2 packet for mp0 that arrives with CE makes
 * mp0 send a CNP back to its sender, at most one per CNP_INTERVAL_US per
 * QP.  Reaction point: a CNP cuts the rate of the QP it names, and timers
 * and a byte counter raise it again; mp0 paces each limited QP by setting
 * skb->tstamp (EDT), which an fq qdisc on the rails honours.
 *
 * mp0 has no QP context, so a QP is named by what both ends see: the
 * peer's address and the destination QPN of the BTH.  A CNP carries the
 * destination QPN of the packet that was marked, and the sender looks up
 * the flow it sends to that peer's QP.  (A NIC's CNP names the sender's
 * own QP instead, which only the responder's QP context knows.)
 *
 * NOTIFY runs both points' CNPs and nothing more: CE is answered, and a
 * CNP is counted for its QP and weighs spray's choice of the plane it
 * came in on (as it does under DCQCN), but no QP's rate is cut or paced.
 * It is the plane balancer's congestion signal, for traffic whose
 * senders pace themselves.  The rate settings are kept, and unused.
 *
 * Rates are in kbit/s, times in microseconds, alpha and g in 1/1024ths,
 * all as ConnectX names and defaults them (rpg_*, dce_tcp_*); every value
 * is checked against its range and rejected with an extack message.
 */
enum mplane_cc {
	MPLANE_CC_OFF,
	MPLANE_CC_DCQCN,
	MPLANE_CC_NOTIFY,	/* CNPs only: no rate is cut or paced */
	__MPLANE_CC_MAX,
};

enum {
	IFLA_MPLANE_CC_UNSPEC,
	IFLA_MPLANE_CC_ALGO,		/* u8: enum mplane_cc */
	IFLA_MPLANE_CC_CNP_INTERVAL_US,	/* u32: NP, least gap between CNPs to a QP */
	IFLA_MPLANE_CC_RATE_MAX_KBPS,	/* u32: 0 = mp0's capacity (line rate) */
	IFLA_MPLANE_CC_RATE_MIN_KBPS,	/* u32: rpg_min_rate */
	IFLA_MPLANE_CC_RATE_AI_KBPS,	/* u32: rpg_ai_rate, additive increase */
	IFLA_MPLANE_CC_RATE_HAI_KBPS,	/* u32: rpg_hai_rate, hyper increase */
	IFLA_MPLANE_CC_TIME_RESET_US,	/* u32: rpg_time_reset, increase timer */
	IFLA_MPLANE_CC_BYTE_RESET,	/* u32: rpg_byte_reset, bytes a stage */
	IFLA_MPLANE_CC_THRESHOLD,	/* u32: rpg_threshold (F), stages */
	IFLA_MPLANE_CC_ALPHA_G,		/* u32: dce_tcp_g, 1 - g in 1/1024ths */
	IFLA_MPLANE_CC_ALPHA_PERIOD_US,	/* u32: dce_tcp_rtt, alpha update period */
	IFLA_MPLANE_CC_ALPHA_INITIAL,	/* u32: initial_alpha_value, 1/1024ths */
	IFLA_MPLANE_CC_REDUCE_PERIOD_US, /* u32: rate_reduce_monitor_period */
	IFLA_MPLANE_CC_MIN_DEC_FAC,	/* u32: rpg_min_dec_fac, % a cut keeps at least */
	IFLA_MPLANE_CC_QP_MAX,		/* u32: QPs tracked; more evict the idlest */
	IFLA_MPLANE_CC_QP_COUNT,	/* u32, read-only: entries in use */
	IFLA_MPLANE_CC_QP_EVICTIONS,	/* u64, read-only */
	IFLA_MPLANE_CC_CNP_UNKNOWN,	/* u64, read-only: CNPs for no known QP */
	IFLA_MPLANE_CC_BAD_BTH,		/* u64, read-only: RoCEv2 too short for a BTH */
	IFLA_MPLANE_CC_PAD,
	__IFLA_MPLANE_CC_MAX,
};

#define IFLA_MPLANE_CC_MAX (__IFLA_MPLANE_CC_MAX - 1)

#define MPLANE_CC_CNP_INTERVAL_US_DEFAULT	50
#define MPLANE_CC_CNP_INTERVAL_US_MAX		1000000
#define MPLANE_CC_RATE_MAX_KBPS_DEFAULT		0
#define MPLANE_CC_RATE_MIN_KBPS_DEFAULT		1000
#define MPLANE_CC_RATE_AI_KBPS_DEFAULT		5000
#define MPLANE_CC_RATE_HAI_KBPS_DEFAULT		50000
#define MPLANE_CC_RATE_KBPS_MIN			10
#define MPLANE_CC_RATE_KBPS_MAX			400000000	/* 400 Gbit/s */
#define MPLANE_CC_TIME_RESET_US_DEFAULT		300
#define MPLANE_CC_TIME_RESET_US_MIN		1
#define MPLANE_CC_TIME_RESET_US_MAX		10000000
#define MPLANE_CC_BYTE_RESET_DEFAULT		32767
#define MPLANE_CC_BYTE_RESET_MIN		64
#define MPLANE_CC_BYTE_RESET_MAX		1073741824	/* 1 GiB */
#define MPLANE_CC_THRESHOLD_DEFAULT		1
#define MPLANE_CC_THRESHOLD_MIN			1
#define MPLANE_CC_THRESHOLD_MAX			31
#define MPLANE_CC_ALPHA_G_DEFAULT		1019
#define MPLANE_CC_ALPHA_ONE			1024
#define MPLANE_CC_ALPHA_MAX			1023	/* alpha-g, alpha-initial */
#define MPLANE_CC_ALPHA_PERIOD_US_DEFAULT	1
#define MPLANE_CC_ALPHA_PERIOD_US_MIN		1
#define MPLANE_CC_ALPHA_PERIOD_US_MAX		131071
#define MPLANE_CC_ALPHA_INITIAL_MIN		1
#define MPLANE_CC_ALPHA_INITIAL_DEFAULT		1023
#define MPLANE_CC_REDUCE_PERIOD_US_DEFAULT	4
#define MPLANE_CC_REDUCE_PERIOD_US_MAX		10000000
#define MPLANE_CC_MIN_DEC_FAC_DEFAULT		50
#define MPLANE_CC_MIN_DEC_FAC_MAX		100
#define MPLANE_CC_QP_MAX_DEFAULT		1024
#define MPLANE_CC_QP_MAX_MIN			16
#define MPLANE_CC_QP_MAX_MAX			65536

/*
 * IFLA_MPLANE_QPS: the QPs that congestion control acts on now, each an
 * IFLA_MPLANE_QP nest of IFLA_MPLANE_QP_*, at most MPLANE_QPS_DUMP_MAX
 * of them: those mp0 sends to whose rate is limited (below the maximum),
 * with RATE, TARGET and ALPHA, and those mp0 receives from that it has
 * sent CNPs for, with CNP_TX and no rates.
 */
#define IFLA_MPLANE_QP			1
#define MPLANE_QPS_DUMP_MAX		64

enum {
	IFLA_MPLANE_QP_UNSPEC,
	IFLA_MPLANE_QP_PEER,		/* binary IPv4 (4 bytes) or IPv6 (16) */
	IFLA_MPLANE_QP_QPN,		/* u32: the peer's destination QPN */
	IFLA_MPLANE_QP_RATE_KBPS,	/* u32: current rate (Rc) */
	IFLA_MPLANE_QP_TARGET_KBPS,	/* u32: target rate (Rt) */
	IFLA_MPLANE_QP_ALPHA,		/* u32: alpha, 1/1024ths */
	IFLA_MPLANE_QP_CNP_RX,		/* u64: CNPs received for it */
	IFLA_MPLANE_QP_CNP_TX,		/* u64: CNPs sent for CE on it */
	IFLA_MPLANE_QP_RATE_CUTS,	/* u64 */
	IFLA_MPLANE_QP_TX_BYTES,	/* u64: bytes sent while tracked */
	IFLA_MPLANE_QP_PAD,
	__IFLA_MPLANE_QP_MAX,
};

#define IFLA_MPLANE_QP_MAX (__IFLA_MPLANE_QP_MAX - 1)

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
	IFLA_MPLANE_PSTAT_CNP_SENT,	/* CNPs mp0 sent for CE it received */
	IFLA_MPLANE_PSTAT_RATE_CUTS,	/* QP rates cut by CNPs received here */
	/* replies without our nonce and a recent sequence */
	IFLA_MPLANE_PSTAT_PROBES_REFUSED,
	/* requests over the reply budget, not answered */
	IFLA_MPLANE_PSTAT_PROBES_THROTTLED,
	/* RoCEv2 resequencing (IFLA_MPLANE_REORDER_US), by arrival plane: */
	IFLA_MPLANE_PSTAT_REORDER_HELD,	/* came past a gap, held */
	IFLA_MPLANE_PSTAT_REORDER_FILLED, /* filled a gap in time */
	/* gaps given up: the window ended (counted on the first held one's plane) */
	IFLA_MPLANE_PSTAT_REORDER_EXPIRED,
	/* gaps given up: a QP's or the device's hold was full */
	IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS,
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
 * RoCEv2 on the wire: UDP to port 4791 with an InfiniBand base transport
 * header (BTH).  A CNP is BTH opcode 0x81.  mplane.ko reads and writes
 * them for congestion control (kmod/cc.c, receive.c, udp_out.c), and the
 * BPF programs and mplanectl parse them too (bpf/hostacct.bpf.c, traffic).
 */
#define MPLANE_ROCEV2_PORT	4791
#define MPLANE_BTH_OPCODE_CNP	0x81

struct mplane_bth {
	__u8	opcode;
	__u8	flags;		/* SE, M, pad count, transport version */
	__be16	pkey;
	__be32	dqpn;		/* reserved byte, then the 24-bit QP number */
	__be32	psn;		/* ack-request bit, reserved bits, 24-bit PSN */
};

#define MPLANE_BTH_QPN_MASK	0x00ffffff
#define MPLANE_BTH_PSN_MASK	0x00ffffff
#define MPLANE_BTH_ACKREQ	0x80000000

enum mplane_rate_cause {
	MPLANE_RATE_CUT,		/* a CNP */
	MPLANE_RATE_FAST_RECOVERY,	/* Rc halfway to Rt */
	MPLANE_RATE_ADDITIVE,		/* Rt + AI */
	MPLANE_RATE_HYPER,		/* Rt + i * HAI */
	__MPLANE_RATE_CAUSE_MAX,
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
