/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Accounting of a sequenced packet stream, without I/O: which sequence
 * numbers arrived (loss, reordering, duplicates), how far apart in time
 * consecutive packets arrived (delivery gaps); their percentiles are taken
 * with an mp_hist (mp_hist.h).  Used by 'mplanectl traffic recv';
 * unit tested in selftests/unit/test_seqstat.c.
 */
#ifndef MP_SEQSTAT_H
#define MP_SEQSTAT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How many sequence numbers below the highest one a flow remembers, to
 * tell a late packet from a duplicate: 3.3 s of a 20 kpps stream.  An
 * older packet is counted as reordered, never as a duplicate.
 */
#define MP_SEQSTAT_WINDOW	65536

/* What one arrival was, as mp_seqstat_add() classifies it. */
enum mp_seq_kind {
	MP_SEQ_NEXT,		/* above every sequence so far (maybe after a hole) */
	MP_SEQ_REORDERED,	/* below the highest so far, first copy */
	MP_SEQ_DUPLICATE,	/* a copy of one that already arrived */
};

/* The sequence numbers of one flow.  Zero it to start, then set expect. */
struct mp_seqstat {
	/* The sender sends sequences 0 .. expect-1; 0 when not known. */
	uint64_t expect;
	uint64_t received;	/* every arrival, duplicates included */
	uint64_t duplicates;
	uint64_t reordered;
	uint64_t beyond;	/* first copies of sequences >= expect */
	uint64_t first;		/* lowest sequence number seen */
	uint64_t last;		/* highest sequence number seen */
	/* Bit (seq % WINDOW) is set when seq, in (last - WINDOW, last],
	 * has arrived. */
	uint64_t seen[MP_SEQSTAT_WINDOW / 64];
};

enum mp_seq_kind mp_seqstat_add(struct mp_seqstat *s, uint64_t seq);

/* Arrivals less duplicates. */
uint64_t mp_seqstat_unique(const struct mp_seqstat *s);

/*
 * Packets lost.  With expect, the sequences below it that did not arrive,
 * so loss at the head and at the tail counts too; without, only the holes
 * between the lowest and the highest sequence that arrived, which are all
 * that a receiver can know of on its own.
 */
uint64_t mp_seqstat_lost(const struct mp_seqstat *s);

/*
 * Delivery gaps: the time between consecutive arrivals of a stream (one
 * flow, or all of them).  Zero it to start.
 *
 * The excess gap of two consecutive arrivals is their arrival gap less
 * their send gap, both taken from timestamps: the delay that the path
 * added between them.  A sender that stalls sends late and so makes
 * arrival gaps but no excess; packets lost make arrival gaps too, and
 * no excess either, so loss shows in the arrival gap and in the loss
 * count, and delay in the excess.
 */
struct mp_gapstat {
	uint64_t arrivals;
	uint64_t prev_rx_ns, prev_tx_ns;
	uint64_t prev_seq;
	uint32_t prev_flow;
	uint64_t max_gap_ns;		/* 0 with fewer than two arrivals */
	uint64_t max_gap_seq;		/* the arrival before the largest gap */
	uint32_t max_gap_flow;
	int64_t max_excess_ns;		/* clamped at 0 when reported */
	uint64_t max_excess_seq;
	uint32_t max_excess_flow;
	int64_t last_excess_ns;		/* of the latest two arrivals */
};

/*
 * Account the arrival at @rx_ns of the packet of @flow and @seq sent at
 * @tx_ns.  Returns true with the arrival gap in @gap_ns from the second
 * arrival on.  Clocks that step back make a gap of 0, never a huge one.
 */
bool mp_gapstat_add(struct mp_gapstat *g, uint64_t rx_ns, uint64_t tx_ns,
		    uint32_t flow, uint64_t seq, uint64_t *gap_ns);

/* The largest excess gap, never below 0. */
uint64_t mp_gapstat_max_excess(const struct mp_gapstat *g);

/*
 * Gaps near a fault.  A failover loses the packets that were in flight on
 * the failed path, and the gaps around that moment are the outage that a
 * user sees; gaps elsewhere in a stream are another matter (a TCG guest
 * whose vCPU the host deschedules shows gaps of several ms at random).
 * A fault is an arrival that closed a hole in its flow's sequence, or an
 * event from outside (a link going down); the window is every arrival
 * within window_ns of one, before or after.
 *
 * The arrivals before a fault are remembered in a ring: at a rate above
 * MP_FAULTWIN_RING arrivals per window_ns, the earliest of them drop out.
 */
#define MP_FAULTWIN_RING	4096

struct mp_faultwin_arrival {
	uint64_t rx_ns;
	uint64_t gap_ns;
	int64_t excess_ns;
	bool settled;		/* counted near a fault, or away from all */
};

struct mp_faultwin {
	uint64_t window_ns;		/* set before the first add */
	uint64_t holes;			/* arrivals that closed a hole */
	uint64_t events;		/* faults from outside */
	uint64_t open_until_ns;		/* arrivals up to here count */
	uint64_t max_gap_ns;
	int64_t max_excess_ns;		/* clamped at 0 when reported */
	int64_t max_excess_away_ns;	/* of arrivals near no fault */
	unsigned int head, len;
	struct mp_faultwin_arrival ring[MP_FAULTWIN_RING];
};

/* Account an arrival at @rx_ns with its arrival and excess gaps (from
 * struct mp_gapstat); @closes_hole when a sequence before it was
 * skipped. */
void mp_faultwin_add(struct mp_faultwin *w, uint64_t rx_ns, uint64_t gap_ns,
		     int64_t excess_ns, bool closes_hole);

/* A fault from outside at @ns, on the clock of the arrivals. */
void mp_faultwin_event(struct mp_faultwin *w, uint64_t ns);

/* Whether any fault was seen: the maxima mean nothing before. */
bool mp_faultwin_seen(const struct mp_faultwin *w);

/* The largest excess gap near a fault, never below 0. */
uint64_t mp_faultwin_max_excess(const struct mp_faultwin *w);

/*
 * The end of the stream: the arrivals still in the ring that no fault's
 * window reached are away from every fault.  Then the largest excess gap
 * away from faults (never below 0): a stream that stalled there too was
 * stalled by its host, whatever happened at the fault.
 */
void mp_faultwin_finish(struct mp_faultwin *w);
uint64_t mp_faultwin_max_excess_away(const struct mp_faultwin *w);

#endif /* MP_SEQSTAT_H */
