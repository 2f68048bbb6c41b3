/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 resequencing's decisions, as pure logic shared with the unit
 * tests (selftests/unit/test_reorder_psn.c): which packets carry a QP's
 * request sequence, how far a PSN is from the one expected, and what
 * becomes of a packet that arrives.  reorder.c holds the packets and the
 * timers.
 */
#ifndef _MPLANE_REORDER_PSN_H
#define _MPLANE_REORDER_PSN_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

#include <linux/mplane.h>	/* MPLANE_REORDER_DEPTH */

/* A QP that has sent nothing for this long starts a new sequence. */
#define MPLANE_REORDER_IDLE_NS		1000000000ULL	/* 1 s */
/*
 * Further behind than this is not a resend of what was expected but a
 * new sequence (the QP number was given to a new QP): a requester resends
 * at most its window, which for every RC transport is far under 2^16.
 */
#define MPLANE_REORDER_BEHIND_MAX	65536

enum mplane_reorder_verdict {
	MPLANE_REORDER_PASS,	/* the one expected, or a resend: up now */
	MPLANE_REORDER_HOLD,	/* past a gap the hold can cover */
	MPLANE_REORDER_GIVE_UP,	/* past a gap it cannot: up with all held */
	MPLANE_REORDER_RESTART,	/* a new sequence: up with all held */
};

bool mplane_reorder_sequenced(u8 opcode);
bool mplane_reorder_resyncs(u8 opcode);
bool mplane_reorder_goes_back(u8 opcode);
s32 mplane_psn_diff(u32 psn, u32 from);
enum mplane_reorder_verdict mplane_reorder_verdict(u32 expected, u32 psn,
						   unsigned int held,
						   bool room);

#endif /* _MPLANE_REORDER_PSN_H */
