/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plane state machine's decision, as pure logic: from what is known
 * about a plane (carrier, hold-down, probes, congestion, admin), its state
 * and the reason for it.  plane_fsm.c is built into mplane.ko and into the
 * user-space unit tests; the kernel side (state.c) gathers the facts,
 * stores the result and reports transitions.
 */
#ifndef _MPLANE_PLANE_FSM_H
#define _MPLANE_PLANE_FSM_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

#include "linux/mplane.h"

struct mplane_plane_facts {
	bool running;		/* rail is up and has carrier */
	bool master_up;		/* the mplane device itself is up */
	bool holding_down;	/* carrier is back, hold-down not over */
	bool probes_lost;	/* every probed peer stopped answering */
	bool congested;		/* congestion score over the threshold */
	u8 admin;		/* enum mplane_plane_admin */
};

struct mplane_plane_status {
	u8 state;		/* enum mplane_plane_state */
	u8 reason;		/* enum mplane_plane_reason */
};

struct mplane_plane_status
mplane_plane_eval(const struct mplane_plane_facts *facts);

/* May the plane take new flowlets and per-packet choices? */
static inline bool mplane_state_usable(u8 state)
{
	return state == MPLANE_PLANE_UP || state == MPLANE_PLANE_CONGESTED;
}

#endif /* _MPLANE_PLANE_FSM_H */
