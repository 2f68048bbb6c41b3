// SPDX-License-Identifier: GPL-2.0
/*
 * The probes' cost limits (see probe_budget.h): integer arithmetic on
 * values the caller owns, with no clock and no lock of its own.
 */
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#endif

#include "probe_budget.h"

#define MPLANE_PROBE_REPLY_USED_MASK \
	((1ULL << MPLANE_PROBE_REPLY_USED_BITS) - 1)

/*
 * Take one answer from @budget at @now_ns.  Returns the budget to store,
 * and says in @allowed whether the request may be answered.  A new
 * window starts with none used; a refusal leaves the budget as it was.
 */
u64 mplane_probe_reply_take(u64 budget, u64 now_ns, bool *allowed)
{
	u64 window = div64_u64(now_ns, MPLANE_PROBE_REPLY_WINDOW_NS);
	u64 used = budget & MPLANE_PROBE_REPLY_USED_MASK;

	BUILD_BUG_ON(MPLANE_PROBE_REPLY_BURST > MPLANE_PROBE_REPLY_USED_MASK);
	if ((budget >> MPLANE_PROBE_REPLY_USED_BITS) != window)
		used = 0;
	*allowed = used < MPLANE_PROBE_REPLY_BURST;
	if (!*allowed)
		return budget;
	return (window << MPLANE_PROBE_REPLY_USED_BITS) | (used + 1);
}

/*
 * The time to the probe timer's next tick, once it sent @probes_sent:
 * the interval set, or longer when the probes cost more than that, so
 * that 16 planes of 64 peers are 1024 probes every 10.24 ms, not every
 * 50 us.
 */
u64 mplane_probe_next_tick_ns(u64 interval_ns, u64 probes_sent)
{
	return max_t(u64, interval_ns,
		     probes_sent * MPLANE_PROBE_NS_PER_PROBE);
}
