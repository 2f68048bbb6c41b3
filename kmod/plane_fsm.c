// SPDX-License-Identifier: GPL-2.0
/*
 * Plane state from plane facts (see plane_fsm.h).  The order of the checks
 * is the design: the reason shown is the one an operator should act on
 * first.  Their own decision (admin) comes first, then a dead link, then a
 * master that is down, then the wait after a recovery, then silent
 * failure seen by probes, and congestion, which only deprioritises, last.
 */
#include "plane_fsm.h"

struct mplane_plane_status
mplane_plane_eval(const struct mplane_plane_facts *facts)
{
	struct mplane_plane_status st = {
		.state = MPLANE_PLANE_UP,
		.reason = MPLANE_REASON_NONE,
	};

	if (facts->admin != MPLANE_ADMIN_UP) {
		st.state = MPLANE_PLANE_ADMIN_DOWN;
		st.reason = MPLANE_REASON_ADMIN;
	} else if (!facts->running) {
		st.state = MPLANE_PLANE_DOWN;
		st.reason = MPLANE_REASON_CARRIER;
	} else if (!facts->master_up) {
		st.state = MPLANE_PLANE_DOWN;
		st.reason = MPLANE_REASON_MASTER_DOWN;
	} else if (facts->holding_down) {
		st.state = MPLANE_PLANE_PROBING;
		st.reason = MPLANE_REASON_HOLDDOWN;
	} else if (facts->probes_lost) {
		st.state = MPLANE_PLANE_DOWN;
		st.reason = MPLANE_REASON_PROBE_MISS;
	} else if (facts->congested) {
		st.state = MPLANE_PLANE_CONGESTED;
		st.reason = MPLANE_REASON_ECN;
	}
	return st;
}
