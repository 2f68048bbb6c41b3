/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plane choice, as pure logic: which eligible plane carries a packet under
 * each policy, how a plane's load is scored, and how flowlets and decaying
 * estimates age.  balance.c is built into mplane.ko and into the user-space
 * unit tests (with selftests/unit/kshim.h for the types), so it uses no
 * kernel API beyond them; the datapath gathers the facts.
 */
#ifndef _MPLANE_BALANCE_H
#define _MPLANE_BALANCE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#endif

#include "linux/mplane.h"

/*
 * Added to the load of a congested plane: it then loses every comparison
 * with an uncongested one, but still carries traffic when all are.
 */
#define MPLANE_LOAD_CONGESTED	BIT(30)
#define MPLANE_LOAD_MAX		(MPLANE_LOAD_CONGESTED - 1)

struct mplane_pick_in {
	u32 eligible;		/* bit i set: plane i may carry the packet */
	const u32 *load;	/* per plane index; lower is emptier */
	u32 hash;		/* the flow's hash */
	u32 rnd;		/* random bits, for tie-breaks */
	u32 ticket;		/* the device's round-robin counter */
};

int mplane_pick(enum mplane_policy policy, const struct mplane_pick_in *in);

u32 mplane_load_score(u64 queued_bytes, u64 rate_bytes, u32 capacity,
		      bool congested);

/*
 * Spray's virtual time: what each plane has been given, in bytes over
 * its capacity (2^13 a microsecond of its line rate) and weighed up by
 * its marks (below), so that a packet goes to the plane furthest behind
 * and planes get bytes in proportion to their capacities.  The DRE
 * cannot do that when packets are further apart than its half-life: it
 * has forgotten the last one, every plane scores 0 and the tie-break
 * takes turns.  No plane is further behind the one furthest ahead than
 * the slowest plane takes to send MPLANE_SPRAY_CREDIT bytes: one back
 * from being out of use takes back its share, not a burst of everything,
 * and one whose rail backs up is given no more than that while it
 * drains.
 */
#define MPLANE_SPRAY_SHIFT	16
#define MPLANE_SPRAY_CREDIT	4096

/*
 * How much of what spray sent lately drew a CNP (DCQCN's notice of a CE
 * mark on the way) on a plane, in parts of MPLANE_MARK_ONE: each CNP adds
 * 2^-MPLANE_MARK_SHIFT, and the share halves with every 2^MPLANE_MARK_SHIFT
 * packets the device sprays on any plane, so that a plane given little
 * for its marks is not held to them once they stop.  Spray weighs a
 * plane's bytes up by MPLANE_MARK_WEIGHT times the share: a plane whose
 * queues mark what it carries is taken for a slower one until they no
 * longer do.  A link down behind a leaf halves what a plane delivers,
 * and no host link shows it; the marks do.
 */
#define MPLANE_MARK_ONE		BIT(16)
#define MPLANE_MARK_SHIFT	4
#define MPLANE_MARK_WEIGHT	128

u32 mplane_mark_share_now(u32 share, u64 sprayed);
u32 mplane_mark_share_add(u32 share, u64 sprayed);
u64 mplane_spray_cost(unsigned int len, u32 capacity, u32 mark_share);
u64 mplane_spray_floor(u64 most, u32 slowest);
u32 mplane_spray_load(u64 behind, u64 queued_bytes, u32 capacity,
		      bool congested);
u64 mplane_decay(u64 value, u64 elapsed_ns, u64 halflife_ns);
u64 mplane_decay_shift(u64 value, u64 elapsed_ns, unsigned int shift);

/*
 * A flowlet slot packs when its flows last sent (ns, upper 56 bits: 2^56
 * ns is over two years of uptime, and ages are taken modulo that) and the
 * plane they used (lower 8 bits, plane + 1; 0 means never used) into one
 * u64, so the datapath reads and writes it without a lock.
 */
static inline u64 mplane_flowlet_pack(u64 now_ns, int plane)
{
	return (now_ns << 8) | (u8)(plane + 1);
}

int mplane_flowlet_plane(u64 slot, u64 now_ns, u64 gap_ns, u32 eligible);

#endif /* _MPLANE_BALANCE_H */
