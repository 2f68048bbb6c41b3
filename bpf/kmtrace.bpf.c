// SPDX-License-Identifier: GPL-2.0
/*
 * kmtrace: mplane.ko's tracepoints (kmod/trace.h) relayed into the event
 * ring, so that a plane going down, the failover it causes, the module's
 * per-plane samples, its plane choices and its DCQCN rate changes land on
 * the same timeline as every BPF event.  'mplanectl telemetry attach' loads and pins it.
 *
 * Raw tracepoints, not tp_btf: the module may be built without BTF, and a
 * raw tracepoint only needs the arguments' order, read from ctx->args[]
 * (each widened to 64 bits by the kernel).  The tracepoints' own buffers
 * and 'perf record -e mplane:*' are untouched: a raw tracepoint program
 * is one more probe on the same tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "events.bpf.h"
#include "mplane_events.h"

/*
 * plane_select fires for every packet whose plane is chosen afresh:
 * relay one in this many (per CPU), 0 relays none.  Every relayed choice
 * costs a ring record, so the default keeps the relay far below the
 * datapath's rate.
 */
const volatile __u32 sel_sample_every = 64;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mp_sel_count SEC(".maps");

static __always_inline __u32 dev_ifindex(__u64 arg)
{
	const struct net_device *dev = (const struct net_device *)arg;

	return dev ? BPF_CORE_READ(dev, ifindex) : 0;
}

/*
 * One relay serves every network namespace, and ifindexes are only unique
 * within one: hdr.flags names the device's namespace by its inode, as
 * /proc/PID/ns/net does.
 */
static __always_inline __u32 dev_netns(__u64 arg)
{
	const struct net_device *dev = (const struct net_device *)arg;

	return dev ? BPF_CORE_READ(dev, nd_net.net, ns.inum) : 0;
}

/* plane_state(dev, rail, plane, old_state, state, reason) */
SEC("raw_tp/plane_state")
int mp_plane_state(struct bpf_raw_tracepoint_args *ctx)
{
	mp_event_emit_flags(MPLANE_EV_PLANE_STATE, dev_ifindex(ctx->args[0]),
			    (__u16)ctx->args[2], dev_netns(ctx->args[0]),
			    (__u8)ctx->args[4], (__u8)ctx->args[3],
			    (__u8)ctx->args[5], dev_ifindex(ctx->args[1]));
	return 0;
}

/* failover(dev, plane, reason, usable_mask) */
SEC("raw_tp/failover")
int mp_failover(struct bpf_raw_tracepoint_args *ctx)
{
	mp_event_emit_flags(MPLANE_EV_FAILOVER, dev_ifindex(ctx->args[0]),
			    (__u16)ctx->args[1], dev_netns(ctx->args[0]),
			    (__u8)ctx->args[2], (__u32)ctx->args[3], 0, 0);
	return 0;
}

/*
 * plane_sample(dev, plane, q_bytes, tx_bytes, ecn_ce, cnp, load): the load
 * score stays in the tracepoint (perf shows it) and in PLANE_SELECT.
 */
SEC("raw_tp/plane_sample")
int mp_plane_sample(struct bpf_raw_tracepoint_args *ctx)
{
	mp_event_emit_flags(MPLANE_EV_PLANE_SAMPLE, dev_ifindex(ctx->args[0]),
			    (__u16)ctx->args[1], dev_netns(ctx->args[0]),
			    ctx->args[2], ctx->args[3], ctx->args[4],
			    ctx->args[5]);
	return 0;
}

/* plane_select(dev, plane, policy, hash, load, new_flowlet) */
SEC("raw_tp/plane_select")
int mp_plane_select(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	__u64 *n;

	if (!sel_sample_every)
		return 0;
	n = bpf_map_lookup_elem(&mp_sel_count, &zero);
	if (!n)
		return 0;
	/* Per CPU, so no atomics: the count only decides which to relay. */
	if ((*n)++ % sel_sample_every)
		return 0;
	mp_event_emit_flags(MPLANE_EV_PLANE_SELECT, dev_ifindex(ctx->args[0]),
			    (__u16)ctx->args[1], dev_netns(ctx->args[0]),
			    (__u8)ctx->args[2], (__u32)ctx->args[3],
			    (__u32)ctx->args[4], (__u8)ctx->args[5] ? 1 : 0);
	return 0;
}

/*
 * rate_update(dev, plane, qpn, new_kbps, old_kbps, cause): a QP's DCQCN
 * rate changed.  A cut names the plane its CNP came in on; an increase
 * has plane U32_MAX, which is no plane in the event's u16.
 */
SEC("raw_tp/rate_update")
int mp_rate_update(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 plane = (__u32)ctx->args[1];

	mp_event_emit_flags(MPLANE_EV_RATE_UPDATE, dev_ifindex(ctx->args[0]),
			    plane == (__u32)-1 ? MPLANE_EVENT_NO_PLANE :
			    (__u16)plane, dev_netns(ctx->args[0]),
			    (__u32)ctx->args[2], (__u32)ctx->args[3],
			    (__u32)ctx->args[4], (__u8)ctx->args[5]);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
