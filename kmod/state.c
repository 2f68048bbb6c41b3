// SPDX-License-Identifier: GPL-2.0
/*
 * The plane state machine: gather a plane's facts, let plane_fsm.c decide
 * its state, and when it changes, update the masks the datapath reads,
 * count it, trace it and announce it over rtnetlink.
 *
 * Every fact changes under mp->state_lock, from the netdev notifier
 * (carrier), timers (hold-down, congestion decay), the probe timer and
 * rtnetlink (admin).  Nothing here polls: each source reports as it sees.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "balance.h"
#include "compat.h"
#include "mplane.h"
#include "plane_fsm.h"
#include "trace.h"

/* How often a congested plane's decaying score is looked at again. */
#define MPLANE_CONG_RECHECK	msecs_to_jiffies(2)

static bool mplane_rail_running(const struct net_device *rail)
{
	return netif_running(rail) && netif_carrier_ok(rail);
}

/*
 * Recompute the masks from every plane's state.  mp0 has carrier while at
 * least one plane can carry traffic, as a bond has while a slave can.
 */
static void mplane_masks_update(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	u32 usable = 0, carry = 0;
	int i;

	lockdep_assert_held(&mp->state_lock);
	rcu_read_lock();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rcu_dereference(mp->planes[i]);
		if (!plane || plane->dying)
			continue;
		if (mplane_state_usable(plane->state))
			usable |= BIT(i);
		else if (plane->admin == MPLANE_ADMIN_DRAIN &&
			 mplane_rail_running(plane->rail))
			carry |= BIT(i);
	}
	rcu_read_unlock();
	WRITE_ONCE(mp->usable_mask, usable);
	WRITE_ONCE(mp->carry_mask, usable | carry);
	if (usable && !netif_carrier_ok(mp->dev))
		netif_carrier_on(mp->dev);
	else if (!usable && netif_carrier_ok(mp->dev))
		netif_carrier_off(mp->dev);
}

static void mplane_announce(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;

	set_bit(plane->index, &mp->notify_pending);
	mod_delayed_work(mplane_compat_unbound_wq(), &mp->notify_work, 0);
}

/* Decide @plane's state from its facts; report a change.  state_lock held. */
static void mplane_plane_eval_locked(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;
	struct mplane_plane_facts facts = {
		.running = mplane_rail_running(plane->rail),
		.master_up = netif_running(mp->dev),
		.holding_down = plane->holding_down,
		.probes_lost = plane->probes_lost,
		.congested = plane->congested,
		.admin = plane->admin,
	};
	struct mplane_plane_status st = mplane_plane_eval(&facts);
	u8 old = plane->state;

	lockdep_assert_held(&mp->state_lock);
	if (st.state == old && st.reason == plane->reason)
		return;
	WRITE_ONCE(plane->state, st.state);
	WRITE_ONCE(plane->reason, st.reason);
	mplane_masks_update(mp);
	mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_STATE_CHANGES, 1);
	trace_plane_state(mp->dev, plane->rail, plane->index, old, st.state,
			  st.reason);
	if (mplane_state_usable(old) && !mplane_state_usable(st.state)) {
		mplane_pstat_add(plane, IFLA_MPLANE_PSTAT_FAILOVERS, 1);
		trace_failover(mp->dev, plane->index, st.reason,
			       READ_ONCE(mp->usable_mask));
	}
	mplane_announce(plane);
}

static void mplane_holddown_expired(struct timer_list *t)
{
	struct mplane_plane *plane = mplane_timer_container_of(plane, t, holddown_timer);
	struct mplane_dev *mp = plane->mp;

	spin_lock_bh(&mp->state_lock);
	if (!plane->dying) {
		plane->holding_down = false;
		mplane_plane_eval_locked(plane);
	}
	spin_unlock_bh(&mp->state_lock);
}

/*
 * A congested plane stays deprioritised until its decaying score falls
 * to half the threshold: the hysteresis keeps a plane at the edge from
 * flapping with every mark.
 */
static void mplane_cong_recheck(struct timer_list *t)
{
	struct mplane_plane *plane = mplane_timer_container_of(plane, t, cong_timer);
	struct mplane_dev *mp = plane->mp;
	u64 now = ktime_get_ns(), score;

	score = mplane_decay(READ_ONCE(plane->cong_score),
			     now - READ_ONCE(plane->cong_stamp),
			     READ_ONCE(mp->cong_halflife_ns));
	if (score * 2 > READ_ONCE(mp->cong_threshold)) {
		spin_lock_bh(&mp->state_lock);
		if (!plane->dying)
			mod_timer(&plane->cong_timer,
				  jiffies + MPLANE_CONG_RECHECK);
		spin_unlock_bh(&mp->state_lock);
		return;
	}
	mplane_state_set_congested(plane, false);
}

/* Carrier or admin state of the rail changed (netdev notifier, RTNL). */
void mplane_state_rail_event(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;
	bool running = mplane_rail_running(plane->rail);
	u32 holddown_ms = READ_ONCE(mp->holddown_ms);

	/* Fresh news about the rail supersedes the datapath's guess. */
	WRITE_ONCE(plane->refused_until, 0);
	spin_lock_bh(&mp->state_lock);
	if (running && !plane->was_running && holddown_ms) {
		/* Back from a failure: wait before trusting it again. */
		plane->holding_down = true;
		mod_timer(&plane->holddown_timer,
			  jiffies + msecs_to_jiffies(holddown_ms));
	} else if (!running) {
		plane->holding_down = false;
		timer_delete(&plane->holddown_timer);
	}
	plane->was_running = running;
	mplane_plane_eval_locked(plane);
	spin_unlock_bh(&mp->state_lock);
}

void mplane_state_set_admin(struct mplane_plane *plane, u8 admin)
{
	struct mplane_dev *mp = plane->mp;

	spin_lock_bh(&mp->state_lock);
	plane->admin = admin;
	mplane_plane_eval_locked(plane);
	/* A drained plane leaves carry_mask when nothing keeps it there. */
	mplane_masks_update(mp);
	spin_unlock_bh(&mp->state_lock);
}

void mplane_state_set_probes_lost(struct mplane_plane *plane, bool lost)
{
	struct mplane_dev *mp = plane->mp;

	spin_lock_bh(&mp->state_lock);
	if (!plane->dying && plane->probes_lost != lost) {
		plane->probes_lost = lost;
		mplane_plane_eval_locked(plane);
	}
	spin_unlock_bh(&mp->state_lock);
}

void mplane_state_set_congested(struct mplane_plane *plane, bool congested)
{
	struct mplane_dev *mp = plane->mp;

	spin_lock_bh(&mp->state_lock);
	if (!plane->dying && plane->congested != congested) {
		WRITE_ONCE(plane->congested, congested);
		if (congested)
			mod_timer(&plane->cong_timer,
				  jiffies + MPLANE_CONG_RECHECK);
		mplane_plane_eval_locked(plane);
	}
	spin_unlock_bh(&mp->state_lock);
}

/* mp0 went up or down, or a setting changed: look at every plane. */
void mplane_state_eval_all(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	int i;

	spin_lock_bh(&mp->state_lock);
	rcu_read_lock();
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rcu_dereference(mp->planes[i]);
		if (plane && !plane->dying)
			mplane_plane_eval_locked(plane);
	}
	rcu_read_unlock();
	mplane_masks_update(mp);
	spin_unlock_bh(&mp->state_lock);
}

void mplane_state_plane_init(struct mplane_plane *plane)
{
	timer_setup(&plane->holddown_timer, mplane_holddown_expired, 0);
	timer_setup(&plane->cong_timer, mplane_cong_recheck, 0);
	plane->admin = MPLANE_ADMIN_UP;
	plane->was_running = mplane_rail_running(plane->rail);
	/* Not yet published: a new plane starts from "down" and is evaluated
	 * once visible, so its first state is reported like any other.
	 */
	plane->state = MPLANE_PLANE_DOWN;
	plane->reason = MPLANE_REASON_NONE;
}

/*
 * The plane is unpublished and no receive handler can run for it any
 * more; stop its timers for good.  Its bit leaves the masks here.
 */
void mplane_state_plane_uninit(struct mplane_plane *plane)
{
	struct mplane_dev *mp = plane->mp;

	spin_lock_bh(&mp->state_lock);
	plane->dying = true;
	mplane_masks_update(mp);
	spin_unlock_bh(&mp->state_lock);
	timer_delete_sync(&plane->holddown_timer);
	timer_delete_sync(&plane->cong_timer);
}

/*
 * Announce changed planes as RTM_NEWLINK of their rails, which is what
 * `mplanectl link monitor` and `ip monitor link` listen to.  The work
 * never sleeps on RTNL, so ndo_uninit (which holds it) can cancel it.
 */
static void mplane_notify_work(struct work_struct *work)
{
	struct mplane_dev *mp = container_of(to_delayed_work(work),
					     struct mplane_dev, notify_work);
	struct mplane_plane *plane;
	int i;

	if (!rtnl_trylock()) {
		queue_delayed_work(mplane_compat_unbound_wq(), &mp->notify_work, 1);
		return;
	}
	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!test_and_clear_bit(i, &mp->notify_pending))
			continue;
		plane = rtnl_dereference(mp->planes[i]);
		/* rtnetlink turns this into RTM_NEWLINK for the rail. */
		if (plane)
			call_netdevice_notifiers(NETDEV_CHANGEINFODATA,
						 plane->rail);
	}
	rtnl_unlock();
}

void mplane_state_init(struct mplane_dev *mp)
{
	spin_lock_init(&mp->state_lock);
	INIT_DELAYED_WORK(&mp->notify_work, mplane_notify_work);
}

void mplane_state_uninit(struct mplane_dev *mp)
{
	cancel_delayed_work_sync(&mp->notify_work);
}
