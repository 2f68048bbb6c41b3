// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_seqstat.c, the accounting behind
 * 'mplanectl traffic recv': loss, reordering, duplicates, delivery gaps
 * (its histogram is tested in test_hist.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mp_seqstat.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define US	1000ULL

static void add_range(struct mp_seqstat *s, uint64_t from, uint64_t to)
{
	uint64_t seq;

	for (seq = from; seq <= to; seq++)
		assert_int_equal(mp_seqstat_add(s, seq), MP_SEQ_NEXT);
}

static void test_in_order(TEST_ARGS)
{
	struct mp_seqstat s = {}, e = { .expect = 1000 };

	add_range(&s, 0, 999);
	add_range(&e, 0, 999);
	assert_int_equal(s.received, 1000);
	assert_int_equal(s.first, 0);
	assert_int_equal(s.last, 999);
	assert_int_equal(s.reordered, 0);
	assert_int_equal(s.duplicates, 0);
	assert_int_equal(mp_seqstat_lost(&s), 0);
	assert_int_equal(mp_seqstat_lost(&e), 0);
}

static void test_empty(TEST_ARGS)
{
	struct mp_seqstat s = {}, e = { .expect = 50 };

	assert_int_equal(mp_seqstat_lost(&s), 0);
	/* Nothing arrived of what was expected: all of it is lost. */
	assert_int_equal(mp_seqstat_lost(&e), 50);
}

/* 100 and 101 never come: two lost, nothing reordered. */
static void test_hole(TEST_ARGS)
{
	struct mp_seqstat s = {}, e = { .expect = 200 };

	add_range(&s, 0, 99);
	add_range(&s, 102, 199);
	add_range(&e, 0, 99);
	add_range(&e, 102, 199);
	assert_int_equal(s.received, 198);
	assert_int_equal(mp_seqstat_lost(&s), 2);
	assert_int_equal(mp_seqstat_lost(&e), 2);
	assert_int_equal(s.reordered, 0);
}

/* A late packet fills its hole: reordered, not lost. */
static void test_reordered_fills_hole(TEST_ARGS)
{
	struct mp_seqstat s = {};

	add_range(&s, 0, 9);
	assert_int_equal(mp_seqstat_add(&s, 11), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_add(&s, 12), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_lost(&s), 1);
	assert_int_equal(mp_seqstat_add(&s, 10), MP_SEQ_REORDERED);
	assert_int_equal(mp_seqstat_lost(&s), 0);
	assert_int_equal(s.reordered, 1);
	assert_int_equal(s.last, 12);
}

/* Copies are duplicates whether they come in order or late, and never
 * make up for a loss. */
static void test_duplicates(TEST_ARGS)
{
	struct mp_seqstat s = {};

	add_range(&s, 0, 4);
	assert_int_equal(mp_seqstat_add(&s, 4), MP_SEQ_DUPLICATE);
	assert_int_equal(mp_seqstat_add(&s, 2), MP_SEQ_DUPLICATE);
	assert_int_equal(mp_seqstat_add(&s, 7), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_add(&s, 7), MP_SEQ_DUPLICATE);
	assert_int_equal(s.received, 9);
	assert_int_equal(s.duplicates, 3);
	assert_int_equal(mp_seqstat_unique(&s), 6);
	assert_int_equal(mp_seqstat_lost(&s), 2);	/* 5 and 6 */
	assert_int_equal(s.reordered, 0);
}

/* Loss at the tail (and at the head) is only known with expect. */
static void test_tail_and_head_loss(TEST_ARGS)
{
	struct mp_seqstat s = {}, e = { .expect = 100 };

	add_range(&s, 3, 96);
	add_range(&e, 3, 96);
	assert_int_equal(mp_seqstat_lost(&s), 0);
	assert_int_equal(mp_seqstat_lost(&e), 6);
}

/* Packets past expect do not make up for expected ones that were lost,
 * late or not, and their duplicates are only duplicates. */
static void test_beyond_expect(TEST_ARGS)
{
	struct mp_seqstat e = { .expect = 10 };

	add_range(&e, 0, 4);
	add_range(&e, 6, 14);
	assert_int_equal(mp_seqstat_lost(&e), 1);
	assert_int_equal(mp_seqstat_add(&e, 12), MP_SEQ_DUPLICATE);
	assert_int_equal(e.beyond, 5);
	assert_int_equal(mp_seqstat_lost(&e), 1);
	assert_int_equal(mp_seqstat_add(&e, 5), MP_SEQ_REORDERED);
	assert_int_equal(mp_seqstat_lost(&e), 0);
}

/* A packet below the first one that came lowers first. */
static void test_below_first(TEST_ARGS)
{
	struct mp_seqstat s = {};

	add_range(&s, 5, 9);
	assert_int_equal(mp_seqstat_add(&s, 3), MP_SEQ_REORDERED);
	assert_int_equal(s.first, 3);
	assert_int_equal(mp_seqstat_lost(&s), 1);	/* 4 */
	assert_int_equal(mp_seqstat_add(&s, 3), MP_SEQ_DUPLICATE);
}

/* The window slides: a sequence number that left it and comes again is
 * not taken for a duplicate of the one now sharing its bit. */
static void test_window_slides(TEST_ARGS)
{
	struct mp_seqstat s = {};

	add_range(&s, 0, MP_SEQSTAT_WINDOW + 9);
	/* Too old to tell: late, never a duplicate. */
	assert_int_equal(mp_seqstat_add(&s, 5), MP_SEQ_REORDERED);
	/* Still in the window: a duplicate. */
	assert_int_equal(mp_seqstat_add(&s, 11), MP_SEQ_DUPLICATE);
	assert_int_equal(s.reordered, 1);
	assert_int_equal(s.duplicates, 1);
}

/* A jump further than the window forgets everything, and the holes it
 * leaves are loss that a late packet can still fill. */
static void test_big_jump(TEST_ARGS)
{
	struct mp_seqstat s = {};
	uint64_t far = 3 * MP_SEQSTAT_WINDOW;

	add_range(&s, 0, 9);
	assert_int_equal(mp_seqstat_add(&s, far), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_lost(&s), far - 10);
	assert_int_equal(mp_seqstat_add(&s, far - 1), MP_SEQ_REORDERED);
	assert_int_equal(mp_seqstat_add(&s, far - 1), MP_SEQ_DUPLICATE);
	assert_int_equal(mp_seqstat_lost(&s), far - 11);
}

/* Sequence numbers near the top of the range do not wrap the loss. */
static void test_huge_sequences(TEST_ARGS)
{
	struct mp_seqstat s = {};

	assert_int_equal(mp_seqstat_add(&s, UINT64_MAX - 1), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_add(&s, UINT64_MAX), MP_SEQ_NEXT);
	assert_int_equal(mp_seqstat_lost(&s), 0);
	assert_int_equal(mp_seqstat_add(&s, 0), MP_SEQ_REORDERED);
	assert_int_equal(mp_seqstat_lost(&s), UINT64_MAX - 2);
}

/* Paced arrivals, every 50 us; seq 100 and 101 are lost, so the gap after
 * 99 is three intervals, and it has no excess. */
static void test_gap_after_loss(TEST_ARGS)
{
	struct mp_gapstat g = {};
	uint64_t seq, t, gap, gaps = 0;

	for (seq = 0; seq < 200; seq++) {
		if (seq == 100 || seq == 101)
			continue;
		t = 1000000 + seq * 50 * US;
		if (mp_gapstat_add(&g, t + 7 * US, t, 0, seq, &gap))
			gaps++;
		else
			assert_int_equal(seq, 0);
	}
	assert_int_equal(gaps, 197);
	assert_int_equal(g.max_gap_ns, 150 * US);
	assert_int_equal(g.max_gap_seq, 99);
	assert_int_equal(mp_gapstat_max_excess(&g), 0);
}

/* A sender stall is an arrival gap but no excess; a packet that the path
 * held back is both, and the excess names the packet before it. */
static void test_excess_gap(TEST_ARGS)
{
	struct mp_gapstat g = {};
	uint64_t gap;

	mp_gapstat_add(&g, 1000 * US, 900 * US, 0, 0, &gap);
	/* Sent 2 ms late, arrived 2 ms late: a stall of the sender. */
	mp_gapstat_add(&g, 3050 * US, 2950 * US, 0, 1, &gap);
	assert_int_equal(gap, 2050 * US);
	assert_int_equal(mp_gapstat_max_excess(&g), 0);
	/* Sent on time, delayed 700 us on the way. */
	mp_gapstat_add(&g, 3800 * US, 3000 * US, 0, 2, &gap);
	assert_int_equal(mp_gapstat_max_excess(&g), 700 * US);
	assert_int_equal(g.max_excess_seq, 1);
	assert_int_equal(g.max_gap_ns, 2050 * US);
	assert_int_equal(g.max_gap_seq, 0);
}

/* Gaps of interleaved flows are taken between any two arrivals, and name
 * the flow of the packet before the gap. */
static void test_gap_flows(TEST_ARGS)
{
	struct mp_gapstat g = {};
	uint64_t gap;

	mp_gapstat_add(&g, 100 * US, 0, 0, 10, &gap);
	mp_gapstat_add(&g, 150 * US, 50 * US, 1, 10, &gap);
	mp_gapstat_add(&g, 400 * US, 100 * US, 0, 11, &gap);
	assert_int_equal(g.max_gap_ns, 250 * US);
	assert_int_equal(g.max_gap_flow, 1);
	assert_int_equal(g.max_gap_seq, 10);
	assert_int_equal(mp_gapstat_max_excess(&g), 200 * US);
}

/* A receive clock that steps back gives a gap of 0, not of 2^64 - 1. */
static void test_gap_clock_back(TEST_ARGS)
{
	struct mp_gapstat g = {};
	uint64_t gap;

	mp_gapstat_add(&g, 5000, 10, 0, 0, &gap);
	assert_true(mp_gapstat_add(&g, 4000, 20, 0, 1, &gap));
	assert_int_equal(gap, 0);
	assert_int_equal(g.max_gap_ns, 0);
	assert_int_equal(g.max_gap_seq, 0);
	/* A nonsensical send time saturates instead of overflowing. */
	mp_gapstat_add(&g, 6000, UINT64_MAX, 0, 2, &gap);
	mp_gapstat_add(&g, 7000, 0, 0, 3, &gap);
}

/* feed_stream: 20 kpps of one flow, arrival 7 us after sending; @lost
 * is skipped, @stall_at arrives late by @stall (a stall of the path). */
static void feed_stream(struct mp_faultwin *w, uint64_t lost,
			uint64_t stall_at, uint64_t stall)
{
	struct mp_gapstat g = {};
	uint64_t seq, tx, rx, gap, prev = 0;
	bool hole;

	for (seq = 0; seq < 2000; seq++) {
		if (seq == lost)
			continue;
		tx = 1000000 * US + seq * 50 * US;
		rx = tx + 7 * US + (seq == stall_at ? stall : 0);
		hole = seq && seq != prev + 1;
		gap = 0;
		mp_gapstat_add(&g, rx, tx, 0, seq, &gap);
		mp_faultwin_add(w, rx, gap, g.arrivals > 1 ? g.last_excess_ns : 0,
			       hole);
		prev = seq;
	}
}

/* A stall far from the hole is not near loss; the hole's own gap is. */
static void test_fault_window_ignores_far_stall(TEST_ARGS)
{
	static struct mp_faultwin w = { .window_ns = 5000 * US };

	feed_stream(&w, 1000, 200, 3000 * US);
	assert_int_equal(w.holes, 1);
	assert_int_equal(w.max_gap_ns, 100 * US);
	assert_int_equal(mp_faultwin_max_excess(&w), 0);
}

/* A path stall within the window, before or after the hole, counts. */
static void test_fault_window_sees_near_stall(TEST_ARGS)
{
	static struct mp_faultwin before = { .window_ns = 5000 * US };
	static struct mp_faultwin after = { .window_ns = 5000 * US };

	/* 40 packets (2 ms) before the hole, and 60 (3 ms) after it. */
	feed_stream(&before, 1000, 960, 1500 * US);
	assert_int_equal(mp_faultwin_max_excess(&before), 1500 * US);
	feed_stream(&after, 1000, 1060, 1500 * US);
	assert_int_equal(mp_faultwin_max_excess(&after), 1500 * US);
}

/* Away from the hole, the far stall is what the stream shows. */
static void test_fault_window_away(TEST_ARGS)
{
	static struct mp_faultwin far = { .window_ns = 5000 * US };
	static struct mp_faultwin near = { .window_ns = 5000 * US };
	static struct mp_faultwin tail = { .window_ns = 5000 * US };

	feed_stream(&far, 1000, 200, 3000 * US);
	mp_faultwin_finish(&far);
	assert_int_equal(mp_faultwin_max_excess_away(&far), 3000 * US);
	assert_int_equal(mp_faultwin_max_excess(&far), 0);
	/* A stall near the hole is not away from it. */
	feed_stream(&near, 1000, 960, 1500 * US);
	mp_faultwin_finish(&near);
	assert_int_equal(mp_faultwin_max_excess(&near), 1500 * US);
	assert_int_equal(mp_faultwin_max_excess_away(&near), 0);
	/* The last arrivals, still in the ring when the stream ends, count. */
	feed_stream(&tail, 1000, 1990, 700 * US);
	mp_faultwin_finish(&tail);
	assert_int_equal(mp_faultwin_max_excess_away(&tail), 700 * US);
}

/* No fault, nothing near one, however long the stalls. */
static void test_fault_window_without_loss(TEST_ARGS)
{
	static struct mp_faultwin w = { .window_ns = 5000 * US };

	feed_stream(&w, UINT64_MAX, 500, 9000 * US);
	assert_false(mp_faultwin_seen(&w));
	assert_int_equal(w.max_gap_ns, 0);
	assert_int_equal(mp_faultwin_max_excess(&w), 0);
}

/* A fault from outside, with nothing lost: a stall 3 ms after it counts,
 * one 20 ms before does not. */
static void test_fault_window_event(TEST_ARGS)
{
	static struct mp_faultwin w = { .window_ns = 5000 * US };
	struct mp_gapstat g = {};
	uint64_t seq, tx, rx, gap;

	for (seq = 0; seq < 2000; seq++) {
		tx = 1000000 * US + seq * 50 * US;
		rx = tx + 7 * US + (seq == 600 || seq == 1060 ? 1500 * US : 0);
		if (seq == 1000)
			mp_faultwin_event(&w, rx);
		gap = 0;
		mp_gapstat_add(&g, rx, tx, 0, seq, &gap);
		mp_faultwin_add(&w, rx, gap, g.arrivals > 1 ? g.last_excess_ns : 0,
				false);
	}
	assert_int_equal(w.events, 1);
	assert_int_equal(w.holes, 0);
	assert_true(mp_faultwin_seen(&w));
	assert_int_equal(mp_faultwin_max_excess(&w), 1500 * US);
	assert_int_equal(w.max_gap_ns, 1550 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_window_ignores_far_stall),
		cmocka_unit_test(test_fault_window_sees_near_stall),
		cmocka_unit_test(test_fault_window_without_loss),
		cmocka_unit_test(test_fault_window_away),
		cmocka_unit_test(test_fault_window_event),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_hole),
		cmocka_unit_test(test_reordered_fills_hole),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_tail_and_head_loss),
		cmocka_unit_test(test_beyond_expect),
		cmocka_unit_test(test_below_first),
		cmocka_unit_test(test_window_slides),
		cmocka_unit_test(test_big_jump),
		cmocka_unit_test(test_huge_sequences),
		cmocka_unit_test(test_gap_after_loss),
		cmocka_unit_test(test_excess_gap),
		cmocka_unit_test(test_gap_flows),
		cmocka_unit_test(test_gap_clock_back),
	};

	/* The number of failed tests: non-zero fails make and CI. */
	return cmocka_run_group_tests_name("seqstat", tests, NULL, NULL);
}
