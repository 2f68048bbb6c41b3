// SPDX-License-Identifier: GPL-2.0
/* Unit tests for kmod/plane_fsm.c: plane state and reason from facts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "plane_fsm.h"

static const struct mplane_plane_facts healthy = {
	.running = true,
	.master_up = true,
	.admin = MPLANE_ADMIN_UP,
};

static void expect(const struct mplane_plane_facts *f, int state, int reason)
{
	struct mplane_plane_status st = mplane_plane_eval(f);

	assert_int_equal(st.state, state);
	assert_int_equal(st.reason, reason);
}

static void test_healthy_plane_is_up(void **state)
{
	(void)state;
	expect(&healthy, MPLANE_PLANE_UP, MPLANE_REASON_NONE);
	assert_true(mplane_state_usable(MPLANE_PLANE_UP));
}

static void test_each_fact_alone(void **state)
{
	struct mplane_plane_facts f;

	(void)state;
	f = healthy;
	f.running = false;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_CARRIER);
	f = healthy;
	f.master_up = false;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_MASTER_DOWN);
	f = healthy;
	f.holding_down = true;
	expect(&f, MPLANE_PLANE_PROBING, MPLANE_REASON_HOLDDOWN);
	f = healthy;
	f.probes_lost = true;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_PROBE_MISS);
	f = healthy;
	f.congested = true;
	expect(&f, MPLANE_PLANE_CONGESTED, MPLANE_REASON_ECN);
	f = healthy;
	f.admin = MPLANE_ADMIN_DRAIN;
	expect(&f, MPLANE_PLANE_ADMIN_DOWN, MPLANE_REASON_ADMIN);
	f.admin = MPLANE_ADMIN_DOWN;
	expect(&f, MPLANE_PLANE_ADMIN_DOWN, MPLANE_REASON_ADMIN);
}

static void test_priority(void **state)
{
	struct mplane_plane_facts f = healthy;

	(void)state;
	f.congested = true;
	f.probes_lost = true;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_PROBE_MISS);
	f.holding_down = true;
	expect(&f, MPLANE_PLANE_PROBING, MPLANE_REASON_HOLDDOWN);
	f.master_up = false;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_MASTER_DOWN);
	f.running = false;
	expect(&f, MPLANE_PLANE_DOWN, MPLANE_REASON_CARRIER);
	f.admin = MPLANE_ADMIN_DOWN;
	expect(&f, MPLANE_PLANE_ADMIN_DOWN, MPLANE_REASON_ADMIN);
}

static void test_usable_states(void **state)
{
	(void)state;
	assert_true(mplane_state_usable(MPLANE_PLANE_CONGESTED));
	assert_false(mplane_state_usable(MPLANE_PLANE_DOWN));
	assert_false(mplane_state_usable(MPLANE_PLANE_PROBING));
	assert_false(mplane_state_usable(MPLANE_PLANE_ADMIN_DOWN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_plane_is_up),
		cmocka_unit_test(test_each_fact_alone),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_usable_states),
	};

	return cmocka_run_group_tests_name("plane_fsm", tests, NULL, NULL);
}
