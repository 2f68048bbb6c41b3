// SPDX-License-Identifier: GPL-2.0
/*
 * pass: programs that do nothing but let the packet go on, one per hook
 * type.  Benchmarks run them next to a real program in the same run, so
 * that a result is a ratio to the cost of merely running BPF there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_UNSPEC	(-1)
#define XDP_PASS	2

SEC("tc")
int mp_pass_tc(struct __sk_buff *skb)
{
	return TC_ACT_UNSPEC;
}

SEC("xdp")
int mp_pass_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
