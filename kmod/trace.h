/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of mplane.ko: mplane:plane_state, mplane:failover,
 * mplane:plane_select and mplane:plane_sample.  plane_select fires per
 * packet, so it costs a patched-out branch when nobody listens.  Names
 * are copied into fixed arrays, not __string(), whose helpers changed
 * arguments in 6.10.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mplane

#if !defined(_MPLANE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MPLANE_TRACE_H

#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "linux/mplane.h"

#define mplane_show_state(s)					\
	__print_symbolic(s,					\
			 { MPLANE_PLANE_UP, "up" },		\
			 { MPLANE_PLANE_DOWN, "down" },		\
			 { MPLANE_PLANE_CONGESTED, "congested" },	\
			 { MPLANE_PLANE_PROBING, "probing" },	\
			 { MPLANE_PLANE_ADMIN_DOWN, "admin-down" })

#define mplane_show_reason(r)					\
	__print_symbolic(r,					\
			 { MPLANE_REASON_NONE, "none" },	\
			 { MPLANE_REASON_CARRIER, "carrier" },	\
			 { MPLANE_REASON_HOLDDOWN, "holddown" },	\
			 { MPLANE_REASON_PROBE_MISS, "probe-miss" },	\
			 { MPLANE_REASON_ECN, "ecn" },		\
			 { MPLANE_REASON_ADMIN, "admin" },	\
			 { MPLANE_REASON_MASTER_DOWN, "master-down" })

TRACE_EVENT(plane_state,
	    TP_PROTO(const struct net_device *dev,
		     const struct net_device *rail, u32 plane, u8 old_state,
		     u8 state, u8 reason),
	    TP_ARGS(dev, rail, plane, old_state, state, reason),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __array(char, rail, IFNAMSIZ)
			     __field(u32, plane)
			     __field(u8, old_state)
			     __field(u8, state)
			     __field(u8, reason)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   memcpy(__entry->rail, rail->name, IFNAMSIZ);
			   __entry->plane = plane;
			   __entry->old_state = old_state;
			   __entry->state = state;
			   __entry->reason = reason),
	    TP_printk("dev=%s rail=%s plane=%u %s -> %s reason=%s",
		      __entry->dev, __entry->rail, __entry->plane,
		      mplane_show_state(__entry->old_state),
		      mplane_show_state(__entry->state),
		      mplane_show_reason(__entry->reason))
);

TRACE_EVENT(failover,
	    TP_PROTO(const struct net_device *dev, u32 plane, u8 reason,
		     u32 usable_mask),
	    TP_ARGS(dev, plane, reason, usable_mask),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(u32, plane)
			     __field(u8, reason)
			     __field(u32, usable_mask)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->plane = plane;
			   __entry->reason = reason;
			   __entry->usable_mask = usable_mask),
	    TP_printk("dev=%s plane=%u reason=%s usable=%#x",
		      __entry->dev, __entry->plane,
		      mplane_show_reason(__entry->reason),
		      __entry->usable_mask)
);

TRACE_EVENT(plane_select,
	    TP_PROTO(const struct net_device *dev, u32 plane, u8 policy,
		     u32 hash, u32 load, bool new_flowlet),
	    TP_ARGS(dev, plane, policy, hash, load, new_flowlet),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, plane)
			     __field(u8, policy)
			     __field(u32, hash)
			     __field(u32, load)
			     __field(bool, new_flowlet)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   __entry->plane = plane;
			   __entry->policy = policy;
			   __entry->hash = hash;
			   __entry->load = load;
			   __entry->new_flowlet = new_flowlet),
	    TP_printk("ifindex=%d plane=%u policy=%u hash=%#x load=%u new=%d",
		      __entry->ifindex, __entry->plane, __entry->policy,
		      __entry->hash, __entry->load, __entry->new_flowlet)
);

/*
 * The sampler's view of one plane (sampler.c), every sample interval:
 * q_bytes is the rail's qdisc backlog plus BQL bytes in flight, load the
 * score the balancer compares, and the counters are the cumulative
 * IFLA_MPLANE_PSTAT_* values.  bpf/kmtrace.bpf.c reads the arguments by
 * position: append, never reorder.
 */
TRACE_EVENT(plane_sample,
	    TP_PROTO(const struct net_device *dev, u32 plane, u64 q_bytes,
		     u64 tx_bytes, u64 ecn_ce, u64 cnp, u32 load),
	    TP_ARGS(dev, plane, q_bytes, tx_bytes, ecn_ce, cnp, load),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(u32, plane)
			     __field(u32, load)
			     __field(u64, q_bytes)
			     __field(u64, tx_bytes)
			     __field(u64, ecn_ce)
			     __field(u64, cnp)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->plane = plane;
			   __entry->load = load;
			   __entry->q_bytes = q_bytes;
			   __entry->tx_bytes = tx_bytes;
			   __entry->ecn_ce = ecn_ce;
			   __entry->cnp = cnp),
	    TP_printk("dev=%s plane=%u q_bytes=%llu tx_bytes=%llu ecn_ce=%llu cnp=%llu load=%u",
		      __entry->dev, __entry->plane, __entry->q_bytes,
		      __entry->tx_bytes, __entry->ecn_ce, __entry->cnp,
		      __entry->load)
);

/*
 * A QP's DCQCN rate changed (cc.c): a cut by a CNP that came in on
 * @plane, or an increase (@plane is U32_MAX then).  @cause is enum
 * mplane_rate_cause.  bpf/kmtrace.bpf.c reads the arguments by position:
 * append, never reorder.
 */
TRACE_EVENT(rate_update,
	    TP_PROTO(const struct net_device *dev, u32 plane, u32 qpn,
		     u32 new_kbps, u32 old_kbps, u8 cause),
	    TP_ARGS(dev, plane, qpn, new_kbps, old_kbps, cause),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, plane)
			     __field(u32, qpn)
			     __field(u32, new_kbps)
			     __field(u32, old_kbps)
			     __field(u8, cause)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   __entry->plane = plane;
			   __entry->qpn = qpn;
			   __entry->new_kbps = new_kbps;
			   __entry->old_kbps = old_kbps;
			   __entry->cause = cause),
	    TP_printk("ifindex=%d plane=%d qpn=%#x rate=%u old=%u cause=%u",
		      __entry->ifindex, (int)__entry->plane, __entry->qpn,
		      __entry->new_kbps, __entry->old_kbps, __entry->cause)
);

#endif /* _MPLANE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
