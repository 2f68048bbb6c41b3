// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <string.h>

#include "mp_seqstat.h"

#define WINDOW	MP_SEQSTAT_WINDOW

/* Mark @seq as arrived; whether it already was. */
static bool seen_test_and_set(struct mp_seqstat *s, uint64_t seq)
{
	uint64_t bit = seq % WINDOW, mask = 1ULL << (bit % 64);
	uint64_t *word = &s->seen[bit / 64];
	bool was = *word & mask;

	*word |= mask;
	return was;
}

/* Slide the window up to @seq (> last): the bits it leaves behind are
 * reused for the sequences that enter it, which have not arrived yet. */
static void seen_advance(struct mp_seqstat *s, uint64_t seq)
{
	uint64_t n, bit;

	if (seq - s->last >= WINDOW) {
		memset(s->seen, 0, sizeof(s->seen));
		return;
	}
	for (n = s->last + 1; n != seq + 1; n++) {
		bit = n % WINDOW;
		s->seen[bit / 64] &= ~(1ULL << (bit % 64));
	}
}

static enum mp_seq_kind classify(struct mp_seqstat *s, uint64_t seq)
{
	if (!s->received++) {
		s->first = s->last = seq;
		seen_test_and_set(s, seq);
		return MP_SEQ_NEXT;
	}
	if (seq > s->last) {
		seen_advance(s, seq);
		s->last = seq;
		seen_test_and_set(s, seq);
		return MP_SEQ_NEXT;
	}
	if (seq < s->first)
		s->first = seq;
	/* Too old to remember: first copy or not, it came late. */
	if (s->last - seq < WINDOW && seen_test_and_set(s, seq)) {
		s->duplicates++;
		return MP_SEQ_DUPLICATE;
	}
	s->reordered++;
	return MP_SEQ_REORDERED;
}

enum mp_seq_kind mp_seqstat_add(struct mp_seqstat *s, uint64_t seq)
{
	enum mp_seq_kind kind = classify(s, seq);

	/* Not what was expected: it cannot make up for a loss. */
	if (s->expect && seq >= s->expect && kind != MP_SEQ_DUPLICATE)
		s->beyond++;
	return kind;
}

uint64_t mp_seqstat_unique(const struct mp_seqstat *s)
{
	return s->received - s->duplicates;
}

uint64_t mp_seqstat_lost(const struct mp_seqstat *s)
{
	uint64_t unique = mp_seqstat_unique(s), between;

	/* Never below 0, though a duplicate too old to tell counts twice. */
	if (s->expect)
		return s->expect > unique - s->beyond ?
		       s->expect - (unique - s->beyond) : 0;
	if (!unique)
		return 0;
	/* Sequences strictly between first and last, less those that came;
	 * written so that a span of the whole 64-bit range cannot wrap. */
	between = s->last - s->first;
	return between > unique - 1 ? between - (unique - 1) : 0;
}

/* a - b, saturated: timestamps come off the wire and may be anything. */
static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(a, b, &d))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return d;
}

bool mp_gapstat_add(struct mp_gapstat *g, uint64_t rx_ns, uint64_t tx_ns,
		    uint32_t flow, uint64_t seq, uint64_t *gap_ns)
{
	bool first_gap = g->arrivals == 1;
	uint64_t gap;
	int64_t excess;

	if (g->arrivals++) {
		gap = rx_ns > g->prev_rx_ns ? rx_ns - g->prev_rx_ns : 0;
		/* A packet that overtook its predecessor was sent before it:
		 * its send gap is negative and its excess larger. */
		excess = sat_sub(gap > INT64_MAX ? INT64_MAX : (int64_t)gap,
				 (int64_t)(tx_ns - g->prev_tx_ns));
		if (first_gap || gap > g->max_gap_ns) {
			g->max_gap_ns = gap;
			g->max_gap_seq = g->prev_seq;
			g->max_gap_flow = g->prev_flow;
		}
		if (first_gap || excess > g->max_excess_ns) {
			g->max_excess_ns = excess;
			g->max_excess_seq = g->prev_seq;
			g->max_excess_flow = g->prev_flow;
		}
		g->last_excess_ns = excess;
		*gap_ns = gap;
	}
	g->prev_rx_ns = rx_ns;
	g->prev_tx_ns = tx_ns;
	g->prev_seq = seq;
	g->prev_flow = flow;
	return g->arrivals > 1;
}

uint64_t mp_gapstat_max_excess(const struct mp_gapstat *g)
{
	return g->max_excess_ns > 0 ? (uint64_t)g->max_excess_ns : 0;
}

static void faultwin_count(struct mp_faultwin *w,
			   struct mp_faultwin_arrival *a)
{
	a->settled = true;
	if (a->gap_ns > w->max_gap_ns)
		w->max_gap_ns = a->gap_ns;
	if (a->excess_ns > w->max_excess_ns)
		w->max_excess_ns = a->excess_ns;
}

static void faultwin_away(struct mp_faultwin *w,
			  struct mp_faultwin_arrival *a)
{
	if (!a->settled && a->excess_ns > w->max_excess_away_ns)
		w->max_excess_away_ns = a->excess_ns;
	a->settled = true;
}

bool mp_faultwin_seen(const struct mp_faultwin *w)
{
	return w->holes || w->events;
}

/* A fault at @ns: the window reaches back, so count what came just
 * before, newest first, unless an earlier fault's window did. */
static void faultwin_open(struct mp_faultwin *w, uint64_t ns)
{
	struct mp_faultwin_arrival *a;
	unsigned int i;

	for (i = 0; i < w->len; i++) {
		a = &w->ring[(w->head + MP_FAULTWIN_RING - 1 - i) %
			     MP_FAULTWIN_RING];
		if (a->rx_ns + w->window_ns < ns || a->rx_ns <= w->open_until_ns)
			break;
		faultwin_count(w, a);
	}
	w->open_until_ns = ns + w->window_ns;
}

void mp_faultwin_event(struct mp_faultwin *w, uint64_t ns)
{
	w->events++;
	faultwin_open(w, ns);
}

void mp_faultwin_add(struct mp_faultwin *w, uint64_t rx_ns, uint64_t gap_ns,
		     int64_t excess_ns, bool closes_hole)
{
	struct mp_faultwin_arrival a = { rx_ns, gap_ns, excess_ns, false };

	if (closes_hole) {
		w->holes++;
		faultwin_open(w, rx_ns);
	}
	if (mp_faultwin_seen(w) && rx_ns <= w->open_until_ns)
		faultwin_count(w, &a);
	/* The oldest arrival leaves the ring: no window can reach it now. */
	if (w->len == MP_FAULTWIN_RING)
		faultwin_away(w, &w->ring[w->head]);
	w->ring[w->head] = a;
	w->head = (w->head + 1) % MP_FAULTWIN_RING;
	if (w->len < MP_FAULTWIN_RING)
		w->len++;
}

uint64_t mp_faultwin_max_excess(const struct mp_faultwin *w)
{
	return w->max_excess_ns > 0 ? (uint64_t)w->max_excess_ns : 0;
}

void mp_faultwin_finish(struct mp_faultwin *w)
{
	unsigned int i;

	for (i = 0; i < w->len; i++)
		faultwin_away(w, &w->ring[i]);
}

uint64_t mp_faultwin_max_excess_away(const struct mp_faultwin *w)
{
	return w->max_excess_away_ns > 0 ? (uint64_t)w->max_excess_away_ns : 0;
}
