// SPDX-License-Identifier: GPL-2.0
/*
 * The plane sampler: every IFLA_MPLANE_SAMPLE_INTERVAL_US, one
 * mplane:plane_sample event per plane with the numbers the balancer
 * itself works from (the rail's queue, the load score) and the plane's
 * cumulative counters.  Those live behind RCU in this module, where BPF
 * on 6.1 cannot read them without module kfuncs, so the module samples
 * and BPF (bpf/kmtrace.bpf.c) relays the tracepoint into the event ring.
 *
 * The timer is a soft hrtimer: it fires in softirq, where the RCU-bh
 * reads of the datapath are allowed, with microsecond resolution that a
 * timer_list's jiffies cannot give.  It is armed only while the interval
 * is non-zero and re-arms without sampling while nobody listens.
 */
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "mplane.h"
#include "trace.h"

static void mplane_sample_planes(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	u64 queued;
	u32 load;
	int i;

	rcu_read_lock_bh();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rcu_dereference_bh(mp->planes[i]);
		if (!plane)
			continue;
		load = mplane_plane_load_queued(plane, &queued);
		trace_plane_sample(mp->dev, plane->index, queued,
				   mplane_pstat_read(plane, IFLA_MPLANE_PSTAT_TX_BYTES),
				   mplane_pstat_read(plane, IFLA_MPLANE_PSTAT_ECN_CE),
				   mplane_pstat_read(plane, IFLA_MPLANE_PSTAT_CNP),
				   load);
	}
	rcu_read_unlock_bh();
}

static enum hrtimer_restart mplane_sample_tick(struct hrtimer *timer)
{
	struct mplane_dev *mp = container_of(timer, struct mplane_dev,
					     sample_timer);
	u32 us = READ_ONCE(mp->sample_interval_us);
	ktime_t due = hrtimer_get_expires(timer), now, floor;

	if (!us)
		return HRTIMER_NORESTART;
	if (trace_plane_sample_enabled())
		mplane_sample_planes(mp);
	now = ktime_get();
	/*
	 * On the interval's grid, from now: a late tick skips the samples
	 * it missed rather than firing them back to back.
	 */
	hrtimer_forward(timer, now, ns_to_ktime((u64)us * NSEC_PER_USEC));
	/*
	 * And never sooner than this tick took, from when it was due to now
	 * (interrupt and softirq latency included), so that an interval
	 * finer than the CPU can follow (10 us on a slow or emulated CPU)
	 * costs at most about half of it instead of starving everything
	 * else; the sample rate drops instead.
	 */
	floor = ktime_add(now, ktime_sub(now, due));
	if (ktime_before(hrtimer_get_expires(timer), floor))
		hrtimer_set_expires(timer, floor);
	return HRTIMER_RESTART;
}

/*
 * Start, restart at a new interval, or stop.  Under RTNL, on a registered
 * device: the first tick may come before the caller returns.
 */
void mplane_sampler_restart(struct mplane_dev *mp)
{
	u32 us = READ_ONCE(mp->sample_interval_us);

	ASSERT_RTNL();
	hrtimer_cancel(&mp->sample_timer);
	if (us)
		hrtimer_start(&mp->sample_timer,
			      ns_to_ktime((u64)us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
}

void mplane_sampler_init(struct mplane_dev *mp)
{
	mplane_compat_hrtimer_setup(&mp->sample_timer, mplane_sample_tick,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
}

/* Before the planes and the device it reads go away. */
void mplane_sampler_uninit(struct mplane_dev *mp)
{
	hrtimer_cancel(&mp->sample_timer);
}
