/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mplane_maps.h: the layouts of the BPF programs' maps and where they
 * are pinned, shared by the programs (bpf/) and mplanectl, which loads,
 * fills and reads them.  Not kernel ABI.
 */
#ifndef MPLANE_MAPS_H
#define MPLANE_MAPS_H

#include <linux/mplane.h>

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

/* How a switch port decides to mark ECN-capable packets CE. */
enum mplane_aqm {
	MPLANE_AQM_RED,		/* by the queue's length, kmin to kmax */
	MPLANE_AQM_PI,		/* by its delay, held at a target */
	__MPLANE_AQM_MAX,
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

#endif /* MPLANE_MAPS_H */
