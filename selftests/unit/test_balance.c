// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kmod/balance.c: plane choice per policy, load scoring,
 * decay and flowlet ageing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "balance.h"

static const u32 no_load[MPLANE_MAX_PLANES];

static struct mplane_pick_in pick_in(u32 eligible, const u32 *load)
{
	struct mplane_pick_in in = {
		.eligible = eligible,
		.load = load ? load : no_load,
	};
	return in;
}

/*
 * Spray as xmit.c runs it, with no queues: @n packets of @len bytes over
 * planes of @cap, each raised to its floor and charged as it is picked.
 * Returns how many went to each plane in @hits.
 */
static void spray_run(const u32 *cap, u32 eligible, u64 *vtime,
		      unsigned int n, unsigned int len, unsigned int *hits)
{
	u32 load[MPLANE_MAX_PLANES] = {};
	struct mplane_pick_in in = pick_in(eligible, load);
	u64 most, least, floor;
	unsigned int i;
	u32 slowest;
	int p, k;

	for (i = 0; i < n; i++) {
		most = 0;
		least = ~0ULL;
		slowest = ~0U;
		for (k = 0; k < MPLANE_MAX_PLANES; k++) {
			if (!(eligible & (1U << k)))
				continue;
			if (vtime[k] > most)
				most = vtime[k];
			if (cap[k] < slowest)
				slowest = cap[k];
		}
		floor = mplane_spray_floor(most, slowest);
		for (k = 0; k < MPLANE_MAX_PLANES; k++) {
			if (!(eligible & (1U << k)))
				continue;
			if (vtime[k] < floor)
				vtime[k] = floor;
			if (vtime[k] < least)
				least = vtime[k];
		}
		for (k = 0; k < MPLANE_MAX_PLANES; k++)
			if (eligible & (1U << k))
				load[k] = mplane_spray_load(vtime[k] - least, 0,
							    cap[k], false);
		in.ticket = in.rnd = i;
		p = mplane_pick(MPLANE_POLICY_SPRAY, &in);
		assert_true(p >= 0);
		vtime[p] += mplane_spray_cost(len, cap[p], 0);
		hits[p]++;
	}
}

/*
 * Spray gives planes bytes in proportion to their capacities whatever
 * the time between packets (there is none here: the DRE would take
 * turns once it had forgotten each packet), and counts bytes, not
 * packets.
 */
static void test_spray_follows_capacity(void **state)
{
	u32 cap[MPLANE_MAX_PLANES] = { 10, 30, 20 };
	u64 vtime[MPLANE_MAX_PLANES] = {};
	unsigned int hits[MPLANE_MAX_PLANES] = {};

	(void)state;
	spray_run(cap, 0x3, vtime, 400, 1000, hits);
	assert_in_range(hits[0], 99, 101);
	assert_in_range(hits[1], 299, 301);
	/* Three planes from the start. */
	memset(hits, 0, sizeof(hits));
	memset(vtime, 0, sizeof(vtime));
	spray_run(cap, 0x7, vtime, 600, 1500, hits);
	assert_in_range(hits[0], 99, 101);
	assert_in_range(hits[1], 299, 301);
	assert_in_range(hits[2], 199, 201);
	/* One big packet is worth four of a quarter its size. */
	memset(hits, 0, sizeof(hits));
	memset(vtime, 0, sizeof(vtime));
	cap[1] = 10;
	spray_run(cap, 0x3, vtime, 1, 4000, hits);
	spray_run(cap, 0x3, vtime, 4, 1000, hits);
	assert_int_equal(hits[0], 1);
	assert_int_equal(hits[1], 4);
	/* Weights 1 and 8: the fast plane falls 8 packets behind, past
	 * the credit in its own bytes, but not in the slow plane's time. */
	memset(hits, 0, sizeof(hits));
	memset(vtime, 0, sizeof(vtime));
	cap[0] = 1;
	cap[1] = 8;
	spray_run(cap, 0x3, vtime, 900, 1500, hits);
	assert_in_range(hits[0], 99, 101);
}

/*
 * A plane out of use for a while comes back with no more than the
 * credit: it is not given everything until it has caught up.
 */
static void test_spray_credit_bounds_catch_up(void **state)
{
	u32 cap[MPLANE_MAX_PLANES] = { 10, 10 };
	u64 vtime[MPLANE_MAX_PLANES] = {};
	unsigned int hits[MPLANE_MAX_PLANES] = {}, burst = 0, i;

	(void)state;
	/* Plane 1 is away for 1000 packets; plane 0 runs far ahead. */
	spray_run(cap, 0x1, vtime, 1000, 1000, hits);
	memset(hits, 0, sizeof(hits));
	spray_run(cap, 0x3, vtime, 1, 1000, hits);
	for (i = 0; i < 100 && hits[0] == 0; i++)
		spray_run(cap, 0x3, vtime, 1, 1000, hits);
	burst = hits[1];
	/* The credit is 4 packets of 1000 bytes, and one to tip it over. */
	assert_int_equal(MPLANE_SPRAY_CREDIT, 4096);
	assert_in_range(burst, 4, 6);
	memset(hits, 0, sizeof(hits));
	spray_run(cap, 0x3, vtime, 200, 1000, hits);
	assert_in_range(hits[0], 99, 101);
	/* No more behind than there is: from 0, the floor is 0. */
	assert_int_equal(mplane_spray_floor(1000, 10), 0);
	assert_int_equal(mplane_spray_floor(1ULL << 40, 10),
			 (1ULL << 40) - mplane_spray_cost(MPLANE_SPRAY_CREDIT, 10, 0));
	/* A capacity of 0 is taken as 1, not divided by. */
	assert_int_equal(mplane_spray_cost(3, 0, 0), 3ULL << MPLANE_SPRAY_SHIFT);
}

/*
 * The mark share: a CNP adds 1/16, and it halves with every 16 packets
 * sprayed; a CNP every tenth packet holds it between a tenth and a
 * quarter, none for a while brings it to 0, and a flood to no more than
 * one.  A plane at 1/128 costs twice its bytes, and 129 times at one.
 */
static void test_mark_share_weighs_spray(void **state)
{
	u32 share = 0, cost = mplane_spray_cost(1000, 10, 0);
	unsigned int i;

	(void)state;
	share = mplane_mark_share_add(share, 0);
	assert_int_equal(share, MPLANE_MARK_ONE / 16);
	assert_int_equal(mplane_mark_share_now(share, 16), MPLANE_MARK_ONE / 32);
	for (i = 0; i < 200; i++)
		share = mplane_mark_share_add(share, 10);
	assert_in_range(share, MPLANE_MARK_ONE / 6, MPLANE_MARK_ONE / 4);
	assert_in_range(mplane_mark_share_now(share, 9), MPLANE_MARK_ONE / 10,
			MPLANE_MARK_ONE / 6);
	assert_int_equal(mplane_mark_share_now(share, 400), 0);
	for (i = 0; i < 400; i++)
		share = mplane_mark_share_add(share, 1);
	assert_int_equal(share, MPLANE_MARK_ONE);
	assert_int_equal(mplane_mark_share_now(~0U, 0), MPLANE_MARK_ONE);
	assert_int_equal(MPLANE_MARK_WEIGHT, 128);
	assert_int_equal(mplane_spray_cost(1000, 10, MPLANE_MARK_ONE / 128),
			 2 * cost);
	assert_int_equal(mplane_spray_cost(1000, 10, ~0U), 129ULL * cost);
}

/*
 * Two planes alike but for their marks: the marked one at a share s
 * gets 1 / (2 + 128 s) of the bytes, a third at s = 1/128.
 */
static void test_marked_plane_gets_less(void **state)
{
	u32 cap[MPLANE_MAX_PLANES] = { 10, 10 };
	u64 vtime[MPLANE_MAX_PLANES] = {};
	u32 load[MPLANE_MAX_PLANES];
	struct mplane_pick_in in = pick_in(0x3, load);
	unsigned int hits[MPLANE_MAX_PLANES] = {}, i;
	u32 share[MPLANE_MAX_PLANES] = { MPLANE_MARK_ONE / 128, 0 };
	u64 least;
	int p;

	(void)state;
	for (i = 0; i < 300; i++) {
		least = vtime[0] < vtime[1] ? vtime[0] : vtime[1];
		load[0] = mplane_spray_load(vtime[0] - least, 0, cap[0], false);
		load[1] = mplane_spray_load(vtime[1] - least, 0, cap[1], false);
		in.ticket = in.rnd = i;
		p = mplane_pick(MPLANE_POLICY_SPRAY, &in);
		vtime[p] += mplane_spray_cost(1000, cap[p], share[p]);
		hits[p]++;
	}
	assert_in_range(hits[0], 99, 101);
	assert_in_range(hits[1], 199, 201);
}

static void test_no_eligible_plane(void **state)
{
	struct mplane_pick_in in = pick_in(0, NULL);
	int p;

	(void)state;
	for (p = 0; p < __MPLANE_POLICY_MAX; p++)
		assert_int_equal(mplane_pick(p, &in), -1);
	/* Bits past the last plane are not planes. */
	in.eligible = 1U << MPLANE_MAX_PLANES;
	assert_int_equal(mplane_pick(MPLANE_POLICY_RR, &in), -1);
}

static void test_rr_is_even_over_eligible(void **state)
{
	struct mplane_pick_in in = pick_in(0x2c, NULL);	/* planes 2, 3, 5 */
	int hits[MPLANE_MAX_PLANES] = { 0 };
	u32 t;

	(void)state;
	for (t = 0; t < 300; t++) {
		in.ticket = t;
		hits[mplane_pick(MPLANE_POLICY_RR, &in)]++;
	}
	assert_int_equal(hits[2], 100);
	assert_int_equal(hits[3], 100);
	assert_int_equal(hits[5], 100);
	assert_int_equal(hits[0] + hits[1] + hits[4], 0);
}

static void test_hash_is_stable_per_flow(void **state)
{
	u32 load[MPLANE_MAX_PLANES] = { 0 };
	struct mplane_pick_in in = pick_in(0xf, load);
	int first, seen = 0;
	u32 h;

	(void)state;
	for (h = 0; h < 64; h++) {
		in.hash = h * 2654435761U;
		in.rnd = 0;
		first = mplane_pick(MPLANE_POLICY_HASH, &in);
		/* Neither load nor randomness moves a hashed flow. */
		load[first] = 1000;
		in.rnd = 12345;
		assert_int_equal(mplane_pick(MPLANE_POLICY_HASH, &in), first);
		load[first] = 0;
		seen |= 1 << first;
	}
	assert_int_equal(seen, 0xf);
}

static void test_spray_takes_least_loaded(void **state)
{
	u32 load[MPLANE_MAX_PLANES] = { 50, 10, 30, 5 };
	struct mplane_pick_in in = pick_in(0x7, load);	/* plane 3 ineligible */
	u32 r;

	(void)state;
	for (r = 0; r < 16; r++) {
		in.rnd = r;
		assert_int_equal(mplane_pick(MPLANE_POLICY_SPRAY, &in), 1);
		assert_int_equal(mplane_pick(MPLANE_POLICY_FLOWLET, &in), 1);
	}
}

static void test_ties_are_broken_at_random(void **state)
{
	u32 load[MPLANE_MAX_PLANES] = { 7, 3, 3, 3 };
	struct mplane_pick_in in = pick_in(0xf, load);
	int hits[4] = { 0 };
	u32 r;

	(void)state;
	for (r = 0; r < 300; r++) {
		in.rnd = r;
		hits[mplane_pick(MPLANE_POLICY_SPRAY, &in)]++;
	}
	assert_int_equal(hits[0], 0);
	assert_int_equal(hits[1], 100);
	assert_int_equal(hits[2], 100);
	assert_int_equal(hits[3], 100);
}

static void test_load_scales_by_capacity(void **state)
{
	(void)state;
	/* The same bytes weigh half as much on a plane twice as fast. */
	assert_int_equal(mplane_load_score(1000, 1000, 100, false) * 2,
			 mplane_load_score(1000, 1000, 200, false) * 4);
	assert_true(mplane_load_score(0, 4000, 25, false) >
		    mplane_load_score(0, 4000, 100, false));
	assert_int_equal(mplane_load_score(0, 0, 100, false), 0);
	/* No capacity known is not a division by zero. */
	assert_int_equal(mplane_load_score(3, 0, 0, false), 3 << 10);
	/* Huge backlogs saturate instead of wrapping. */
	assert_int_equal(mplane_load_score(1ULL << 62, 1ULL << 62, 1, false),
			 MPLANE_LOAD_MAX);
}

static void test_congested_plane_loses_to_any_other(void **state)
{
	u32 load[MPLANE_MAX_PLANES];
	struct mplane_pick_in in = pick_in(0x3, load);

	(void)state;
	load[0] = mplane_load_score(0, 0, 100, true);
	load[1] = mplane_load_score(1ULL << 40, 0, 1, false);
	assert_int_equal(mplane_pick(MPLANE_POLICY_SPRAY, &in), 1);
	/* ... but still carries traffic when it is all there is. */
	in.eligible = 0x1;
	assert_int_equal(mplane_pick(MPLANE_POLICY_SPRAY, &in), 0);
}

static void test_decay_halves_per_halflife(void **state)
{
	const u32 hl = 1000;
	u64 v;

	(void)state;
	assert_int_equal(mplane_decay(1 << 20, 0, hl), 1 << 20);
	assert_int_equal(mplane_decay(1 << 20, hl, hl), 1 << 19);
	assert_int_equal(mplane_decay(1 << 20, 3 * hl, hl), 1 << 17);
	assert_int_equal(mplane_decay(1 << 20, 64 * hl, hl), 0);
	assert_int_equal(mplane_decay(~0ULL, ~0ULL, hl), 0);
	assert_int_equal(mplane_decay(5, 10, 0), 0);
	/* Half a half-life: 2^-0.5 = 0.707, the chord gives 0.75. */
	v = mplane_decay(1 << 20, hl / 2, hl);
	assert_true(v >= (1 << 20) * 707ULL / 1000 && v <= (1 << 20) * 3ULL / 4);
	/* Large values take the no-overflow path and stay monotonic. */
	v = mplane_decay(1ULL << 60, hl / 2, hl);
	assert_true(v < (1ULL << 60) && v > (1ULL << 59));
}

static void test_decay_is_monotonic(void **state)
{
	u64 prev = ~0ULL, v;
	u64 t;

	(void)state;
	for (t = 0; t < 10000; t += 37) {
		v = mplane_decay(1ULL << 40, t, 1000);
		assert_true(v <= prev);
		prev = v;
	}
}

static void test_flowlet_sticks_within_gap(void **state)
{
	const u64 gap = 50000, t0 = 1000000;
	u64 slot = mplane_flowlet_pack(t0, 2);

	(void)state;
	assert_int_equal(mplane_flowlet_plane(slot, t0 + 10, gap, 0xf), 2);
	assert_int_equal(mplane_flowlet_plane(slot, t0 + gap, gap, 0xf), 2);
	/* Idle past the gap: free to move. */
	assert_int_equal(mplane_flowlet_plane(slot, t0 + gap + 1, gap, 0xf), -1);
	/* Its plane failed: must move even inside the gap. */
	assert_int_equal(mplane_flowlet_plane(slot, t0 + 10, gap, 0xb), -1);
	/* A slot never used. */
	assert_int_equal(mplane_flowlet_plane(0, t0, gap, 0xf), -1);
}

static void test_flowlet_age_wraps(void **state)
{
	const u64 wrap = 1ULL << 56;
	u64 slot = mplane_flowlet_pack(wrap - 10, 1);

	(void)state;
	/* The clock passed 2^56 ns between the two packets. */
	assert_int_equal(mplane_flowlet_plane(slot, wrap + 5, 100, 0x3), 1);
	assert_int_equal(mplane_flowlet_plane(slot, wrap + 200, 100, 0x3), -1);
}

/*
 * Half-lives past 2^32 ns (4.29 s; the congestion half-life goes to 10 s)
 * must not be cut to 32 bits: 4294968 us would become 704 ns, and a
 * congestion score would be gone before the next mark.
 */
static void test_decay_long_halflife(void **state)
{
	const u64 hl = 4294968ULL * 1000;	/* 4294968 us */
	const u64 ten_s = 10000000ULL * 1000;

	(void)state;
	/* One microsecond later the score has barely moved. */
	assert_true(mplane_decay(256 * 1000, 1000, hl) > 256 * 1000 - 1);
	assert_int_equal(mplane_decay(1 << 20, hl, hl), 1 << 19);
	assert_int_equal(mplane_decay(1 << 20, 2 * ten_s, ten_s), 1 << 18);
	/* Half a half-life: the chord, 3/4, with no overflow of value * rest. */
	assert_int_equal(mplane_decay(1ULL << 31, ten_s / 2, ten_s), 3ULL << 29);
	assert_int_equal(mplane_decay(1ULL << 62, ten_s / 2, ten_s), 3ULL << 60);
}

/* The shift form agrees with the general one for a power-of-two half-life. */
static void test_decay_shift_matches_decay(void **state)
{
	u64 t;

	(void)state;
	for (t = 0; t < 40 * (1ULL << 17); t += 7919)
		assert_int_equal(mplane_decay_shift(123456789, t, 17),
				 mplane_decay(123456789, t, 1ULL << 17));
	assert_int_equal(mplane_decay_shift(~0ULL, ~0ULL, 17), 0);
}

/*
 * A slot stamped by another CPU just after this packet read its clock is
 * in this packet's future: the flowlet is alive, not 2^56 ns idle (which
 * would move the flow to another plane and reorder it).
 */
static void test_flowlet_stamped_in_the_future(void **state)
{
	const u64 t0 = 5000000000ULL, gap = 50000;
	u64 slot = mplane_flowlet_pack(t0 + 3, 2);

	(void)state;
	assert_int_equal(mplane_flowlet_plane(slot, t0, gap, 0xf), 2);
	assert_int_equal(mplane_flowlet_plane(slot, t0 - 1000, gap, 0xf), 2);
	/* Still only for an eligible plane. */
	assert_int_equal(mplane_flowlet_plane(slot, t0, gap, 0xb), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_eligible_plane),
		cmocka_unit_test(test_rr_is_even_over_eligible),
		cmocka_unit_test(test_hash_is_stable_per_flow),
		cmocka_unit_test(test_spray_takes_least_loaded),
		cmocka_unit_test(test_ties_are_broken_at_random),
		cmocka_unit_test(test_load_scales_by_capacity),
		cmocka_unit_test(test_congested_plane_loses_to_any_other),
		cmocka_unit_test(test_decay_halves_per_halflife),
		cmocka_unit_test(test_decay_is_monotonic),
		cmocka_unit_test(test_flowlet_sticks_within_gap),
		cmocka_unit_test(test_flowlet_age_wraps),
		cmocka_unit_test(test_decay_long_halflife),
		cmocka_unit_test(test_decay_shift_matches_decay),
		cmocka_unit_test(test_flowlet_stamped_in_the_future),
		cmocka_unit_test(test_spray_follows_capacity),
		cmocka_unit_test(test_spray_credit_bounds_catch_up),
		cmocka_unit_test(test_mark_share_weighs_spray),
		cmocka_unit_test(test_marked_plane_gets_less),
	};

	return cmocka_run_group_tests_name("balance", tests, NULL, NULL);
}
