// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of RoCEv2 resequencing's decisions (kmod/reorder_psn.c), run
 * in user space: which BTH opcodes carry a QP's request sequence, PSN
 * distance modulo 2^24, and what a packet's place in the sequence makes
 * of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "reorder_psn.h"

#define TEST_ARGS void **state __attribute__((unused))

#define PSN_TOP	0xffffffu

static void test_requests_are_sequenced(TEST_ARGS)
{
	/* RC: SEND FIRST .. RDMA READ request, atomics, sends with invalidate */
	for (u8 op = 0x00; op <= 0x0c; op++)
		assert_true(mplane_reorder_sequenced(op));
	assert_true(mplane_reorder_sequenced(0x13));
	assert_true(mplane_reorder_sequenced(0x14));
	assert_true(mplane_reorder_sequenced(0x16));
	assert_true(mplane_reorder_sequenced(0x17));
	/* UC: sends and writes */
	for (u8 op = 0x20; op <= 0x2b; op++)
		assert_true(mplane_reorder_sequenced(op));
}

static void test_others_are_not(TEST_ARGS)
{
	/* RC responses: READ response first .. ACK, atomic ACK */
	for (u8 op = 0x0d; op <= 0x12; op++)
		assert_false(mplane_reorder_sequenced(op));
	assert_false(mplane_reorder_sequenced(0x15));
	assert_false(mplane_reorder_sequenced(0x2c));
	/* UD send only, RD, CNP, XRC */
	assert_false(mplane_reorder_sequenced(0x64));
	assert_false(mplane_reorder_sequenced(0x44));
	assert_false(mplane_reorder_sequenced(0x81));
	assert_false(mplane_reorder_sequenced(0xa4));
}

static void test_only_read_resyncs(TEST_ARGS)
{
	assert_true(mplane_reorder_resyncs(0x0c));
	assert_false(mplane_reorder_resyncs(0x0a));	/* WRITE ONLY */
	assert_false(mplane_reorder_resyncs(0x2c));
	assert_false(mplane_reorder_resyncs(0x13));
}

static void test_rc_goes_back(TEST_ARGS)
{
	assert_true(mplane_reorder_goes_back(0x04));	/* RC SEND ONLY */
	assert_true(mplane_reorder_goes_back(0x0a));	/* RC WRITE ONLY */
	assert_false(mplane_reorder_goes_back(0x24));	/* UC SEND ONLY */
	assert_false(mplane_reorder_goes_back(0x2a));	/* UC WRITE ONLY */
}

static void test_psn_diff_wraps(TEST_ARGS)
{
	assert_int_equal(mplane_psn_diff(5, 5), 0);
	assert_int_equal(mplane_psn_diff(7, 5), 2);
	assert_int_equal(mplane_psn_diff(5, 7), -2);
	assert_int_equal(mplane_psn_diff(1, PSN_TOP), 2);
	assert_int_equal(mplane_psn_diff(PSN_TOP, 1), -2);
	assert_int_equal(mplane_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(mplane_psn_diff(0x800000, 0), -0x800000);
	/* Bits above the 24 are not the PSN's. */
	assert_int_equal(mplane_psn_diff(0x80000005, 5), 0);
}

static void test_verdicts(TEST_ARGS)
{
	/* In order, and behind it (a resend): up at once. */
	assert_int_equal(mplane_reorder_verdict(100, 100, 0, true), MPLANE_REORDER_PASS);
	assert_int_equal(mplane_reorder_verdict(100, 40, 3, true), MPLANE_REORDER_PASS);
	assert_int_equal(mplane_reorder_verdict(100, 100 - MPLANE_REORDER_BEHIND_MAX, 0, true),
			 MPLANE_REORDER_PASS);
	/* Further behind than any resend: a new QP with the number. */
	assert_int_equal(mplane_reorder_verdict(100, (100 - MPLANE_REORDER_BEHIND_MAX - 1) & PSN_TOP,
						0, true), MPLANE_REORDER_RESTART);
	/* Past a gap: held, across the wrap too. */
	assert_int_equal(mplane_reorder_verdict(100, 101, 0, true), MPLANE_REORDER_HOLD);
	assert_int_equal(mplane_reorder_verdict(PSN_TOP, 2, 0, true), MPLANE_REORDER_HOLD);
	assert_int_equal(mplane_reorder_verdict(100, 100 + MPLANE_REORDER_DEPTH - 1,
						MPLANE_REORDER_DEPTH - 2, true),
			 MPLANE_REORDER_HOLD);
}

static void test_give_up(TEST_ARGS)
{
	/* A gap wider than a hold: a loss, not reordering. */
	assert_int_equal(mplane_reorder_verdict(100, 100 + MPLANE_REORDER_DEPTH, 0, true),
			 MPLANE_REORDER_GIVE_UP);
	/* The QP's hold is full, or the device's. */
	assert_int_equal(mplane_reorder_verdict(100, 102, MPLANE_REORDER_DEPTH - 1, true),
			 MPLANE_REORDER_GIVE_UP);
	assert_int_equal(mplane_reorder_verdict(100, 102, 0, false), MPLANE_REORDER_GIVE_UP);
	/* A full device still passes what is in order. */
	assert_int_equal(mplane_reorder_verdict(100, 100, 5, false), MPLANE_REORDER_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_are_sequenced),
		cmocka_unit_test(test_others_are_not),
		cmocka_unit_test(test_only_read_resyncs),
		cmocka_unit_test(test_rc_goes_back),
		cmocka_unit_test(test_psn_diff_wraps),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_give_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
