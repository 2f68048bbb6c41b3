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
	IFLA_MPLANE_SAMPLE_INTERVAL_US,	/* u32: mplane:plane_sample period, 0 = off */
	IFLA_MPLANE_CC,			/* nest of IFLA_MPLANE_CC_*: congestion control */
	IFLA_MPLANE_QPS,		/* nest of IFLA_MPLANE_QP, read-only */
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
 * 10 us, the ticks alone would take most of a CPU. */
#define MPLANE_SAMPLE_INTERVAL_US_MIN	10
#define MPLANE_SAMPLE_INTERVAL_US_MAX	1000000
#define MPLANE_PROBE_MISSES_MIN		1
#define MPLANE_MAX_PEERS		64

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
 * Rates are in kbit/s, times in microseconds, alpha and g in 1/1024ths,
 * all as ConnectX names and defaults them (rpg_*, dce_tcp_*); every value
 * is checked against its range and rejected with an extack message.
 */
enum mplane_cc {
	MPLANE_CC_OFF,
	MPLANE_CC_DCQCN,
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
	IFLA_MPLANE_PSTAT_PROBES_REFUSED,	/* replies without our nonce
						 * and a recent sequence */
	IFLA_MPLANE_PSTAT_PROBES_THROTTLED,	/* requests over the reply
						 * budget, not answered */
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
 * BPF fabric: the switch side (bpf/ar.bpf.c, on the tc hooks of every port
 * of a leaf or spine) and the host side (bpf/hostacct.bpf.c, on rails).
 * Maps are pinned under MPLANE_BPF_PIN_ROOT/<fabric or device>/.
 */
#define MPLANE_BPF_PIN_ROOT	"/sys/fs/bpf/mplane"

/* How a switch port picks among the next hops of a route. */
enum mplane_ar_policy {
	MPLANE_AR_ECMP,		/* leave it to the kernel's multipath hash */
	MPLANE_AR_AR,		/* per packet: the emptiest virtual queue */
	MPLANE_AR_FLOWLET,	/* the same, re-chosen after an idle gap */
	__MPLANE_AR_MAX,
};

/* One next hop of a route: the egress port and the MACs to write. */
#define MPLANE_NH_MAX		8
struct mplane_nh {
	__u32	ifindex;
	__u8	dmac[6];
	__u8	smac[6];
};

/* Value of the LPM maps: the next hops of one route, filled by the loader
 * from the kernel's own routes and neighbours. */
struct mplane_nh_group {
	__u32	count;
	__u32	flags;
	struct mplane_nh nh[MPLANE_NH_MAX];
};

/* LPM keys; addresses in network byte order. */
struct mplane_lpm4_key {
	__u32	prefixlen;
	__u32	addr;
};

struct mplane_lpm6_key {
	__u32	prefixlen;
	__u8	addr[16];
};

/* Per egress port, set by the loader: the emulated link's rate. */
struct mplane_port_cfg {
	__u64	rate_bps;	/* bits per second of the real (shaped) link */
	__u32	up;		/* 0 when the port is down: no packet goes to it */
	__u32	limit_bytes;	/* the real queue's limit (tail drop); 0: none */
};

/*
 * Virtual output queue of one egress port: q = max(0, q + len - rate * dt),
 * plus a DRE (bytes sent, decayed by half every MPLANE_VQ_DRE_HALFLIFE_NS).
 */
struct mplane_vq {
	__u64	q_bytes;
	__u64	last_ns;
	__u64	dre_bytes;
	__u64	hwm_bytes;	/* the highest q_bytes seen */
};

#define MPLANE_VQ_DRE_HALFLIFE_NS	(64 * 1000ULL)

/* Per egress port counters, one copy per CPU. */
struct mplane_port_stats {
	__u64	tx_packets;
	__u64	tx_bytes;
	__u64	ect;		/* ECN-capable packets seen */
	__u64	not_ect;	/* not ECN-capable: never marked */
	__u64	ce_marked;	/* marked CE here */
	__u64	ce_seen;	/* arrived already CE */
	__u64	ar_forwarded;	/* sent here by ar/flowlet, not the kernel */
	__u64	path_switches;	/* flowlets moved to this port */
	__u64	ttl_expired;	/* left to the kernel for ICMP time exceeded */
	__u64	no_route;	/* left to the kernel: no LPM entry */
	__u64	down_skipped;	/* next hops skipped because they were down */
	__u64	not_forwarded;	/* left to the kernel: multicast, broadcast,
				 * link-local, loopback, or the switch's own */
	__u64	mtu_exceeded;	/* left to the kernel: over the egress MTU */
};

/*
 * Host accounting (bpf/hostacct.bpf.c): RoCEv2 is UDP to port 4791 with an
 * InfiniBand base transport header (BTH).  A CNP is BTH opcode 0x81.
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

/* Key of the per-rail counters: the rail's ifindex and the direction. */
struct mplane_rail_key {
	__u32	ifindex;
	__u32	dir;		/* enum mplane_pktcount_dir */
};

/* Per rail and direction, one copy per CPU. */
struct mplane_rail_acct {
	__u64	packets;
	__u64	bytes;
	__u64	ect;		/* IP packets with ECT(0) or ECT(1) */
	__u64	ecn_ce;		/* IP packets with CE, any protocol */
	__u64	udp_ce;
	__u64	tcp_ce;
	__u64	roce_packets;
	__u64	roce_bytes;
	__u64	roce_ce;
	__u64	cnp;		/* CNPs: received at ingress, sent at egress */
	__u64	malformed;	/* headers that do not parse: passed, uncounted */
	__u64	truncated;	/* headers cut short by the packet's end */
};

struct mplane_qp_key {
	__u32	ifindex;
	__u32	qpn;		/* destination QP of the BTH */
	__u32	dir;		/* enum mplane_pktcount_dir */
};

struct mplane_qp_acct {
	__u64	packets;
	__u64	bytes;
	__u64	ecn_ce;
	__u64	cnp;
	__u64	ack_req;
	__u32	last_psn;
	__u32	pad;
};

/* Every producer of events counts, per CPU, what it tried and what the
 * full ring refused; reserved + dropped = produced. */
struct mplane_event_stats {
	__u64	produced;
	__u64	dropped;
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
enum mplane_rate_cause {
	MPLANE_RATE_CUT,		/* a CNP */
	MPLANE_RATE_FAST_RECOVERY,	/* Rc halfway to Rt */
	MPLANE_RATE_ADDITIVE,		/* Rt + AI */
	MPLANE_RATE_HYPER,		/* Rt + i * HAI */
	__MPLANE_RATE_CAUSE_MAX,
};

enum mplane_counter_kind {
	MPLANE_COUNTER_NETDEV,		/* rtnetlink link statistics */
	MPLANE_COUNTER_ETHTOOL,		/* ethtool -S */
	MPLANE_COUNTER_RDMA,		/* /sys/class/infiniband hw_counters */
	__MPLANE_COUNTER_MAX,
};

/*
 * Telemetry capture files ('mplanectl telemetry record -o FILE'): one
 * struct mplane_capture_hdr, then frames, each a struct
 * mplane_capture_frame and @len bytes of payload padded to 8 bytes.
 * Readers skip frame kinds they do not know.  All integers are in the
 * byte order of the host that recorded.
 */
#define MPLANE_CAPTURE_MAGIC	0x5043504d	/* "MPCP" */
#define MPLANE_CAPTURE_VERSION	1

struct mplane_capture_hdr {
	__u32	magic;
	__u16	version;
	__u16	hdr_len;	/* bytes of this header */
	__u64	start_mono_ns;	/* CLOCK_MONOTONIC when recording began */
	__u64	start_real_ns;	/* CLOCK_REALTIME at the same moment */
	char	host[64];	/* uname nodename */
};

enum mplane_capture_frame_kind {
	MPLANE_CF_NONE,
	MPLANE_CF_EVENT,	/* one event record, as its producer wrote it */
	MPLANE_CF_SOURCE,	/* the source's label, NUL-terminated */
	MPLANE_CF_IFNAME,	/* struct mplane_capture_ifname */
	MPLANE_CF_COUNTER_NAME,	/* struct mplane_capture_counter_name */
	MPLANE_CF_STATS,	/* struct mplane_capture_stats, at the end */
	MPLANE_CF_NETNS,	/* struct mplane_capture_netns */
	__MPLANE_CF_MAX,
};

struct mplane_capture_frame {
	__u32	len;		/* payload bytes, before padding */
	__u16	kind;		/* enum mplane_capture_frame_kind */
	__u16	source;		/* which ring or poller; named by CF_SOURCE */
};

/*
 * The name of an interface of a source.  @netns was added later: a
 * payload of 20 bytes (without it) means netns 0.
 */
struct mplane_capture_ifname {
	__u32	ifindex;
	char	name[16];
	__u32	netns;		/* its namespace's inode; 0: the source's */
};

/*
 * A network namespace the source's events may name (in hdr.flags of the
 * kmod relay's events, in CF_IFNAME's netns): its inode and its name
 * under /run/netns, "" for the recorder's own namespace.
 */
struct mplane_capture_netns {
	__u32	inode;
	char	name[];		/* NUL-terminated */
};

/* The name of a polled counter: "rail0/tx_bytes", "rxe0/1/rcvd_pkts". */
struct mplane_capture_counter_name {
	__u32	id;		/* as in the COUNTER events' hdr.flags */
	__u32	kind;		/* enum mplane_counter_kind */
	__u32	ifindex;	/* 0 when not a network device */
	char	name[];		/* NUL-terminated */
};

/*
 * What one source did while recording: produced and dropped are the
 * producers' own counts (struct mplane_event_stats, after minus before),
 * recorded what reached the file.  A lossless capture has dropped 0, and
 * produced == recorded + dropped exactly when the producers were quiet at
 * the start and the end; in_flight is recorded - (produced - dropped)
 * when records produced outside the window were recorded, else 0.
 */
struct mplane_capture_stats {
	__u64	produced;
	__u64	dropped;
	__u64	recorded;
	__u64	in_flight;
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

/*
 * Step markers.  A program stamps its steps into the event stream either
 * as root ('mplanectl mark step N') or, unprivileged, by sending one
 * struct mplane_mark_msg datagram to the Unix socket of 'mplanectl mark
 * serve' (MPLANE_MARK_SOCKET by default).
 */
#define MPLANE_MARK_SOCKET	"/run/mplane/mark.sock"
#define MPLANE_MARK_MAGIC	0x4d504d4b	/* "MPMK" */
#define MPLANE_MARK_VERSION	1

enum mplane_mark_kind {
	MPLANE_MARK_STEP,	/* a step begins */
	MPLANE_MARK_STEP_END,	/* a step ends */
	MPLANE_MARK_USER,	/* anything else the application marks */
	__MPLANE_MARK_MAX,
};

struct mplane_mark_msg {
	__u32	magic;		/* MPLANE_MARK_MAGIC */
	__u16	version;	/* MPLANE_MARK_VERSION */
	__u16	kind;		/* enum mplane_mark_kind */
	__u64	step;
	__u64	app_ts_ns;	/* CLOCK_MONOTONIC at the mark, or 0 */
};

/* The argument of the marks program (bpf/marks.bpf.c). */
struct mplane_mark_args {
	__u64	step;
	__u64	app_ts_ns;
	__u32	pid;
	__u32	kind;
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
