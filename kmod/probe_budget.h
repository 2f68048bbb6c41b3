/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What liveness probes may cost a device, as pure logic shared with the
 * unit tests (selftests/unit/test_probe_budget.c): a budget of answers a
 * plane per window, so that a flood of requests cannot make a device a
 * reflector, and the wait before the probe timer's next tick, so that
 * many planes times many peers cannot keep a CPU busy sending probes.
 * probe.c applies them.
 */
#ifndef _MPLANE_PROBE_BUDGET_H
#define _MPLANE_PROBE_BUDGET_H

#ifdef __KERNEL__
#include <linux/time64.h>
#include <linux/types.h>
#endif

#define MPLANE_PROBE_REPLY_WINDOW_NS	1000000ULL	/* 1 ms */
#define MPLANE_PROBE_REPLY_BURST	128	/* answers a plane, a window */
#define MPLANE_PROBE_NS_PER_PROBE	10000ULL	/* the tick's floor, per probe */

/*
 * A plane's reply budget is one u64, so that a CPU takes from it with
 * one compare-and-exchange: the window of the last answer (time in
 * windows) above MPLANE_PROBE_REPLY_USED_BITS bits of answers given in it.
 */
#define MPLANE_PROBE_REPLY_USED_BITS	8

u64 mplane_probe_reply_take(u64 budget, u64 now_ns, bool *allowed);
u64 mplane_probe_next_tick_ns(u64 interval_ns, u64 probes_sent);

#endif /* _MPLANE_PROBE_BUDGET_H */
