// SPDX-License-Identifier: GPL-2.0
/*
 * fault_loss: random loss on what a port sends, for 'mplanectl fabric
 * fault loss' on kernels without netem.  Each packet is dropped with the
 * probability mp_fault_cfg says (parts per million), independently of
 * the others, as netem's "loss random" does; what passes and what is
 * dropped is counted per CPU.  One copy per port (tools/include/
 * mp_fault_loss.h), on tc egress.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "mp_fault_loss.h"

/* vmlinux.h carries types only, not the uapi macros. */
#define TC_ACT_UNSPEC	(-1)
#define TC_ACT_SHOT	2

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mp_fault_loss_cfg);
} mp_fault_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mp_fault_loss_stats);
} mp_fault_stats SEC(".maps");

/*
 * A 32-bit random number scaled to [0, 1000000): a multiply and a shift,
 * without the bias of a modulo.  TC_ACT_UNSPEC lets a passed packet on
 * to any filter after this one; there is none of mplane's.
 */
SEC("tc")
int mp_fault_drop(struct __sk_buff *skb)
{
	struct mp_fault_loss_stats *st;
	struct mp_fault_loss_cfg *cfg;
	__u32 zero = 0;
	__u64 r;

	(void)skb;
	cfg = bpf_map_lookup_elem(&mp_fault_cfg, &zero);
	st = bpf_map_lookup_elem(&mp_fault_stats, &zero);
	if (!cfg || !st)
		return TC_ACT_UNSPEC;
	r = (__u64)bpf_get_prandom_u32() * MP_FAULT_PPM_ONE >> 32;
	if (r < cfg->ppm) {
		st->dropped++;
		return TC_ACT_SHOT;
	}
	st->passed++;
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
