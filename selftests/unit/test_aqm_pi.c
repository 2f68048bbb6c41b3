// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/include/mp_aqm_pi.h, the switch's PI marking
 * (bpf attach --aqm pi): each gain's step against RFC 8033's equation
 * worked by hand, the bounds, the fade of an empty queue, the burst
 * allowance, and a fluid queue that the controller holds at its target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/types.h>

#include "mp_aqm_pi.h"

#define TEST_ARGS void **state __attribute__((unused))

#define MS	1000000ULL

static const struct mp_pi_params pie = {
	.target_ns = 15 * MS, .alpha_mhz = 125, .beta_mhz = 1250,
};

/* At the target and not moving: nothing to correct. */
static void test_pi_still_at_target(TEST_ARGS)
{
	assert_int_equal(mp_pi_step(&pie, 1000, 15 * MS, 15 * MS), 1000);
	assert_int_equal(mp_pi_step(&pie, 0, 15 * MS, 15 * MS), 0);
}

/* 10 ms over the target, not moving: alpha x 0.01 s = 0.00125, which is
 * 81.92 of 65536, truncated. */
static void test_pi_integral_step(TEST_ARGS)
{
	assert_int_equal(mp_pi_step(&pie, 1000, 25 * MS, 25 * MS), 1081);
	/* And as much down, 10 ms under it. */
	assert_int_equal(mp_pi_step(&pie, 1000, 5 * MS, 5 * MS), 919);
}

/* At the target, grown by 4 ms: beta x 0.004 s = 0.005, 327.68. */
static void test_pi_proportional_step(TEST_ARGS)
{
	assert_int_equal(mp_pi_step(&pie, 1000, 15 * MS, 11 * MS), 1327);
	assert_int_equal(mp_pi_step(&pie, 1000, 15 * MS, 19 * MS), 673);
}

/* Draining from 30 to 25 ms with a target of 10: still over the target,
 * but the fall (beta x 5 ms = 0.00625) outweighs the excess (alpha x 15
 * ms = 0.001875), so the probability goes down, where RED's would stay
 * up until the queue reached Kmin. */
static void test_pi_draining_queue_marks_less(TEST_ARGS)
{
	const struct mp_pi_params pp = {
		.target_ns = 10 * MS, .alpha_mhz = 125, .beta_mhz = 1250,
	};

	assert_int_equal(mp_pi_step(&pp, 1000, 25 * MS, 30 * MS), 1000 - 286);
}

/* The probability stays in [0, one]. */
static void test_pi_bounds(TEST_ARGS)
{
	assert_int_equal(mp_pi_step(&pie, MP_PI_ONE - 10, 100 * MS, 15 * MS),
			 MP_PI_ONE);
	assert_int_equal(mp_pi_step(&pie, 10, 0, 15 * MS), 0);
}

/* The largest gains and delays neither overflow nor wrap. */
static void test_pi_largest_values(TEST_ARGS)
{
	const struct mp_pi_params pp = {
		.target_ns = UINT64_MAX, .alpha_mhz = MP_PI_GAIN_MAX,
		.beta_mhz = MP_PI_GAIN_MAX,
	};

	assert_int_equal(mp_pi_step(&pp, 0, UINT64_MAX, 0), MP_PI_ONE);
	assert_int_equal(mp_pi_step(&pp, MP_PI_ONE, 0, UINT64_MAX), 0);
	/* A delay past the clamp counts as the clamp. */
	assert_int_equal(mp_pi_step(&pie, 1000, UINT64_MAX, UINT64_MAX),
			 mp_pi_step(&pie, 1000, MP_PI_DELAY_MAX_NS,
				    MP_PI_DELAY_MAX_NS));
}

/* An empty queue two periods running loses a 64th besides the integral
 * (15 ms under the target: 122.88). */
static void test_pi_empty_queue_fades(TEST_ARGS)
{
	assert_int_equal(mp_pi_step(&pie, 6400, 0, 0), 6400 - 100 - 122);
	/* Empty now but not before: no fade, the fall of 1 ms is the
	 * proportional term's (0.001875 + 0.00125, 204.8 together). */
	assert_int_equal(mp_pi_step(&pie, 6400, 0, 1 * MS), 6400 - 204);
}

/* Under half the target, no mark whatever the probability. */
static void test_pi_burst_allowance(TEST_ARGS)
{
	assert_false(mp_pi_may_mark(&pie, 7499999));
	assert_true(mp_pi_may_mark(&pie, 7500000));
	assert_true(mp_pi_may_mark(&pie, 100 * MS));
}

/*
 * A fluid queue at 500 bytes a ms (4 Mbit/s) fed by senders that slow
 * as the marks rise: 1.2 times the link unmarked, the link at 10%.
 * From empty, the controller finds the 10% and holds the delay at its
 * target, which RED can only do for the one load its slope was set for.
 */
static void test_pi_holds_fluid_queue_at_target(TEST_ARGS)
{
	const double link = 500, period_ms = 15;
	double q = 0, sum_delay = 0, sum_p = 0;
	__u64 delay_old = 0;
	__u32 p = 0;
	int i, n = 0;

	for (i = 0; i < 4000; i++) {
		double in = link * (1.2 - 2.0 * p / MP_PI_ONE);
		__u64 delay;

		q += (in - link) * period_ms;
		if (q < 0)
			q = 0;
		delay = (__u64)(q / link * MS);
		p = mp_pi_step(&pie, p, delay, delay_old);
		delay_old = delay;
		if (i >= 3600) {
			sum_delay += delay;
			sum_p += p;
			n++;
		}
	}
	print_message("last 6 s: delay %.2f ms, p %.4f\n",
		      sum_delay / n / MS, sum_p / n / MP_PI_ONE);
	assert_true(sum_delay / n > 0.9 * pie.target_ns);
	assert_true(sum_delay / n < 1.1 * pie.target_ns);
	assert_true(sum_p / n / MP_PI_ONE > 0.09);
	assert_true(sum_p / n / MP_PI_ONE < 0.11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pi_still_at_target),
		cmocka_unit_test(test_pi_integral_step),
		cmocka_unit_test(test_pi_proportional_step),
		cmocka_unit_test(test_pi_draining_queue_marks_less),
		cmocka_unit_test(test_pi_bounds),
		cmocka_unit_test(test_pi_largest_values),
		cmocka_unit_test(test_pi_empty_queue_fades),
		cmocka_unit_test(test_pi_burst_allowance),
		cmocka_unit_test(test_pi_holds_fluid_queue_at_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
