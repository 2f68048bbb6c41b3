/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN's reaction point, as pure logic: one QP's rate state and what a
 * CNP, the passing of time and the bytes sent do to it (Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
 * with ConnectX's parameters).  dcqcn.c is built into mplane.ko and into
 * the user-space unit tests; cc.c keeps the per-QP table, takes the
 * locks, paces and reports.
 *
 * The paper's timers (alpha's K, the rate-increase timer T) run per QP.
 * Here they are evaluated lazily: every call first applies the timer
 * expiries due by @now, in order, so no QP needs a kernel timer.
 *
 * Rates are kbit/s; alpha is in 1/MPLANE_DCQCN_ALPHA_SCALE.
 */
#ifndef _MPLANE_DCQCN_H
#define _MPLANE_DCQCN_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#endif

#include "linux/mplane.h"

/* alpha's fixed point: 1.0 is 2^20, finer than the 1/1024 of its inputs. */
#define MPLANE_DCQCN_ALPHA_SHIFT	20
#define MPLANE_DCQCN_ALPHA_SCALE	((u32)BIT(MPLANE_DCQCN_ALPHA_SHIFT))
/*
 * At most this many rate-increase events are applied in one call: a QP
 * that was idle for a long time resumes with this many steps taken, and
 * the timer's later expiries are not replayed.
 */
#define MPLANE_DCQCN_CATCHUP_MAX	64

/* The device's settings, converted once under RTNL (see uapi's _CC_). */
struct mplane_dcqcn_params {
	u32 max_kbps;		/* the line rate: no QP goes above */
	u32 min_kbps;
	u32 ai_kbps;		/* R_AI */
	u32 hai_kbps;		/* R_HAI */
	u64 time_reset_ns;	/* T; 0: no timer events */
	u32 byte_reset;		/* B; 0: no byte events */
	u32 threshold;		/* F */
	u32 alpha_g;		/* 1 - g, in 1/MPLANE_CC_ALPHA_ONE */
	u64 alpha_period_ns;	/* K; 0: alpha never decays */
	u32 alpha_initial;	/* in 1/MPLANE_CC_ALPHA_ONE */
	u64 reduce_period_ns;	/* least time between two cuts */
	u32 min_dec_fac;	/* a cut keeps at least this % of Rc */
};

struct mplane_dcqcn {
	u32 rc_kbps;		/* current rate, Rc */
	u32 rt_kbps;		/* target rate, Rt */
	u32 alpha;		/* in 1/MPLANE_DCQCN_ALPHA_SCALE */
	u32 timer_stage;	/* T's expiries since the last cut */
	u32 byte_stage;		/* B's since the last cut */
	u32 bytes;		/* sent since the byte counter's last event */
	u64 cut_ns;		/* the last cut; 0 before the first */
	u64 timer_ns;		/* the increase timer's last (re)start */
	u64 alpha_ns;		/* alpha's last update */
	u8 last_cause;		/* enum mplane_rate_cause of the last change */
};

/*
 * A QP at the line rate, never cut: nothing limits it.  alpha holds at
 * alpha_initial until the first cut (ConnectX's initial_alpha_value is
 * what a flow's first CNP meets) and decays only after it.
 */
void mplane_dcqcn_init(struct mplane_dcqcn *q,
		       const struct mplane_dcqcn_params *p, u64 now);

/*
 * A CNP for the QP at @now.  First applies what is due by @now (as
 * mplane_dcqcn_sent(q, p, 0, now)); then returns true when it cut the
 * rate, and false, changing nothing more, for a CNP within
 * reduce_period_ns of the last cut.  A cut may leave Rc where it was (at
 * min_kbps already) and still restarts alpha's timer and the stages.
 */
bool mplane_dcqcn_cnp(struct mplane_dcqcn *q,
		      const struct mplane_dcqcn_params *p, u64 now);

/*
 * The QP sends @bytes at @now (0 to only let time pass).  Clamps Rc and
 * Rt to a max_kbps that fell (not counted as an event), applies alpha's
 * decay and the rate-increase events due, and returns how many increase
 * events changed the rate (q->last_cause says the last one's kind).
 */
u32 mplane_dcqcn_sent(struct mplane_dcqcn *q,
		      const struct mplane_dcqcn_params *p, u32 bytes, u64 now);

/* Is the QP below the line rate, so that it must be paced? */
static inline bool mplane_dcqcn_limited(const struct mplane_dcqcn *q,
					const struct mplane_dcqcn_params *p)
{
	return q->rc_kbps < p->max_kbps;
}

/* Nanoseconds that @bytes take at the QP's current rate, rounded up. */
u64 mplane_dcqcn_tx_ns(const struct mplane_dcqcn *q, u32 bytes);

#endif /* _MPLANE_DCQCN_H */
