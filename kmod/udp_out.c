// SPDX-License-Identifier: GPL-2.0
/*
 * The packets mp0 makes itself (liveness probes, CNPs): a UDP datagram
 * from one of mp0's addresses, built here and sent on one given plane,
 * not balanced, because what it says is about that plane.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>

#include "mplane.h"

static void mplane_udp_build_v4(struct sk_buff *skb,
				const struct mplane_udp_addrs *a, u8 tos)
{
	struct iphdr *iph = skb_push(skb, sizeof(*iph));

	skb_reset_network_header(skb);
	*iph = (struct iphdr) {
		.version = 4,
		.ihl = 5,
		.tos = tos,
		.ttl = 64,
		.tot_len = htons(skb->len),
		.frag_off = htons(IP_DF),
		.protocol = IPPROTO_UDP,
		.saddr = a->saddr.s6_addr32[3],
		.daddr = a->daddr.s6_addr32[3],
	};
	/*
	 * The header checksum is ip_local_out's, and it leaves the ID 0,
	 * as with DF set: the ICRC below covers both as they will leave.
	 */
	skb->protocol = htons(ETH_P_IP);
}

static void mplane_udp_build_v6(struct sk_buff *skb,
				const struct mplane_udp_addrs *a, u8 tos)
{
	unsigned int len = skb->len;
	struct ipv6hdr *ip6h;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tos, 0);
	ip6h->payload_len = htons(len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = 64;
	ip6h->saddr = a->saddr;
	ip6h->daddr = a->daddr;
	skb->protocol = htons(ETH_P_IPV6);
}

/* Over IPv6 the UDP checksum is required, and covers the ICRC. */
static void mplane_udp_csum_v6(struct sk_buff *skb,
			       const struct mplane_udp_addrs *a)
{
	struct udphdr *uh = udp_hdr(skb);
	unsigned int len = ntohs(uh->len);

	uh->check = csum_ipv6_magic(&a->saddr, &a->daddr, len, IPPROTO_UDP,
				    csum_partial(uh, len, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
}

/* The CRC-32 register after the eight bytes of ones that stand for the
 * LRH, which RoCEv2 does not carry.
 */
#define MPLANE_ICRC_SEED	0xdebb20e3
#define MPLANE_ICRC_LEN		4

/*
 * RoCEv2's invariant CRC (InfiniBand annex A17), in the datagram's last
 * four bytes: CRC-32 from the IP header to the end of the payload, with
 * what routers may rewrite on the way (TOS or traffic class and flow
 * label, TTL or hop limit, the IP and UDP checksums) and BTH's reserved
 * byte read as ones.  An RNIC drops a RoCE packet whose ICRC fails, so a
 * CNP without it would cut no rate but mp0's own.
 */
static void mplane_udp_icrc(struct sk_buff *skb)
{
	unsigned int ip_len = skb_transport_offset(skb);
	unsigned int hlen = ip_len + sizeof(struct udphdr) +
			    sizeof(struct mplane_bth);
	u8 ph[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
	      sizeof(struct mplane_bth)];
	struct mplane_bth *bth;
	__le32 icrc;
	u32 crc;

	memcpy(ph, skb->data, hlen);
	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = (struct iphdr *)ph;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)ph;

		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}
	((struct udphdr *)(ph + ip_len))->check = CSUM_MANGLED_0;
	bth = (struct mplane_bth *)(ph + ip_len + sizeof(struct udphdr));
	bth->dqpn |= htonl(~MPLANE_BTH_QPN_MASK);
	crc = crc32_le(MPLANE_ICRC_SEED, ph, hlen);
	crc = crc32_le(crc, skb->data + hlen, skb->len - hlen - MPLANE_ICRC_LEN);
	icrc = cpu_to_le32(~crc);
	memcpy(skb_tail_pointer(skb) - MPLANE_ICRC_LEN, &icrc, sizeof(icrc));
}

/*
 * Send @len bytes of @body from @a->saddr:@sport to @a->daddr:@dport on
 * @plane, with traffic class @tos.  Returns 0 when the rail took it.
 */
int mplane_udp_send(struct mplane_plane *plane, const struct mplane_udp_addrs *a,
		    __be16 sport, __be16 dport, u8 tos, const void *body,
		    unsigned int len)
{
	struct net_device *rail = plane->rail;
	unsigned int room = LL_RESERVED_SPACE(rail) + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;
	struct udphdr *uh;
	int err;

	skb = alloc_skb(room + len + rail->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, room);
	skb_put_data(skb, body, len);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	*uh = (struct udphdr) {
		.source = sport,
		.dest = dport,
		.len = htons(skb->len),
	};
	if (a->v4)
		mplane_udp_build_v4(skb, a, tos);
	else
		mplane_udp_build_v6(skb, a, tos);
	/* UDP's port 4791 is RoCEv2's, whose datagrams end in an ICRC. */
	if (dport == htons(MPLANE_ROCEV2_PORT) &&
	    len >= sizeof(struct mplane_bth) + MPLANE_ICRC_LEN)
		mplane_udp_icrc(skb);
	if (!a->v4)
		mplane_udp_csum_v6(skb, a);
	skb->dev = plane->mp->dev;
	err = mplane_xmit_on_plane(plane, skb);
	if (err == -ENETUNREACH)
		kfree_skb(skb);
	return err;
}
