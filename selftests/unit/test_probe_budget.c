// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what probes may cost (kmod/probe_budget.c), run in user
 * space: the reply budget of MPLANE_PROBE_REPLY_BURST answers a plane per
 * millisecond, and the probe timer's floor of MPLANE_PROBE_NS_PER_PROBE
 * a probe sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe_budget.h"

#define TEST_ARGS void **state __attribute__((unused))

#define MS	1000000ULL
#define US	1000ULL

/* Requests at @now_ns, @count of them: how many were answered. */
static unsigned int take_n(u64 *budget, u64 now_ns, unsigned int count)
{
	unsigned int answered = 0;
	bool allowed;

	while (count--) {
		*budget = mplane_probe_reply_take(*budget, now_ns, &allowed);
		answered += allowed;
	}
	return answered;
}

/* A plane's first window: the budget starts at zero, as kzalloc leaves it. */
static void test_burst_then_refused(TEST_ARGS)
{
	u64 budget = 0, before;
	bool allowed;

	assert_int_equal(take_n(&budget, 5 * MS + 10, 128), 128);
	before = budget;
	budget = mplane_probe_reply_take(budget, 5 * MS + 11, &allowed);
	assert_false(allowed);
	assert_int_equal(budget, before);
	/* The rest of the same millisecond gets nothing more. */
	assert_int_equal(take_n(&budget, 5 * MS + 999 * US, 1000), 0);
}

static void test_next_window_starts_afresh(TEST_ARGS)
{
	u64 budget = 0;

	assert_int_equal(take_n(&budget, 7 * MS, 500), 128);
	assert_int_equal(take_n(&budget, 8 * MS, 500), 128);
	/* A window skipped over: still one burst, not two. */
	assert_int_equal(take_n(&budget, 10 * MS + 1, 500), 128);
}

/* At most 128 a millisecond, whatever the requests' spacing. */
static void test_rate_over_a_second(TEST_ARGS)
{
	unsigned int answered = 0;
	u64 budget = 0, t;

	/* A request every 2 us for a second: 500 a millisecond offered. */
	for (t = 3 * MS; t < 3 * MS + 1000 * MS; t += 2 * US)
		answered += take_n(&budget, t, 1);
	assert_int_equal(answered, 1000 * 128);
}

/* Under the budget, every request is answered. */
static void test_light_load_all_answered(TEST_ARGS)
{
	unsigned int answered = 0;
	u64 budget = 0, t;

	/* 64 peers every 50 us would be 1280 a ms; 100 a ms is not. */
	for (t = MS; t < 101 * MS; t += 10 * US)
		answered += take_n(&budget, t, 1);
	assert_int_equal(answered, 10000);
}

/* A clock far from zero: the window does not spill into the count. */
static void test_late_clock(TEST_ARGS)
{
	u64 budget = 0, now = 400ULL * 24 * 3600 * 1000 * MS;	/* 400 days */

	assert_int_equal(take_n(&budget, now, 200), 128);
	assert_int_equal(take_n(&budget, now + MS, 200), 128);
}

static void test_tick_floor(TEST_ARGS)
{
	/* Nothing sent, or little: the interval set. */
	assert_int_equal(mplane_probe_next_tick_ns(50 * US, 0), 50 * US);
	assert_int_equal(mplane_probe_next_tick_ns(50 * US, 5), 50 * US);
	/* 16 planes of 64 peers at the 50 us minimum: 10.24 ms. */
	assert_int_equal(mplane_probe_next_tick_ns(50 * US, 16 * 64), 10240 * US);
	/* An interval longer than the probes' cost stands. */
	assert_int_equal(mplane_probe_next_tick_ns(100 * MS, 16 * 64), 100 * MS);
	/* The floor is the cost exactly, from one probe past the interval. */
	assert_int_equal(mplane_probe_next_tick_ns(50 * US, 6), 60 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_refused),
		cmocka_unit_test(test_next_window_starts_afresh),
		cmocka_unit_test(test_rate_over_a_second),
		cmocka_unit_test(test_light_load_all_answered),
		cmocka_unit_test(test_late_clock),
		cmocka_unit_test(test_tick_floor),
	};

	return cmocka_run_group_tests_name("probe_budget", tests, NULL, NULL);
}
