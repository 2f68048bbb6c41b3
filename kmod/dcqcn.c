// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's reaction point (see dcqcn.h), in the paper's names: Rc the
 * current rate, Rt the target rate, alpha the estimate of congestion,
 * g its gain, K alpha's period, T the increase timer, B the byte counter's
 * step, F the number of fast-recovery stages, R_AI and R_HAI the
 * additive and hyper increase steps.
 *
 * Everything is integer arithmetic in u64 intermediates: rates reach
 * MPLANE_CC_RATE_KBPS_MAX (400 Gbit/s, under 2^29 kbit/s), so a rate
 * times a 2^21 fraction stays under 2^50.  Every loop is bounded by a
 * constant: the bits of a u64 or MPLANE_DCQCN_CATCHUP_MAX.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#endif

#include "dcqcn.h"

/* (1 - g), and the inputs in 1/1024, never past 1. */
#define MPLANE_DCQCN_ONE_SHIFT	10	/* MPLANE_CC_ALPHA_ONE is 2^10 */
/* The decay factor's own fixed point, finer than alpha's (see below). */
#define MPLANE_DCQCN_POW_SHIFT	30
#define MPLANE_DCQCN_POW_ONE	BIT_ULL(MPLANE_DCQCN_POW_SHIFT)

static u32 mplane_dcqcn_alpha_g(const struct mplane_dcqcn_params *p)
{
	return min_t(u32, p->alpha_g, MPLANE_CC_ALPHA_ONE);
}

/* Time from @since to @now; a clock that went back has let none pass. */
static u64 mplane_dcqcn_elapsed(u64 since, u64 now)
{
	return now > since ? now - since : 0;
}

void mplane_dcqcn_init(struct mplane_dcqcn *q,
		       const struct mplane_dcqcn_params *p, u64 now)
{
	u32 initial = min_t(u32, p->alpha_initial, MPLANE_CC_ALPHA_ONE);

	*q = (struct mplane_dcqcn) {
		.rc_kbps = p->max_kbps,
		.rt_kbps = p->max_kbps,
		.alpha = initial << (MPLANE_DCQCN_ALPHA_SHIFT -
				     MPLANE_DCQCN_ONE_SHIFT),
		.timer_ns = now,
		.alpha_ns = now,
	};
}

/*
 * x^k for x in 1/2^30 (x <= 1), by squaring: at most 64 rounds whatever
 * k is, and over as soon as the result or the base rounds to 0.  Each
 * product is rounded to nearest, so the error stays near 2^-30 per round
 * instead of drifting down; alpha's 2^-20 then sees none of it.
 */
static u64 mplane_dcqcn_pow(u64 x, u64 k)
{
	const u64 half = MPLANE_DCQCN_POW_ONE >> 1;
	u64 r = MPLANE_DCQCN_POW_ONE;

	while (k && r) {
		if (k & 1)
			r = (r * x + half) >> MPLANE_DCQCN_POW_SHIFT;
		k >>= 1;
		if (!k)
			break;
		x = (x * x + half) >> MPLANE_DCQCN_POW_SHIFT;
		if (!x)
			return 0;
	}
	return r;
}

/*
 * The paper's alpha timer: every K without a CNP, alpha = (1 - g) alpha.
 * The k periods due are taken at once, alpha = (1 - g)^k alpha, and
 * alpha_ns moves by whole periods so that the next one is still due on
 * time.  Before the first cut alpha stays alpha_initial: that is the
 * value ConnectX's initial_alpha_value gives a flow's first CNP, and a
 * QP that ran free for a second must not meet its first CNP with alpha
 * decayed to 0 (a cut of nothing).
 */
static void mplane_dcqcn_decay(struct mplane_dcqcn *q,
			       const struct mplane_dcqcn_params *p, u64 now)
{
	u64 k, f;

	if (!q->cut_ns || !p->alpha_period_ns) {
		q->alpha_ns = max_t(u64, q->alpha_ns, now);
		return;
	}
	k = div64_u64(mplane_dcqcn_elapsed(q->alpha_ns, now),
		      p->alpha_period_ns);
	if (!k)
		return;
	q->alpha_ns += k * p->alpha_period_ns;
	if (!q->alpha)
		return;
	f = mplane_dcqcn_pow((u64)mplane_dcqcn_alpha_g(p) <<
			     (MPLANE_DCQCN_POW_SHIFT - MPLANE_DCQCN_ONE_SHIFT), k);
	/* alpha <= 2^20 and f <= 2^30: the product is under 2^51. */
	q->alpha = (q->alpha * f + (MPLANE_DCQCN_POW_ONE >> 1)) >>
		   MPLANE_DCQCN_POW_SHIFT;
}

/*
 * A device whose line rate (max_kbps) fell takes its QPs down with it;
 * the clamp is not an increase event and is not counted.
 */
static void mplane_dcqcn_clamp(struct mplane_dcqcn *q,
			       const struct mplane_dcqcn_params *p)
{
	if (q->rt_kbps > p->max_kbps)
		q->rt_kbps = p->max_kbps;
	if (q->rc_kbps > p->max_kbps)
		q->rc_kbps = p->max_kbps;
}

/*
 * One rate-increase event, the stage counters already advanced.  The
 * paper's three phases:
 *   fast recovery, both stages <= F:   Rc = (Rt + Rc) / 2
 *   hyper increase, both stages > F:   Rt = Rt + i R_HAI, Rc = (Rt + Rc) / 2,
 *                                      i = min(stages) - F
 *   additive increase, otherwise:      Rt = Rt + R_AI, Rc = (Rt + Rc) / 2
 * Rt is held at the line rate.  The halving rounds up, so that Rc reaches
 * Rt (and the QP its line rate) instead of stalling 1 kbit/s short.
 * Returns whether Rc changed.
 */
static bool mplane_dcqcn_step(struct mplane_dcqcn *q,
			      const struct mplane_dcqcn_params *p)
{
	u32 hi = max_t(u32, q->timer_stage, q->byte_stage);
	u32 lo = min_t(u32, q->timer_stage, q->byte_stage);
	u64 rt = q->rt_kbps;
	u32 old = q->rc_kbps;
	u8 cause;

	if (hi <= p->threshold) {
		cause = MPLANE_RATE_FAST_RECOVERY;
	} else if (lo > p->threshold) {
		rt += (u64)(lo - p->threshold) * p->hai_kbps;
		cause = MPLANE_RATE_HYPER;
	} else {
		rt += p->ai_kbps;
		cause = MPLANE_RATE_ADDITIVE;
	}
	q->rt_kbps = min_t(u64, rt, p->max_kbps);
	/* Rc <= Rt <= max: the mean rounded up is at most Rt. */
	q->rc_kbps = ((u64)q->rt_kbps + q->rc_kbps + 1) >> 1;
	if (q->rc_kbps == old)
		return false;
	q->last_cause = cause;
	return true;
}

static u32 mplane_stage_inc(u32 stage)
{
	return stage == U32_MAX ? stage : stage + 1;
}

/*
 * The increase events due by @now: the timer's (every T since timer_ns)
 * first, as they fell before now, then the byte counter's (every B of
 * what was sent).  At most MPLANE_DCQCN_CATCHUP_MAX of them are taken;
 * the rest are dropped, the timer restarting at its last expiry.
 */
static u32 mplane_dcqcn_increase(struct mplane_dcqcn *q,
				 const struct mplane_dcqcn_params *p,
				 u32 bytes, u64 now)
{
	u64 timer_events = 0, byte_events = 0, sent;
	u32 i, changed = 0;

	if (p->time_reset_ns) {
		timer_events = div64_u64(mplane_dcqcn_elapsed(q->timer_ns, now),
					 p->time_reset_ns);
		q->timer_ns += timer_events * p->time_reset_ns;
	}
	sent = (u64)q->bytes + bytes;
	if (p->byte_reset) {
		byte_events = div_u64(sent, p->byte_reset);
		sent -= byte_events * p->byte_reset;
	} else {
		sent = 0;
	}
	q->bytes = sent;	/* < B, a u32 */

	for (i = 0; i < MPLANE_DCQCN_CATCHUP_MAX; i++) {
		if (timer_events) {
			timer_events--;
			q->timer_stage = mplane_stage_inc(q->timer_stage);
		} else if (byte_events) {
			byte_events--;
			q->byte_stage = mplane_stage_inc(q->byte_stage);
		} else {
			break;
		}
		changed += mplane_dcqcn_step(q, p);
		if (!mplane_dcqcn_limited(q, p)) {
			/* At the line rate: nothing left to count. */
			q->bytes = 0;
			break;
		}
	}
	return changed;
}

u32 mplane_dcqcn_sent(struct mplane_dcqcn *q,
		      const struct mplane_dcqcn_params *p, u32 bytes, u64 now)
{
	mplane_dcqcn_clamp(q, p);
	mplane_dcqcn_decay(q, p, now);
	if (!mplane_dcqcn_limited(q, p)) {
		/* rc == max: Rt, never below Rc, is there too. */
		q->rt_kbps = p->max_kbps;
		q->timer_ns = max_t(u64, q->timer_ns, now);
		q->bytes = 0;
		return 0;
	}
	return mplane_dcqcn_increase(q, p, bytes, now);
}

/*
 * The paper's reaction to a CNP:
 *   Rt = Rc
 *   Rc = Rc (1 - alpha / 2)
 *   alpha = (1 - g) alpha + g
 * and both increase counters and alpha's timer restart.  ConnectX bounds
 * the cut: Rc keeps at least min_dec_fac % of itself (rpg_min_dec_fac)
 * and never goes below min_kbps (rpg_min_rate).  A CNP within
 * reduce_period_ns of the last cut (rate_reduce_monitor_period) is
 * ignored: those CNPs report the congestion the cut already answered.
 */
bool mplane_dcqcn_cnp(struct mplane_dcqcn *q,
		      const struct mplane_dcqcn_params *p, u64 now)
{
	u32 g_inv = mplane_dcqcn_alpha_g(p);
	u32 dec_fac = min_t(u32, p->min_dec_fac, 100);
	u64 rc, floor;

	mplane_dcqcn_sent(q, p, 0, now);
	if (q->cut_ns &&
	    mplane_dcqcn_elapsed(q->cut_ns, now) < p->reduce_period_ns)
		return false;

	q->rt_kbps = q->rc_kbps;
	/* Rc (1 - alpha / 2) = Rc (2 - alpha) / 2, alpha <= 1: under 2^50. */
	rc = ((u64)q->rc_kbps *
	      (2 * MPLANE_DCQCN_ALPHA_SCALE - min_t(u32, q->alpha,
						   MPLANE_DCQCN_ALPHA_SCALE))) >>
	     (MPLANE_DCQCN_ALPHA_SHIFT + 1);
	floor = div_u64((u64)q->rc_kbps * dec_fac, 100);
	rc = max_t(u64, rc, floor);
	rc = max_t(u64, rc, p->min_kbps);
	/* A minimum above the current rate does not make a cut raise it. */
	q->rc_kbps = min_t(u64, rc, q->rc_kbps);

	/*
	 * (1 - g) alpha + g, (1 - g) in 1/1024: alpha (1 - g) is rounded to
	 * nearest, and alpha = 1 stays exactly 1.
	 */
	q->alpha = (((u64)q->alpha * g_inv + (MPLANE_CC_ALPHA_ONE >> 1)) >>
		    MPLANE_DCQCN_ONE_SHIFT) +
		   ((MPLANE_CC_ALPHA_ONE - g_inv) <<
		    (MPLANE_DCQCN_ALPHA_SHIFT - MPLANE_DCQCN_ONE_SHIFT));

	q->timer_stage = 0;
	q->byte_stage = 0;
	q->bytes = 0;
	q->timer_ns = now;
	q->alpha_ns = now;
	/* 0 means never cut: a cut at time 0 is recorded 1 ns late. */
	q->cut_ns = now ? now : 1;
	q->last_cause = MPLANE_RATE_CUT;
	return true;
}

/* bytes * 8 / (kbit/s) in ns, rounded up so pacing never beats the rate. */
u64 mplane_dcqcn_tx_ns(const struct mplane_dcqcn *q, u32 bytes)
{
	u32 rc = q->rc_kbps ? q->rc_kbps : 1;

	/* bytes < 2^32 times 8e6 < 2^23: under 2^55. */
	return div_u64((u64)bytes * 8000000ULL + rc - 1, rc);
}
