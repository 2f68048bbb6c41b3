// SPDX-License-Identifier: GPL-2.0
/*
 * ar: adaptive routing for the L3 switches of an mplane fabric, on the tc
 * hooks of every switch port.  One object per switch; its maps are shared
 * by all the switch's ports.
 *
 * Ingress routes: the destination's longest prefix gives the next hops of
 * the kernel's own route (the loader copies them in), and the policy picks
 * one of them:
 *   ecmp     hand the packet to the kernel, whose multipath hash decides;
 *   ar       per packet, the up member with the emptiest virtual queue;
 *   flowlet  the same choice, but kept while the flow's packets arrive
 *            closer together than flowlet_gap_ns.
 * A chosen packet is forwarded as a router would (TTL or hop limit down,
 * IPv4 checksum fixed, MACs rewritten) and redirected to the egress port.
 * Anything unusual (no route, TTL expiring, options we do not parse) goes
 * to the kernel, which knows how to answer it; so does what a router must
 * not forward, or must answer itself: multicast, broadcast, link-local
 * and loopback destinations, the switch's own addresses (the loader puts
 * them in the tries with no members), and a packet over the egress
 * port's MTU, for which the kernel sends the ICMP error a sender's path
 * MTU discovery waits for (bpf_redirect() would drop it unsaid).
 *
 * Egress models each port's queue, whoever chose the port (us or the
 * kernel): q = max(0, q + len - rate * dt) with the rate of the shaped
 * link behind it, and marks ECT packets CE with a RED profile on q.
 *
 * A bpf_timer samples every port's queue and counters at a fixed
 * interval, traffic or not (the sampler, at the end of the file).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "events.bpf.h"
#include "mp_ar_flow.h"
#include "mplane_events.h"
#include "mplane_maps.h"
#include "mp_ar_vq.h"

/* vmlinux.h carries types only, not the uapi macros. */
#define TC_ACT_UNSPEC	(-1)
#define TC_ACT_SHOT	2
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_ALEN	6
#define INET_ECN_MASK	3
#define INET_ECN_CE	3
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define MP_PROB_ONE	MP_PI_ONE	/* RED's and PI's unit alike */
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))

const volatile __u32 policy = MPLANE_AR_AR;
const volatile __u64 flowlet_gap_ns = 50 * 1000;
/* RED on the virtual queue: no marks below kmin, probability rising to
 * pmax (of 65536) at kmax, every ECT packet marked above it. */
const volatile __u32 kmin_bytes = 20 * 1024;
const volatile __u32 kmax_bytes = 200 * 1024;
const volatile __u32 pmax = MP_PROB_ONE / 5;
/* Or PI on the queue's delay (MPLANE_AQM_PI, tools/include/mp_aqm_pi.h):
 * the probability moved once per pi_period_ns toward holding the queue
 * at pi_target_ns of the link's time. */
const volatile __u32 aqm = MPLANE_AQM_RED;
const volatile __u64 pi_target_ns = 15 * 1000 * 1000;
const volatile __u64 pi_period_ns = 15 * 1000 * 1000;
const volatile __u32 pi_alpha_mhz = 125;
const volatile __u32 pi_beta_mhz = 1250;
/* A queue sample every this many packets per port, and at least one per
 * sample_ns while the port sends; 0 disables that trigger. */
const volatile __u32 sample_every = 0;
const volatile __u64 sample_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct mplane_lpm4_key);
	__type(value, struct mplane_nh_group);
} mp_lpm4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct mplane_lpm6_key);
	__type(value, struct mplane_nh_group);
} mp_lpm6 SEC(".maps");

/* Keyed by ifindex: the loader adds one entry per port. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct mplane_port_cfg);
} mp_port_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct vq_entry);
} mp_vq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct mplane_port_stats);
} mp_port_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct flow_entry);
} mp_flows SEC(".maps");

/* What the ingress parser hands the forwarder. */
struct route_req {
	struct ethhdr *eth;
	struct iphdr *ip4;
	struct ipv6hdr *ip6;
	const struct mplane_nh_group *group;
	bool v6;	/* the verifier tracks a flag better than a NULL */
};

static __always_inline struct mplane_port_stats *port_stats(__u32 ifindex)
{
	struct mplane_port_stats zero = {}, *st;

	st = bpf_map_lookup_elem(&mp_port_stats, &ifindex);
	if (st)
		return st;
	bpf_map_update_elem(&mp_port_stats, &ifindex, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&mp_port_stats, &ifindex);
}

/* Bytes a link of @rate_bps sends in @dt_ns; exact to 1 kbit/s, and no
 * overflow for rates up to 10 Tbit/s over a second. */
static __always_inline __u64 drained_bytes(__u64 rate_bps, __u64 dt_ns)
{
	if (dt_ns > 1000000000ULL)
		dt_ns = 1000000000ULL;
	return (rate_bps / 1000) * dt_ns / 8000000;
}

/* The queue @q, as it was at @last_ns, drained by the link up to @now:
 * the one drain rule of the model, for egress, the choice and the
 * sampler alike. */
static __always_inline __u64 vq_drain(__u64 q, __u64 last, __u64 rate_bps,
				      __u64 now)
{
	__u64 drained = now > last ? drained_bytes(rate_bps, now - last) : 0;

	return q > drained ? q - drained : 0;
}

/* The level of @e at @now, without taking the lock: a stale read only
 * makes a choice or a sample a little less exact. */
static __always_inline __u64 vq_level(const struct vq_entry *e,
				      const struct mplane_port_cfg *cfg,
				      __u64 now)
{
	return vq_drain(READ_ONCE(e->vq.q_bytes), READ_ONCE(e->vq.last_ns),
			cfg->rate_bps, now);
}

/* The queue a packet would find now. */
static __always_inline __u64 vq_now(__u32 ifindex, __u64 now)
{
	struct mplane_port_cfg *cfg;
	struct vq_entry *e;

	e = bpf_map_lookup_elem(&mp_vq, &ifindex);
	cfg = bpf_map_lookup_elem(&mp_port_cfg, &ifindex);
	if (!e || !cfg)
		return 0;
	return vq_level(e, cfg, now);
}

static __always_inline bool port_up(__u32 ifindex)
{
	struct mplane_port_cfg *cfg = bpf_map_lookup_elem(&mp_port_cfg,
							  &ifindex);

	return cfg && cfg->up;
}

/*
 * The up member with the emptiest queue; ties are broken at random, so
 * that an idle fabric still spreads a flow packet by packet.  A global
 * function, which the verifier checks once on its own: inlined, its
 * eight-way loop was walked again on every path into it, and the ingress
 * program took 259k verified instructions (two seconds per switch to
 * load under TCG).
 */
__noinline int pick_emptiest(const struct mplane_nh_group *g,
			     __u32 in_ifindex, __u64 now)
{
	__u64 best_q = ~0ULL, q;
	__u32 ties = 0, i, count;
	int best = -1;

	if (!g)
		return -1;
	count = g->count;
	if (count > MPLANE_NH_MAX)
		count = MPLANE_NH_MAX;
	for (i = 0; i < MPLANE_NH_MAX; i++) {
		if (i >= count)
			break;
		if (!port_up(g->nh[i].ifindex)) {
			struct mplane_port_stats *st = port_stats(in_ifindex);

			if (st)
				st->down_skipped++;
			continue;
		}
		q = vq_now(g->nh[i].ifindex, now);
		if (q < best_q) {
			best_q = q;
			best = i;
			ties = 1;
		} else if (q == best_q) {
			/* Reservoir sampling keeps every tied member
			 * equally likely. */
			ties++;
			if (bpf_get_prandom_u32() % ties == 0)
				best = i;
		}
	}
	return best;
}

static __always_inline int member_index(const struct mplane_nh_group *g,
					__u32 ifindex)
{
	__u32 i;

	for (i = 0; i < MPLANE_NH_MAX; i++) {
		if (i >= g->count)
			break;
		if (g->nh[i].ifindex == ifindex)
			return i;
	}
	return -1;
}

/*
 * Choose the member for this packet and remember it for the flow.  A
 * flowlet keeps its port while its gap stays under flowlet_gap_ns and the
 * port stays up; ar chooses afresh every packet.
 */
static __always_inline int choose(struct __sk_buff *skb,
				  const struct mplane_nh_group *g, __u64 now)
{
	__u32 hash = bpf_get_hash_recalc(skb);
	struct flow_entry *f, nf = {};
	__u32 old = 0, new;
	int idx;

	f = bpf_map_lookup_elem(&mp_flows, &hash);
	if (f) {
		old = f->ifindex;
		/*
		 * Signed: another CPU may have stamped the flow after this
		 * packet read the clock, and that is a live flowlet, not one
		 * idle for 2^64 ns.
		 */
		if (policy == MPLANE_AR_FLOWLET &&
		    (__s64)(now - f->last_ns) < (__s64)flowlet_gap_ns) {
			/* One walk of the group: the member, if still up. */
			idx = member_index(g, old);
			if (idx >= 0 && port_up(old)) {
				f->last_ns = now;
				return idx;
			}
		}
	}
	idx = pick_emptiest(g, skb->ifindex, now);
	if (idx < 0 || idx >= MPLANE_NH_MAX)
		return -1;
	new = g->nh[idx].ifindex;
	if (f) {
		f->last_ns = now;
		f->ifindex = new;
	} else {
		nf.last_ns = now;
		nf.ifindex = new;
		bpf_map_update_elem(&mp_flows, &hash, &nf, BPF_ANY);
	}
	if (old && old != new) {
		struct mplane_port_stats *st = port_stats(new);

		if (st)
			st->path_switches++;
		mp_event_emit(policy == MPLANE_AR_FLOWLET ?
			      MPLANE_EV_FLOWLET_SWITCH : MPLANE_EV_PATH_SWITCH,
			      new, MPLANE_EVENT_NO_PLANE, old, new, hash,
			      vq_now(new, now));
	}
	return idx;
}

/* The TTL sits in the same 16-bit word as the protocol. */
static __always_inline void ttl_dec4(struct iphdr *ip4)
{
	__u32 check = ip4->check;

	check += bpf_htons(0x0100);
	ip4->check = (__u16)(check + (check >= 0xFFFF));
	ip4->ttl--;
}

/*
 * Whether the packet fits the egress port's MTU.  An ifindex the kernel
 * does not know (a test's made-up member) cannot be checked: the
 * redirect itself fails there.
 */
static __always_inline bool fits_mtu(struct __sk_buff *skb, __u32 ifindex)
{
	__u32 mtu_len = 0;

	return bpf_check_mtu(skb, ifindex, &mtu_len, 0, 0) !=
	       BPF_MTU_CHK_RET_FRAG_NEEDED;
}

static __always_inline int forward(struct __sk_buff *skb,
				   struct route_req *r, __u64 now)
{
	const struct mplane_nh *nh;
	struct mplane_port_stats *st;
	int idx;

	idx = choose(skb, r->group, now);
	if (idx < 0 || idx >= MPLANE_NH_MAX)
		return TC_ACT_UNSPEC;	/* every member down: the kernel's */
	nh = &r->group->nh[idx];
	if (!fits_mtu(skb, nh->ifindex)) {
		st = port_stats(skb->ifindex);
		if (st)
			st->mtu_exceeded++;
		return TC_ACT_UNSPEC;
	}
	if (r->v6)
		r->ip6->hop_limit--;
	else
		ttl_dec4(r->ip4);
	__builtin_memcpy(r->eth->h_dest, nh->dmac, ETH_ALEN);
	__builtin_memcpy(r->eth->h_source, nh->smac, ETH_ALEN);
	st = port_stats(nh->ifindex);
	if (st)
		st->ar_forwarded++;
	return bpf_redirect(nh->ifindex, 0);
}

enum not_ours { NO_ROUTE = 1, TTL_EXPIRED, NOT_FORWARDED };

static __always_inline void count_in(__u32 ifindex, int why)
{
	struct mplane_port_stats *st = port_stats(ifindex);

	if (!st)
		return;
	if (why == TTL_EXPIRED)
		st->ttl_expired++;
	else if (why == NOT_FORWARDED)
		st->not_forwarded++;
	else
		st->no_route++;
}

/* 224/4 multicast, 255.255.255.255, 169.254/16, 127/8 and 0/8. */
static __always_inline bool special4(__be32 daddr)
{
	__u32 a = bpf_ntohl(daddr);

	return (a >> 28) == 0xe || a == 0xffffffff ||
	       (a >> 16) == 0xa9fe || (a >> 24) == 127 || (a >> 24) == 0;
}

/* ff00::/8 multicast, fe80::/10 link-local, :: and ::1. */
static __always_inline bool special6(const struct in6_addr *a)
{
	const __u32 *w = a->in6_u.u6_addr32;

	if (a->in6_u.u6_addr8[0] == 0xff ||
	    (a->in6_u.u6_addr8[0] == 0xfe &&
	     (a->in6_u.u6_addr8[1] & 0xc0) == 0x80))
		return true;
	return !w[0] && !w[1] && !w[2] &&
	       (!w[3] || w[3] == bpf_htonl(1));
}

/* What the trie gave: ours to route (0), or why it is the kernel's. */
static __always_inline int lookup_verdict(const struct mplane_nh_group *g,
					  __u8 ttl)
{
	if (!g)
		return NO_ROUTE;
	if (!g->count)
		return NOT_FORWARDED;	/* the switch's own address */
	return ttl <= 1 ? TTL_EXPIRED : 0;
}

/* Parse up to the IP header; 0 when the packet is ours to route, else
 * why not (enum not_ours), or -1 when it is not IP as we route it. */
static __always_inline int parse(struct __sk_buff *skb, struct route_req *r)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct mplane_lpm4_key k4;
	struct mplane_lpm6_key k6;

	r->eth = data;
	if ((void *)(r->eth + 1) > end)
		return -1;
	if (r->eth->h_proto == bpf_htons(ETH_P_IP)) {
		r->ip4 = (void *)(r->eth + 1);
		if ((void *)(r->ip4 + 1) > end || r->ip4->version != 4 ||
		    r->ip4->ihl != 5)
			return -1;
		if (special4(r->ip4->daddr))
			return NOT_FORWARDED;
		k4.prefixlen = 32;
		k4.addr = r->ip4->daddr;
		r->group = bpf_map_lookup_elem(&mp_lpm4, &k4);
		return lookup_verdict(r->group, r->ip4->ttl);
	}
	if (r->eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		r->ip6 = (void *)(r->eth + 1);
		r->v6 = true;
		if ((void *)(r->ip6 + 1) > end || r->ip6->version != 6)
			return -1;
		if (special6(&r->ip6->daddr))
			return NOT_FORWARDED;
		k6.prefixlen = 128;
		__builtin_memcpy(k6.addr, &r->ip6->daddr, sizeof(k6.addr));
		r->group = bpf_map_lookup_elem(&mp_lpm6, &k6);
		return lookup_verdict(r->group, r->ip6->hop_limit);
	}
	return -1;
}

SEC("tc")
int mp_ar_ingress(struct __sk_buff *skb)
{
	struct route_req r = {};
	int ret;

	if (policy == MPLANE_AR_ECMP)
		return TC_ACT_UNSPEC;
	ret = parse(skb, &r);
	if (ret < 0)
		return TC_ACT_UNSPEC;
	if (ret > 0) {
		count_in(skb->ifindex, ret);
		return TC_ACT_UNSPEC;
	}
	return forward(skb, &r, bpf_ktime_get_ns());
}

/* Halve @v once per MPLANE_VQ_DRE_HALFLIFE_NS elapsed. */
static __always_inline __u64 dre_decay(__u64 v, __u64 dt_ns)
{
	__u64 halvings = dt_ns / MPLANE_VQ_DRE_HALFLIFE_NS;

	return halvings >= 64 ? 0 : v >> halvings;
}

/* RED: the probability (of 65536) of marking at queue @q. */
static __always_inline __u32 mark_prob(__u64 q)
{
	if (q <= kmin_bytes)
		return 0;
	if (q >= kmax_bytes || kmax_bytes <= kmin_bytes)
		return MP_PROB_ONE;
	return (__u64)pmax * (q - kmin_bytes) / (kmax_bytes - kmin_bytes);
}

/* The time the link of @rate_bps takes to send @q bytes. */
static __always_inline __u64 queue_delay_ns(__u64 q, __u64 rate_bps)
{
	__u64 kbps = rate_bps / 1000;

	return kbps ? q * 8000000 / kbps : 0;
}

/* What the egress side learned from one packet's pass through the vq. */
struct vq_result {
	__u64 q;
	__u64 dre;
	__u64 hwm;
	__u32 pi_prob;	/* --aqm pi's, of MP_PROB_ONE */
	bool sample;
};

/* PI's marking probability for a packet that finds the queue at @q,
 * moved first if a period has ended.  Under the queue's lock. */
static __always_inline __u32 vq_pi_prob(struct vq_entry *e,
					const struct mplane_port_cfg *cfg,
					__u64 q, __u64 now)
{
	struct mp_pi_params pp;
	__u64 delay;

	pp.target_ns = pi_target_ns;
	pp.alpha_mhz = pi_alpha_mhz;
	pp.beta_mhz = pi_beta_mhz;
	delay = queue_delay_ns(q, cfg->rate_bps);
	if ((__s64)(now - e->pi.last_ns) >= (__s64)pi_period_ns) {
		e->pi.prob = mp_pi_step(&pp, e->pi.prob, delay,
					e->pi.delay_old_us * 1000ULL);
		e->pi.delay_old_us = mp_pi_clamp(delay) / 1000;
		e->pi.last_ns = now;
	}
	return mp_pi_may_mark(&pp, delay) ? e->pi.prob : 0;
}

/*
 * A packet that would overflow the real queue's limit is one the real
 * queue drops: the model leaves it out too, or it would grow without
 * bound under overload while the real queue stays at its limit.
 */
static __always_inline void vq_enqueue(struct vq_entry *e,
				       const struct mplane_port_cfg *cfg,
				       __u32 len, __u64 now,
				       struct vq_result *res)
{
	__u64 dt;

	bpf_spin_lock(&e->lock);
	dt = now > e->vq.last_ns ? now - e->vq.last_ns : 0;
	e->vq.q_bytes = vq_drain(e->vq.q_bytes, e->vq.last_ns, cfg->rate_bps,
				 now);
	if (!cfg->limit_bytes || e->vq.q_bytes + len <= cfg->limit_bytes)
		e->vq.q_bytes += len;
	e->vq.dre_bytes = dre_decay(e->vq.dre_bytes, dt) + len;
	if (e->vq.q_bytes > e->vq.hwm_bytes)
		e->vq.hwm_bytes = e->vq.q_bytes;
	/* Never back in time: another CPU's later stamp stays. */
	if (now > e->vq.last_ns)
		e->vq.last_ns = now;
	e->pkts_since_sample++;
	res->sample = (sample_every && e->pkts_since_sample >= sample_every) ||
		      (sample_ns && (__s64)(now - e->sample_last_ns) >= (__s64)sample_ns);
	if (res->sample) {
		e->pkts_since_sample = 0;
		e->sample_last_ns = now;
	}
	res->q = e->vq.q_bytes;
	res->dre = e->vq.dre_bytes;
	res->hwm = e->vq.hwm_bytes;
	/* PI's state moves with every packet; RED needs only q, in mark(). */
	if (aqm == MPLANE_AQM_PI)
		res->pi_prob = vq_pi_prob(e, cfg, res->q, now);
	bpf_spin_unlock(&e->lock);
}

/* The ECN field of an IP packet, or -1 when it is not IP. */
static __always_inline int ip_ecn(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6;
	struct iphdr *ip4;

	if ((void *)(eth + 1) > end)
		return -1;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		ip4 = (void *)(eth + 1);
		if ((void *)(ip4 + 1) > end)
			return -1;
		return ip4->tos & INET_ECN_MASK;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return -1;
		return (ip6->flow_lbl[0] >> 4) & INET_ECN_MASK;
	}
	return -1;
}

static __always_inline void mark(struct __sk_buff *skb,
				 struct mplane_port_stats *st,
				 const struct vq_result *res)
{
	int ecn = ip_ecn(skb);
	__u32 p;

	if (ecn < 0)
		return;
	if (ecn == 0) {
		st->not_ect++;
		return;
	}
	st->ect++;
	if (ecn == INET_ECN_CE) {
		st->ce_seen++;
		return;
	}
	p = aqm == MPLANE_AQM_PI ? res->pi_prob : mark_prob(res->q);
	if (!p || (bpf_get_prandom_u32() & (MP_PROB_ONE - 1)) >= p)
		return;
	if (bpf_skb_ecn_set_ce(skb)) {
		st->ce_marked++;
		mp_event_emit(MPLANE_EV_ECN_MARK, skb->ifindex,
			      MPLANE_EVENT_NO_PLANE, res->q, p, 0, 0);
	}
}

SEC("tc")
int mp_ar_egress(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex;
	struct mplane_port_stats *st;
	struct mplane_port_cfg *cfg;
	struct vq_result res = {};
	struct vq_entry *e;
	__u64 now;

	cfg = bpf_map_lookup_elem(&mp_port_cfg, &ifindex);
	e = bpf_map_lookup_elem(&mp_vq, &ifindex);
	st = port_stats(ifindex);
	if (!cfg || !e || !st)
		return TC_ACT_UNSPEC;
	now = bpf_ktime_get_ns();
	vq_enqueue(e, cfg, skb->len, now, &res);
	st->tx_packets++;
	st->tx_bytes += skb->len;
	mark(skb, st, &res);
	if (res.sample)
		mp_event_emit(MPLANE_EV_QUEUE_SAMPLE, ifindex,
			      MPLANE_EVENT_NO_PLANE, res.q, res.dre,
			      st->tx_packets, res.hwm);
	return TC_ACT_UNSPEC;
}

/*
 * Port state, written by the loader's link watcher through
 * BPF_PROG_TEST_RUN, so that the map change and its event are one step.
 */
struct port_state_args {
	__u32 ifindex;
	__u32 up;
};

SEC("syscall")
int mp_ar_port_state(struct port_state_args *args)
{
	__u32 ifindex = args->ifindex;
	struct mplane_port_cfg *cfg;
	__u32 old;

	cfg = bpf_map_lookup_elem(&mp_port_cfg, &ifindex);
	if (!cfg)
		return -1;
	old = cfg->up;
	cfg->up = args->up;
	if (old != args->up)
		mp_event_emit(MPLANE_EV_PORT_STATE, ifindex,
			      MPLANE_EVENT_NO_PLANE, args->up, old, 0, 0);
	return 0;
}

/*
 * The sampler: a bpf_timer that, every interval_ns, reports each port of
 * this switch as a PORT_SAMPLE event (the virtual queue at that instant
 * and the cumulative counters), whether or not packets flow.  The ports'
 * queues and counters are this object's maps, so the timer lives here
 * too: it needs no module and runs wherever ar runs.
 *
 * The timer's map is pinned with the others; when detach removes the
 * last pin, the kernel cancels the timer with the map's last user
 * reference, so a detached switch stops sampling by itself.
 */
#define CLOCK_MONOTONIC		1
#define EBUSY			16
#define EINVAL			22
#define ENOENT			2
/* Below this the timer's own softirq load crowds out the datapath;
 * mplanectl refuses shorter intervals with a message, this is the net. */
#define SAMPLER_MIN_NS		(10 * 1000ULL)
/* Bound of the walk over possible CPUs; the walk stops at the first CPU
 * the kernel does not have, so only the verifier sees this number. */
#define SAMPLER_MAX_CPUS	512

struct sampler {
	struct bpf_timer timer;
	__u64 interval_ns;	/* 0: stopped, the callback does not re-arm */
	__u64 due_ns;		/* when the pending tick should fire */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sampler);
} mp_sampler SEC(".maps");

/* What one sample needs of a port's per-CPU counters. */
struct port_sum {
	__u64 tx_bytes;
	__u64 tx_packets;
	__u64 ce_marked;
};

static __always_inline void port_stats_sum(__u32 ifindex, struct port_sum *s)
{
	struct mplane_port_stats *st;
	__u32 cpu;

	for (cpu = 0; cpu < SAMPLER_MAX_CPUS; cpu++) {
		st = bpf_map_lookup_percpu_elem(&mp_port_stats, &ifindex, cpu);
		if (!st)
			break;	/* no such CPU, or the port never sent */
		s->tx_bytes += st->tx_bytes;
		s->tx_packets += st->tx_packets;
		s->ce_marked += st->ce_marked;
	}
}

struct sample_ctx {
	__u64 now;
};

static long sample_port(struct bpf_map *map, __u32 *key,
			struct mplane_port_cfg *cfg, struct sample_ctx *ctx)
{
	__u32 ifindex = *key;
	struct port_sum sum = {};
	struct vq_entry *e;
	__u64 q = 0;

	e = bpf_map_lookup_elem(&mp_vq, &ifindex);
	if (e)
		q = vq_level(e, cfg, ctx->now);
	port_stats_sum(ifindex, &sum);
	mp_event_emit(MPLANE_EV_PORT_SAMPLE, ifindex, MPLANE_EVENT_NO_PLANE,
		      q, sum.tx_bytes, sum.ce_marked, sum.tx_packets);
	return 0;
}

/*
 * A soft hrtimer fires some tens of microseconds after it is due, and a
 * timer re-armed "interval from now" would add that to every interval.
 * So the next tick is due one interval after this one was due (older
 * kernels have no absolute mode, hence the relative wait to it), and a
 * sampler that fell behind skips ahead rather than firing in a burst.
 * Re-armed before the walk, so that the walk's own time does not count.
 * A zero interval means sampling was stopped meanwhile.
 */
static int sampler_fire(void *map, __u32 *key, struct sampler *s)
{
	struct sample_ctx ctx = { .now = bpf_ktime_get_ns() };
	__u64 interval = READ_ONCE(s->interval_ns);
	__u64 due;

	if (!interval)
		return 0;
	due = s->due_ns + interval;
	if (due <= ctx.now)
		due = ctx.now + interval;
	s->due_ns = due;
	bpf_timer_start(&s->timer, due - ctx.now, 0);
	bpf_for_each_map_elem(&mp_port_cfg, sample_port, &ctx, 0);
	return 0;
}

/*
 * Run by 'mplanectl telemetry sample' through BPF_PROG_TEST_RUN, never
 * attached: the "packet" is struct sampler_args.  A tc program, not a
 * syscall one like mp_ar_port_state: syscall programs are sleepable, and
 * before 6.2 a sleepable program may not use a map with a bpf_spin_lock,
 * which the callback's mp_vq has.
 */
struct sampler_args {
	__u64 interval_ns;	/* 0 stops the sampler */
};

SEC("tc")
int mp_ar_sampler(struct __sk_buff *skb)
{
	struct sampler_args args;
	struct sampler *s;
	__u64 interval;
	__u32 zero = 0;
	long err;

	if (bpf_skb_load_bytes(skb, 0, &args, sizeof(args)))
		return -EINVAL;
	interval = args.interval_ns;
	if (interval && interval < SAMPLER_MIN_NS)
		return -EINVAL;
	s = bpf_map_lookup_elem(&mp_sampler, &zero);
	if (!s)
		return -ENOENT;
	/* Zero first: a callback running now on another CPU then does not
	 * re-arm behind the cancel. */
	s->interval_ns = interval;
	if (!interval) {
		bpf_timer_cancel(&s->timer);	/* -EINVAL if never started */
		return 0;
	}
	err = bpf_timer_init(&s->timer, &mp_sampler, CLOCK_MONOTONIC);
	if (err && err != -EBUSY)
		return err;
	err = bpf_timer_set_callback(&s->timer, sampler_fire);
	if (err)
		return err;
	s->due_ns = bpf_ktime_get_ns() + interval;
	return bpf_timer_start(&s->timer, interval, 0);
}

char LICENSE[] SEC("license") = "GPL";
