/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet parser of hostacct: Ethernet (one 802.1Q/802.1ad tag), IPv4
 * or IPv6, UDP or TCP, and the InfiniBand BTH of RoCEv2 (UDP to 4791).
 *
 * Headers are copied to the stack with bpf_skb_load_bytes() or
 * bpf_xdp_load_bytes() rather than read in place: the copy sees the whole
 * packet, also what tc finds outside the linear area and XDP in later
 * fragments, so a packet is called truncated only when it really ends
 * inside a header.  Every header is bounded by the end the IP header
 * gives, not by the frame, so Ethernet padding is never read as payload.
 *
 * One parser serves tc and XDP: @xdp is a constant in each caller, and
 * the compiler drops the helper that the program type does not have.
 */
#ifndef MPLANE_HOSTACCT_PARSE_BPF_H
#define MPLANE_HOSTACCT_PARSE_BPF_H

#include <bpf/bpf_endian.h>
#include <linux/mplane.h>

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define INET_ECN_MASK	3
#define INET_ECN_CE	3

enum hp_verdict {
	HP_OK,
	HP_MALFORMED,	/* fields contradict each other: parsing stopped */
	HP_TRUNCATED,	/* the packet ends inside a header */
};

/* What the parser found; fields past the point where it stopped are 0. */
struct hp_pkt {
	__u32	len;		/* bytes of the frame, link-layer header included */
	__u8	verdict;	/* enum hp_verdict */
	__u8	ip;		/* an IPv4 or IPv6 header parsed */
	__u8	ecn;		/* its ECN field */
	__u8	l4;		/* IPPROTO_UDP or _TCP once that header parsed */
	__u8	roce;		/* a whole BTH parsed */
	__u8	opcode;
	__u8	ackreq;
	__u32	saddr4;		/* IPv4 source, network order; 0 for IPv6 */
	__u32	qpn;
	__u32	psn;
};

/* Where parsing is, and the end no header may cross. */
struct hp_cur {
	void	*ctx;
	__u32	off;
	__u32	end;
	__u8	mf;		/* a first IPv4 fragment: UDP length runs past end */
};

static __always_inline int hp_load(const struct hp_cur *c, __u32 off,
				   void *to, __u32 n, const bool xdp)
{
	if (off + n > c->end)
		return -1;
	if (xdp)
		return bpf_xdp_load_bytes(c->ctx, off, to, n);
	return bpf_skb_load_bytes(c->ctx, off, to, n);
}

/* The EtherType after at most one VLAN tag; c->off moves past both. */
static __always_inline int hp_eth(struct hp_cur *c, __u16 *proto,
				  const bool xdp)
{
	struct ethhdr eth;
	struct vlan_hdr vh;

	if (hp_load(c, 0, &eth, sizeof(eth), xdp))
		return HP_TRUNCATED;
	c->off = sizeof(eth);
	*proto = eth.h_proto;
	if (*proto != bpf_htons(ETH_P_8021Q) && *proto != bpf_htons(ETH_P_8021AD))
		return HP_OK;
	if (hp_load(c, c->off, &vh, sizeof(vh), xdp))
		return HP_TRUNCATED;
	c->off += sizeof(vh);
	*proto = vh.h_vlan_encapsulated_proto;
	return HP_OK;
}

/* Returns the L4 protocol in *l4, or 0 when there is none to parse. */
static __always_inline int hp_ipv4(struct hp_cur *c, struct hp_pkt *p,
				   __u8 *l4, const bool xdp)
{
	struct iphdr ip;
	__u32 ihl, tot;
	__u16 frag;
	__u8 vihl;

	if (hp_load(c, c->off, &ip, sizeof(ip), xdp))
		return HP_TRUNCATED;
	/* Byte-wise rather than through vmlinux.h's bitfields. */
	vihl = *(__u8 *)&ip;
	ihl = (vihl & 0xf) * 4;
	tot = bpf_ntohs(ip.tot_len);
	if (vihl >> 4 != 4 || ihl < sizeof(ip) || tot < ihl)
		return HP_MALFORMED;
	p->ip = 1;
	p->ecn = ip.tos & INET_ECN_MASK;
	p->saddr4 = ip.saddr;
	if (c->off + tot > c->end)
		return HP_TRUNCATED;
	c->end = c->off + tot;
	c->off += ihl;
	frag = bpf_ntohs(ip.frag_off);
	c->mf = !!(frag & IP_MF);
	/* A later fragment carries payload, not the L4 header. */
	*l4 = (frag & IP_OFFSET) ? 0 : ip.protocol;
	return HP_OK;
}

/* Extension headers are not followed: such packets count as plain IP. */
static __always_inline int hp_ipv6(struct hp_cur *c, struct hp_pkt *p,
				   __u8 *l4, const bool xdp)
{
	struct ipv6hdr ip6;
	__u8 *b = (__u8 *)&ip6;
	__u32 plen;

	if (hp_load(c, c->off, &ip6, sizeof(ip6), xdp))
		return HP_TRUNCATED;
	if (b[0] >> 4 != 6)
		return HP_MALFORMED;
	p->ip = 1;
	/* Traffic class: the low nibble of byte 0, the high one of byte 1. */
	p->ecn = (b[1] >> 4) & INET_ECN_MASK;
	plen = bpf_ntohs(ip6.payload_len);
	if (c->off + sizeof(ip6) + plen > c->end)
		return HP_TRUNCATED;
	c->off += sizeof(ip6);
	c->end = c->off + plen;
	*l4 = ip6.nexthdr;
	return HP_OK;
}

static __always_inline int hp_tcp(struct hp_cur *c, struct hp_pkt *p,
				  const bool xdp)
{
	__u8 doff;

	/* Byte 12 holds the data offset: the header's length in words. */
	if (hp_load(c, c->off + 12, &doff, 1, xdp))
		return HP_TRUNCATED;
	doff = (doff >> 4) * 4;
	if (doff < sizeof(struct tcphdr))
		return HP_MALFORMED;
	if (c->off + doff > c->end)
		return HP_TRUNCATED;
	p->l4 = IPPROTO_TCP;
	return HP_OK;
}

static __always_inline int hp_bth(struct hp_cur *c, struct hp_pkt *p,
				  const bool xdp)
{
	struct mplane_bth bth;
	__u32 psn;

	if (hp_load(c, c->off, &bth, sizeof(bth), xdp))
		return HP_TRUNCATED;
	p->roce = 1;
	p->opcode = bth.opcode;
	p->qpn = bpf_ntohl(bth.dqpn) & MPLANE_BTH_QPN_MASK;
	psn = bpf_ntohl(bth.psn);
	p->ackreq = !!(psn & MPLANE_BTH_ACKREQ);
	p->psn = psn & MPLANE_BTH_PSN_MASK;
	return HP_OK;
}

static __always_inline int hp_udp(struct hp_cur *c, struct hp_pkt *p,
				  const bool xdp)
{
	struct udphdr udp;
	__u32 ulen;

	if (hp_load(c, c->off, &udp, sizeof(udp), xdp))
		return HP_TRUNCATED;
	ulen = bpf_ntohs(udp.len);
	/* A first fragment holds only part of what the UDP length counts. */
	if (ulen < sizeof(udp) || (!c->mf && c->off + ulen > c->end))
		return HP_MALFORMED;
	p->l4 = IPPROTO_UDP;
	c->off += sizeof(udp);
	if (udp.dest != bpf_htons(MPLANE_ROCEV2_PORT))
		return HP_OK;
	return hp_bth(c, p, xdp);
}

static __always_inline int hp_l3(struct hp_cur *c, struct hp_pkt *p,
				 __u16 proto, const bool xdp)
{
	__u8 l4 = 0;
	int v;

	if (proto == bpf_htons(ETH_P_IP))
		v = hp_ipv4(c, p, &l4, xdp);
	else if (proto == bpf_htons(ETH_P_IPV6))
		v = hp_ipv6(c, p, &l4, xdp);
	else
		return HP_OK;
	if (v != HP_OK)
		return v;
	if (l4 == IPPROTO_UDP)
		return hp_udp(c, p, xdp);
	if (l4 == IPPROTO_TCP)
		return hp_tcp(c, p, xdp);
	return HP_OK;
}

/* Fill @p from the packet of @ctx, @len bytes long. */
static __always_inline void hp_parse(void *ctx, __u32 len, struct hp_pkt *p,
				     const bool xdp)
{
	struct hp_cur c = { .ctx = ctx, .end = len };
	__u16 proto;
	int v;

	__builtin_memset(p, 0, sizeof(*p));
	p->len = len;
	v = hp_eth(&c, &proto, xdp);
	if (v == HP_OK)
		v = hp_l3(&c, p, proto, xdp);
	p->verdict = v;
}

#endif /* MPLANE_HOSTACCT_PARSE_BPF_H */
