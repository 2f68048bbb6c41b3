// SPDX-License-Identifier: GPL-2.0
/*
 * pktcount: count packets and bytes per direction and protocol class at the
 * tc (clsact) hooks of a device.  It only observes: every packet goes on to
 * the next filter untouched.
 *
 * One program per direction, so that the direction is known without a
 * setting; both share one per-CPU counter map, laid out as in
 * uapi/linux/mplane.h: slot = dir * __MPLANE_PKT_CLASS_MAX + class.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <linux/mplane.h>
#include "mplane_maps.h"

/* vmlinux.h carries types only, not the uapi macros. */
#define TC_ACT_UNSPEC	(-1)
#define ETH_P_IP	0x0800
#define ETH_P_ARP	0x0806
#define ETH_P_IPV6	0x86DD

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MPLANE_PKTCOUNT_SLOTS);
	__type(key, __u32);
	__type(value, struct mplane_pktcount);
} mp_pktcount SEC(".maps");

static __always_inline __u32 pkt_class(__u32 protocol)
{
	switch (protocol) {
	case bpf_htons(ETH_P_IP):
		return MPLANE_PKT_IPV4;
	case bpf_htons(ETH_P_IPV6):
		return MPLANE_PKT_IPV6;
	case bpf_htons(ETH_P_ARP):
		return MPLANE_PKT_ARP;
	default:
		return MPLANE_PKT_OTHER;
	}
}

/*
 * Plain increments are enough: the slot is this CPU's own, and a tc hook
 * cannot interrupt another tc hook on the same CPU (both run with BHs off).
 *
 * TC_ACT_UNSPEC rather than TC_ACT_OK: with direct-action, TC_ACT_OK ends
 * classification and would hide the packet from filters of other tools at
 * a later priority; UNSPEC lets it go on, and is "pass" when none is left.
 */
static __always_inline int count(struct __sk_buff *skb, __u32 dir)
{
	__u32 slot = dir * __MPLANE_PKT_CLASS_MAX + pkt_class(skb->protocol);
	struct mplane_pktcount *c;

	c = bpf_map_lookup_elem(&mp_pktcount, &slot);
	if (c) {
		c->packets++;
		/* At both hooks skb->len includes the link-layer header. */
		c->bytes += skb->len;
	}
	return TC_ACT_UNSPEC;
}

SEC("tc")
int mp_pkt_ingress(struct __sk_buff *skb)
{
	return count(skb, MPLANE_DIR_INGRESS);
}

SEC("tc")
int mp_pkt_egress(struct __sk_buff *skb)
{
	return count(skb, MPLANE_DIR_EGRESS);
}

char LICENSE[] SEC("license") = "GPL";
