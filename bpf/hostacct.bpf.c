// SPDX-License-Identifier: GPL-2.0
/*
 * hostacct: per-rail and per-QP accounting of RoCEv2 and ECN on a host's
 * rails, at tc ingress and egress, or at XDP for ingress.  It only
 * observes: every packet goes on untouched (TC_ACT_UNSPEC, XDP_PASS).
 *
 * Per rail and direction: a per-CPU hash of struct mplane_rail_acct.
 * Per destination QP: an LRU hash of struct mplane_qp_acct, shared by all
 * CPUs and so added to atomically.  Each CNP is also an MPLANE_EV_CNP
 * event on the mp_events ring (bpf/events.bpf.h).  What a full map does
 * not keep is counted in mp_hacct_limits (tools/include/
 * mp_hostacct_limits.h): the QPs made, from which the LRU's evictions
 * follow, and the packets of a rail the rail map had no room for.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <linux/mplane.h>
#include "mplane_events.h"
#include "mplane_maps.h"

#include "events.bpf.h"
#include "hostacct_parse.bpf.h"
#include "mp_hostacct_limits.h"

/* vmlinux.h carries types only, not the uapi macros. */
#define TC_ACT_UNSPEC	(-1)
#define XDP_PASS	2

#define HOSTACCT_RAILS	256
#define HOSTACCT_QPS	4096

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, HOSTACCT_RAILS);
	__type(key, struct mplane_rail_key);
	__type(value, struct mplane_rail_acct);
} mp_rail_acct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, HOSTACCT_QPS);
	__type(key, struct mplane_qp_key);
	__type(value, struct mplane_qp_acct);
} mp_qp_acct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mp_hostacct_limits);
} mp_hacct_limits SEC(".maps");

static __always_inline struct mp_hostacct_limits *limits(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&mp_hacct_limits, &zero);
}

static __always_inline struct mplane_rail_acct *rail(__u32 ifindex, __u32 dir)
{
	struct mplane_rail_key key = { .ifindex = ifindex, .dir = dir };
	static const struct mplane_rail_acct zero;
	struct mp_hostacct_limits *lim;
	struct mplane_rail_acct *a;
	long err;

	a = bpf_map_lookup_elem(&mp_rail_acct, &key);
	if (a)
		return a;
	/* NOEXIST: another CPU may have created the key meanwhile. */
	err = bpf_map_update_elem(&mp_rail_acct, &key, &zero, BPF_NOEXIST);
	a = bpf_map_lookup_elem(&mp_rail_acct, &key);
	if (!a && err) {
		lim = limits();
		if (lim)
			lim->rail_full++;
	}
	return a;
}

/* Plain increments: the copy is this CPU's, and the hooks do not nest. */
static __always_inline void count_rail(const struct hp_pkt *p, __u32 ifindex,
				       __u32 dir)
{
	struct mplane_rail_acct *a = rail(ifindex, dir);
	bool ce = p->ecn == INET_ECN_CE;

	if (!a)
		return;
	a->packets++;
	a->bytes += p->len;
	a->malformed += p->verdict == HP_MALFORMED;
	a->truncated += p->verdict == HP_TRUNCATED;
	if (p->ip) {
		a->ect += p->ecn == 1 || p->ecn == 2;
		a->ecn_ce += ce;
		a->udp_ce += ce && p->l4 == IPPROTO_UDP;
		a->tcp_ce += ce && p->l4 == IPPROTO_TCP;
	}
	if (!p->roce)
		return;
	a->roce_packets++;
	a->roce_bytes += p->len;
	a->roce_ce += ce;
	a->cnp += p->opcode == MPLANE_BTH_OPCODE_CNP;
}

static __always_inline void count_qp(const struct hp_pkt *p, __u32 ifindex,
				     __u32 dir)
{
	struct mplane_qp_key key = { .ifindex = ifindex, .qpn = p->qpn, .dir = dir };
	struct mp_hostacct_limits *lim = limits();
	struct mplane_qp_acct *q, init = {
		.packets = 1,
		.bytes = p->len,
		.ecn_ce = p->ecn == INET_ECN_CE,
		.cnp = p->opcode == MPLANE_BTH_OPCODE_CNP,
		.ack_req = p->ackreq,
		.last_psn = p->psn,
	};

	q = bpf_map_lookup_elem(&mp_qp_acct, &key);
	if (!q) {
		if (!bpf_map_update_elem(&mp_qp_acct, &key, &init, BPF_NOEXIST)) {
			if (lim)
				lim->qp_created++;
			return;
		}
		/* Lost the race to create it: add to the winner's. */
		q = bpf_map_lookup_elem(&mp_qp_acct, &key);
		if (!q) {
			if (lim)
				lim->qp_create_failed++;
			return;
		}
	}
	__sync_fetch_and_add(&q->packets, 1);
	__sync_fetch_and_add(&q->bytes, init.bytes);
	if (init.ecn_ce)
		__sync_fetch_and_add(&q->ecn_ce, 1);
	if (init.cnp)
		__sync_fetch_and_add(&q->cnp, 1);
	if (init.ack_req)
		__sync_fetch_and_add(&q->ack_req, 1);
	q->last_psn = init.last_psn;
}

static __always_inline void account(const struct hp_pkt *p, __u32 ifindex,
				    __u32 dir)
{
	count_rail(p, ifindex, dir);
	if (!p->roce)
		return;
	count_qp(p, ifindex, dir);
	if (p->opcode == MPLANE_BTH_OPCODE_CNP)
		mp_event_emit(MPLANE_EV_CNP, ifindex, MPLANE_EVENT_NO_PLANE,
			      p->qpn, dir, bpf_ntohl(p->saddr4), 0);
}

static __always_inline void tc_account(struct __sk_buff *skb, __u32 dir)
{
	struct hp_pkt p;

	/* At both tc hooks skb->len includes the link-layer header. */
	hp_parse(skb, skb->len, &p, false);
	account(&p, skb->ifindex, dir);
}

/*
 * TC_ACT_UNSPEC rather than TC_ACT_OK: with direct-action, TC_ACT_OK ends
 * classification and would hide the packet from other tools' filters.
 */
SEC("tc")
int mp_hacct_tc_in(struct __sk_buff *skb)
{
	tc_account(skb, MPLANE_DIR_INGRESS);
	return TC_ACT_UNSPEC;
}

SEC("tc")
int mp_hacct_tc_eg(struct __sk_buff *skb)
{
	tc_account(skb, MPLANE_DIR_EGRESS);
	return TC_ACT_UNSPEC;
}

/* XDP sees ingress only, before any skb exists: the cheapest place. */
SEC("xdp")
int mp_hacct_xdp(struct xdp_md *ctx)
{
	struct hp_pkt p;

	hp_parse(ctx, bpf_xdp_get_buff_len(ctx), &p, true);
	account(&p, ctx->ingress_ifindex, MPLANE_DIR_INGRESS);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
