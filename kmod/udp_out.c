// SPDX-License-Identifier: GPL-2.0
/*
 * The packets mp0 makes itself (liveness probes, CNPs): a UDP datagram
 * from one of mp0's addresses, built here and sent on one given plane,
 * not balanced, because what it says is about that plane.
 */
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
		.frag_off = htons(IP_DF),
		.protocol = IPPROTO_UDP,
		.saddr = a->saddr.s6_addr32[3],
		.daddr = a->daddr.s6_addr32[3],
	};
	/* tot_len and the header checksum are set by ip_local_out. */
	skb->protocol = htons(ETH_P_IP);
}

static void mplane_udp_build_v6(struct sk_buff *skb,
				const struct mplane_udp_addrs *a, u8 tos)
{
	struct udphdr *uh = udp_hdr(skb);
	unsigned int len = skb->len;
	struct ipv6hdr *ip6h;

	uh->check = csum_ipv6_magic(&a->saddr, &a->daddr, len, IPPROTO_UDP,
				    csum_partial(uh, len, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
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
	skb->dev = plane->mp->dev;
	err = mplane_xmit_on_plane(plane, skb);
	if (err == -ENETUNREACH)
		kfree_skb(skb);
	return err;
}
