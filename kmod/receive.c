// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: the rx handler on every rail.  IP packets addressed to the
 * mplane device are handed to it, so its counters and sockets bound to
 * it see them; everything else (ARP, neighbour discovery, traffic for the
 * rail itself) goes on up the rail's own stack.  On the way, congestion
 * signals (ECN-CE marks and RoCEv2 CNPs) feed the plane's congestion
 * score, and liveness probes are answered.
 */
#include <linux/if_ether.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/vxlan.h>

#include "balance.h"
#include "mplane.h"

struct mplane_rx {
	bool ours;		/* addressed to the mplane device */
	bool ce;		/* ECN congestion experienced */
	bool cnp;		/* a RoCEv2 congestion notification */
	bool probe;		/* an mplane liveness probe */
	bool roce;		/* RoCEv2: UDP to port 4791 */
	bool reorder;		/* mp0 resequences: look into VXLAN too */
	/*
	 * Where RoCEv2's IP header starts, and its BTH (past VXLAN's, when
	 * it came in one); 0: no whole BTH.
	 */
	unsigned int ip_off;
	unsigned int bth_off;
};

/*
 * Is the VXLAN datagram whose UDP header is at @off RoCEv2 inside?  Where
 * an RDMA device needs an Ethernet netdev, it runs over a VXLAN whose
 * underlay is mp0 (mp0 has no link-layer address: Documentation/rxe.md),
 * and resequencing looks for its BTH there.  A VLAN tag on the inner
 * frame is not looked through.
 */
static void mplane_rx_vxlan(struct sk_buff *skb, unsigned int off,
			    struct mplane_rx *rx)
{
	unsigned int eth = off + sizeof(struct udphdr) + sizeof(struct vxlanhdr);
	unsigned int ip = eth + ETH_HLEN, udp;
	const struct ethhdr *eh;
	struct ethhdr _eh;
	u8 _b[40];
	const u8 *b;

	eh = skb_header_pointer(skb, eth, sizeof(_eh), &_eh);
	if (!eh)
		return;
	if (eh->h_proto == htons(ETH_P_IP)) {
		b = skb_header_pointer(skb, ip, sizeof(struct iphdr), _b);
		if (!b || (b[0] >> 4) != 4 || (b[0] & 0xf) < 5 ||
		    b[9] != IPPROTO_UDP ||
		    ((const struct iphdr *)b)->frag_off & htons(IP_MF | IP_OFFSET))
			return;
		udp = ip + (b[0] & 0xf) * 4;
	} else if (eh->h_proto == htons(ETH_P_IPV6)) {
		b = skb_header_pointer(skb, ip, sizeof(struct ipv6hdr), _b);
		if (!b || (b[0] >> 4) != 6 || b[6] != IPPROTO_UDP)
			return;
		udp = ip + sizeof(struct ipv6hdr);
	} else {
		return;
	}
	b = skb_header_pointer(skb, udp, sizeof(struct udphdr), _b);
	if (!b || ((const struct udphdr *)b)->dest != htons(MPLANE_ROCEV2_PORT) ||
	    !mplane_udp_has_bth(skb, udp, (const struct udphdr *)b))
		return;
	rx->ip_off = ip;
	rx->bth_off = udp + sizeof(struct udphdr);
}

static bool mplane_v4_is_ours(struct net_device *dev, __be32 daddr)
{
	struct in_device *in_dev = __in_dev_get_rcu(dev);
	const struct in_ifaddr *ifa;

	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == daddr)
			return true;
	return false;
}

/* Look at the UDP header at @off for RoCEv2 CNPs and mplane probes. */
static void mplane_rx_udp(struct sk_buff *skb, unsigned int off,
			  struct mplane_rx *rx)
{
	const struct udphdr *uh;
	u8 opcode;

	if (!pskb_may_pull(skb, off + sizeof(*uh)))
		return;
	uh = (const struct udphdr *)(skb->data + off);
	if (uh->dest == htons(MPLANE_PROBE_PORT)) {
		rx->probe = rx->ours;
	} else if (uh->dest == htons(MPLANE_ROCEV2_PORT)) {
		rx->roce = true;
		if (!mplane_udp_has_bth(skb, off, uh))
			return;
		rx->ip_off = 0;
		rx->bth_off = off + sizeof(*uh);
		/* RoCEv2: a CNP is a whole BTH with the CNP opcode. */
		if (!skb_copy_bits(skb, rx->bth_off +
				   offsetof(struct mplane_bth, opcode),
				   &opcode, sizeof(opcode)))
			rx->cnp = opcode == MPLANE_BTH_OPCODE_CNP;
	} else if (rx->reorder && rx->ours &&
		   uh->dest == htons(IANA_VXLAN_UDP_PORT)) {
		mplane_rx_vxlan(skb, off, rx);
	}
}

static bool mplane_rx_v4(struct mplane_dev *mp, struct sk_buff *skb,
			 struct mplane_rx *rx)
{
	const struct iphdr *iph;
	unsigned int off;

	if (!pskb_may_pull(skb, sizeof(*iph)))
		return false;
	iph = ip_hdr(skb);
	if (iph->ihl < 5)
		return false;
	rx->ours = mplane_v4_is_ours(mp->dev, iph->daddr);
	rx->ce = INET_ECN_is_ce(iph->tos);
	off = iph->ihl * 4;
	if (iph->protocol == IPPROTO_UDP && !ip_is_fragment(iph))
		mplane_rx_udp(skb, off, rx);
	return true;
}

static bool mplane_rx_v6(struct mplane_dev *mp, struct sk_buff *skb,
			 struct mplane_rx *rx)
{
	const struct ipv6hdr *ip6h;

	if (!pskb_may_pull(skb, sizeof(*ip6h)))
		return false;
	ip6h = ipv6_hdr(skb);
	/*
	 * Strict: only mp0's own addresses.  Without it any device's global
	 * address matches (only link-local ones are held to the device), so
	 * packets for a rail's or a management NIC's address were taken up
	 * mp0, where neighbour discovery for them fails.
	 */
	rx->ours = ipv6_chk_addr(dev_net(mp->dev), &ip6h->daddr, mp->dev, 1);
	rx->ce = INET_ECN_is_ce(ipv6_get_dsfield(ip6h));
	/* Extension headers are not walked: RoCEv2 does not use them. */
	if (ip6h->nexthdr == IPPROTO_UDP)
		mplane_rx_udp(skb, sizeof(*ip6h), rx);
	return true;
}

/* A congestion signal on @plane: raise its decaying score. */
void mplane_congestion_event(struct mplane_plane *plane, u64 now)
{
	struct mplane_dev *mp = plane->mp;
	u64 score;

	score = mplane_decay(READ_ONCE(plane->cong_score),
			     now - READ_ONCE(plane->cong_stamp),
			     READ_ONCE(mp->cong_halflife_ns));
	score += MPLANE_CONG_UNIT;
	WRITE_ONCE(plane->cong_score, score);
	WRITE_ONCE(plane->cong_stamp, now);
	if (!READ_ONCE(plane->congested) &&
	    score > READ_ONCE(mp->cong_threshold))
		mplane_state_set_congested(plane, true);
}

static void mplane_rx_account(struct mplane_plane *plane,
			      const struct mplane_rx *rx)
{
	if (rx->ce) {
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_ECN_CE, 1);
		mplane_congestion_event(plane, ktime_get_ns());
	}
	if (rx->cnp)
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_CNP, 1);
}

rx_handler_result_t mplane_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct mplane_plane *plane = rcu_dereference(skb->dev->rx_handler_data);
	struct mplane_dev *mp = plane->mp;
	struct mplane_rx rx = {
		/* Only resequencing needs what a VXLAN datagram holds. */
		.reorder = !!rcu_access_pointer(mp->reorder),
	};
	bool ip;

	if (skb->pkt_type != PACKET_HOST)
		return RX_HANDLER_PASS;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;

	if (skb->protocol == htons(ETH_P_IP))
		ip = mplane_rx_v4(mp, skb, &rx);
	else if (skb->protocol == htons(ETH_P_IPV6))
		ip = mplane_rx_v6(mp, skb, &rx);
	else
		return RX_HANDLER_PASS;
	if (!ip)
		return RX_HANDLER_PASS;

	if (rx.probe && mplane_probe_rx(plane, skb))
		return RX_HANDLER_CONSUMED;
	/*
	 * Only what is mp0's says how congested its plane is: CE on traffic
	 * to the rail's own address, or to another host, is not mp0's path,
	 * and anybody could send it.
	 */
	if (!rx.ours)
		return RX_HANDLER_PASS;
	mplane_rx_account(plane, &rx);
	if (rx.roce && mplane_cc_rx(plane, skb, rx.ce))
		return RX_HANDLER_CONSUMED;
	/*
	 * A CNP is mp0's only when it names a QP that mp0 sends on.  With
	 * congestion control on, mplane_cc_rx() took it, and it raised the
	 * score if the QP was one of mp0's; without, mp0 knows no QPs, and
	 * a CNP to its address counts as CE does (once, if it has both).
	 */
	if (rx.cnp && !rx.ce)
		mplane_congestion_event(plane, ktime_get_ns());

	mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_RX_PACKETS, 1);
	mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_RX_BYTES, skb->len);
	dev_sw_netstats_rx_add(mp->dev, skb->len);
	/* Delivered again from the top, as if it had arrived on mp0. */
	skb->dev = mp->dev;
	if (rx.bth_off && !rx.cnp &&
	    mplane_reorder_rx(plane, skb, rx.ip_off, rx.bth_off))
		return RX_HANDLER_CONSUMED;
	return RX_HANDLER_ANOTHER;
}
