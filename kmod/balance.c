// SPDX-License-Identifier: GPL-2.0
/*
 * Plane choice and load arithmetic, free of kernel API (see balance.h).
 * Everything here runs per packet, so it loops only over the planes of one
 * device (at most MPLANE_MAX_PLANES) and never divides on the hot path
 * except in mplane_load_score, once per plane.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#endif

#include "balance.h"

/* Index of the n-th (from 0) set bit of @mask; @n < popcount(@mask). */
static int mplane_nth_plane(u32 mask, u32 n)
{
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(mask & BIT(i)))
			continue;
		if (n-- == 0)
			return i;
	}
	return -1;
}

static int mplane_pick_modulo(u32 eligible, u32 key)
{
	return mplane_nth_plane(eligible, key % hweight32(eligible));
}

/*
 * The emptiest plane.  Ties are common (idle planes all score 0), and
 * always taking the lowest index would pile every new flowlet onto plane
 * 0, so the winner among equals is picked with @rnd.
 */
static int mplane_pick_least(u32 eligible, const u32 *load, u32 rnd)
{
	u32 best = ~0U, ties = 0;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		if (!(eligible & BIT(i)))
			continue;
		if (load[i] < best) {
			best = load[i];
			ties = BIT(i);
		} else if (load[i] == best) {
			ties |= BIT(i);
		}
	}
	return mplane_pick_modulo(ties, rnd);
}

/* The plane for a packet, or -1 when no plane is eligible. */
int mplane_pick(enum mplane_policy policy, const struct mplane_pick_in *in)
{
	u32 eligible = in->eligible & (BIT(MPLANE_MAX_PLANES) - 1);

	if (!eligible)
		return -1;
	switch (policy) {
	case MPLANE_POLICY_HASH:
		return mplane_pick_modulo(eligible, in->hash);
	case MPLANE_POLICY_RR:
		return mplane_pick_modulo(eligible, in->ticket);
	case MPLANE_POLICY_SPRAY:
	case MPLANE_POLICY_FLOWLET:
	default:
		return mplane_pick_least(eligible, in->load, in->rnd);
	}
}

/*
 * Load of a plane in bytes per unit of capacity: what waits to be sent
 * (qdisc backlog and BQL in flight) plus a decaying estimate of what was
 * sent lately (the DRE), divided by the plane's capacity (its weight, or
 * its speed in Mbit/s), so a plane twice as fast looks half as loaded.
 */
u32 mplane_load_score(u64 queued_bytes, u64 rate_bytes, u32 capacity,
		      bool congested)
{
	u64 score, bytes = queued_bytes + rate_bytes;

	if (!capacity)
		capacity = 1;
	/* Scale up first so that small loads on fast planes stay distinct. */
	score = bytes >= (1ULL << 50) ? MPLANE_LOAD_MAX :
		div_u64(bytes << 10, capacity);
	if (score > MPLANE_LOAD_MAX)
		score = MPLANE_LOAD_MAX;
	return (u32)score + (congested ? MPLANE_LOAD_CONGESTED : 0);
}

/* @share, @sprayed packets after it was last set. */
u32 mplane_mark_share_now(u32 share, u64 sprayed)
{
	return (u32)mplane_decay_shift(min_t(u32, share, MPLANE_MARK_ONE),
				       sprayed, MPLANE_MARK_SHIFT);
}

/* @share after a CNP, @sprayed packets after it was last set. */
u32 mplane_mark_share_add(u32 share, u64 sprayed)
{
	share = mplane_mark_share_now(share, sprayed) +
		(MPLANE_MARK_ONE >> MPLANE_MARK_SHIFT);
	return min_t(u32, share, MPLANE_MARK_ONE);
}

/*
 * A packet of @len bytes in virtual time: < 2^48, as @len < 2^32, and at
 * most MPLANE_MARK_WEIGHT + 1 times that with every packet marked.
 */
u64 mplane_spray_cost(unsigned int len, u32 capacity, u32 mark_share)
{
	u64 cost = div_u64((u64)len << MPLANE_SPRAY_SHIFT, capacity ?: 1);

	mark_share = min_t(u32, mark_share, MPLANE_MARK_ONE);
	return cost + mul_u64_u64_shr(cost, (u64)mark_share * MPLANE_MARK_WEIGHT,
				      16);
}

/*
 * The least virtual time a plane may have: @most the most, @slowest the
 * least capacity.
 */
u64 mplane_spray_floor(u64 most, u32 slowest)
{
	u64 credit = mplane_spray_cost(MPLANE_SPRAY_CREDIT, slowest, 0);

	return most > credit ? most - credit : 0;
}

/*
 * A plane's load under spray: how far it is ahead of the plane furthest
 * behind (@behind, in virtual time) and its rail's queue, in the units
 * of mplane_load_score(), so a plane whose rail backs up loses too.
 */
u32 mplane_spray_load(u64 behind, u64 queued_bytes, u32 capacity,
		      bool congested)
{
	u64 score = queued_bytes >= (1ULL << 40) ? MPLANE_LOAD_MAX :
		    div_u64(queued_bytes << 10, capacity ?: 1);

	score += min_t(u64, behind >> (MPLANE_SPRAY_SHIFT - 10),
		       MPLANE_LOAD_MAX);
	if (score > MPLANE_LOAD_MAX)
		score = MPLANE_LOAD_MAX;
	return (u32)score + (congested ? MPLANE_LOAD_CONGESTED : 0);
}

/*
 * @value after @elapsed_ns of exponential decay with the given half-life:
 * whole half-lives are shifts, the remaining fraction f is taken as the
 * chord 1 - f/2 of 2^-f (at most 6% high).  The half-life is 64 bits
 * wide: settings reach 10 s, past what 32 bits of nanoseconds hold.
 */
u64 mplane_decay(u64 value, u64 elapsed_ns, u64 halflife_ns)
{
	u64 halvings, rest;

	if (!halflife_ns)
		return 0;
	halvings = div64_u64(elapsed_ns, halflife_ns);
	if (halvings >= 64)
		return 0;
	value >>= halvings;
	rest = elapsed_ns - halvings * halflife_ns;
	/* value * rest / (2 * halflife), rest < halflife: no overflow */
	return value - mul_u64_u64_div_u64(value, rest, 2 * halflife_ns);
}

/*
 * As mplane_decay() for a half-life of 2^@shift ns, with no division:
 * for the rate estimates that every packet updates.
 */
u64 mplane_decay_shift(u64 value, u64 elapsed_ns, unsigned int shift)
{
	u64 halvings = elapsed_ns >> shift;
	u64 rest = elapsed_ns & ((1ULL << shift) - 1);

	if (halvings >= 64)
		return 0;
	value >>= halvings;
	return value - mul_u64_u64_shr(value, rest, shift + 1);
}

/*
 * The plane a flowlet stays on, or -1 when the packet may start a new
 * flowlet: the slot is unused, its flow has been idle for longer than the
 * gap (so reordering cannot happen), or its plane is no longer eligible.
 */
int mplane_flowlet_plane(u64 slot, u64 now_ns, u64 gap_ns, u32 eligible)
{
	int plane = (int)(slot & 0xff) - 1;
	/*
	 * Signed, modulo 2^56: another CPU may have stamped the slot after
	 * this packet read its clock, and a slot from this packet's future
	 * is as fresh as can be, not 2^56 ns old.
	 */
	s64 age = (s64)((now_ns << 8) - (slot & ~0xffULL)) >> 8;

	if (plane < 0 || plane >= MPLANE_MAX_PLANES)
		return -1;
	if (age > 0 && (u64)age > gap_ns)
		return -1;
	if (!(eligible & BIT(plane)))
		return -1;
	return plane;
}
