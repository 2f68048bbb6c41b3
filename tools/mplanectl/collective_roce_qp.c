// SPDX-License-Identifier: GPL-2.0
/*
 * A QP of the roce transport, without sockets: the requester sends a
 * window of packets; the responder places them in PSN order into the
 * posted receives (or keeps them for receives to come), holds those that
 * come past a gap, and says how far it got with cumulative ACKs and, for
 * a gap, a NAK that names where it ends.  The requester resends that gap
 * alone (selective repeat, as RNICs do that run over lossy, adaptively
 * routed fabrics: a reordered packet costs no window) and, after a
 * timeout, goes back to the oldest unacked packet (go-back-N).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collective_roce.h"

/* Bytes of one exchange's messages to or from one peer: with the window,
 * PSN arithmetic in the 24-bit circle stays unambiguous. */
#define ROCE_QUEUE_PKTS		(1U << 22)

/* A held packet's slot is its PSN modulo the window. */
_Static_assert((ROCE_WINDOW & (ROCE_WINDOW - 1)) == 0,
	       "ROCE_WINDOW must be a power of two");
#define HELD_SLOT(psn)		((psn) & (ROCE_WINDOW - 1))

int roce_msgq_push(struct roce_msgq *q, void *buf, size_t len)
{
	struct roce_msg *m;
	unsigned int cap;

	if (q->tail == q->cap) {
		cap = q->cap ? 2 * q->cap : 4;
		m = realloc(q->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		q->m = m;
		q->cap = cap;
	}
	q->m[q->tail++] = (struct roce_msg){ .buf = buf, .len = len };
	return 0;
}

void roce_msgq_free(struct roce_msgq *q)
{
	free(q->m);
	memset(q, 0, sizeof(*q));
}

/* An exchange's queue starts over where the last one ended: at 0. */
static void msgq_rewind_if_empty(struct roce_msgq *q)
{
	if (roce_msgq_empty(q))
		q->head = q->tail = 0;
}

static uint32_t msg_end(const struct roce_msg *m)
{
	return roce_psn_add(m->psn, m->npkts);
}

/* ---- requester ---- */

void roce_sq_init(struct roce_sq *sq, uint32_t isn)
{
	struct roce_msgq q = sq->q;

	memset(sq, 0, sizeof(*sq));
	sq->q = q;
	sq->q.head = sq->q.tail = 0;
	sq->una = sq->nxt = sq->max = sq->end = isn & ROCE_PSN_MASK;
	sq->rtx_nxt = sq->rtx_end = sq->una;
	sq->rto_ns = ROCE_RTO_INIT;
	roce_sq_set_window(sq, ROCE_WINDOW);
}

void roce_sq_set_window(struct roce_sq *sq, uint32_t pkts)
{
	uint32_t every = 1;

	pkts = pkts < 1 ? 1 : pkts > ROCE_WINDOW ? ROCE_WINDOW : pkts;
	/* ACKs often enough that the window slides rather than stops: a
	 * quarter of it, as a power of two so that PSNs that wrap keep the
	 * spacing. */
	while (every * 2 <= pkts / 4 && every * 2 <= ROCE_ACK_EVERY)
		every *= 2;
	sq->window_max = pkts;
	sq->ack_every = every;
	/* A timeout's window of one lasts until an ACK moves. */
	if (sq->window != 1)
		sq->window = pkts;
}

int roce_sq_post(struct roce_sq *sq, const void *buf, size_t len)
{
	uint64_t npkts = len ? (len + ROCE_MTU - 1) / ROCE_MTU : 1;
	struct roce_msg *m;
	int err;

	if (npkts + roce_psn_diff(sq->end, sq->una) > ROCE_QUEUE_PKTS)
		return -EMSGSIZE;
	if (roce_msgq_empty(&sq->q))
		sq->cur = 0;
	msgq_rewind_if_empty(&sq->q);
	/* The requester only reads it; the queue serves receives too. */
	err = roce_msgq_push(&sq->q, (void *)buf, len);
	if (err)
		return err;
	m = &sq->q.m[sq->q.tail - 1];
	m->psn = sq->end;
	m->npkts = npkts;
	sq->end = roce_psn_add(sq->end, npkts);
	return 0;
}

/* The message that holds @psn (tail when none does). */
static unsigned int sq_msg_of(const struct roce_sq *sq, uint32_t psn)
{
	unsigned int i = sq->q.head;

	while (i < sq->q.tail && roce_psn_diff(psn, msg_end(&sq->q.m[i])) >= 0)
		i++;
	return i;
}

/* cur: the message that holds nxt (tail once all is sent). */
static void sq_seek(struct roce_sq *sq)
{
	sq->cur = sq_msg_of(sq, sq->nxt);
}

static uint8_t send_opcode(uint32_t k, uint32_t npkts)
{
	if (npkts == 1)
		return ROCE_OP_SEND_ONLY;
	if (k == 0)
		return ROCE_OP_SEND_FIRST;
	return k == npkts - 1 ? ROCE_OP_SEND_LAST : ROCE_OP_SEND_MIDDLE;
}

/* Packet @psn of message @m, and whether it ends the message. */
static bool sq_packet(const struct roce_msg *m, uint32_t psn, uint32_t dqpn,
		      struct roce_tx_pkt *p)
{
	uint32_t k = roce_psn_diff(psn, m->psn);
	size_t off = (size_t)k * ROCE_MTU;

	p->payload = m->buf + off;
	p->len = m->len - off < ROCE_MTU ? m->len - off : ROCE_MTU;
	p->bth = (struct roce_bth){
		.opcode = send_opcode(k, m->npkts),
		.pad = -p->len & 3,
		.dqpn = dqpn,
		.psn = psn,
		.ackreq = k == m->npkts - 1,
	};
	return k == m->npkts - 1;
}

/*
 * The next packet of the gap the responder NAKed, if one is left: out of
 * the window's count, as it is inside it.  Its last asks for an ACK, so
 * that what the responder held is acked as soon as the gap fills.
 */
static bool sq_next_rtx(struct roce_sq *sq, uint32_t dqpn,
			struct roce_tx_pkt *p)
{
	unsigned int i;

	if (roce_psn_diff(sq->rtx_nxt, sq->una) < 0)
		sq->rtx_nxt = sq->una;
	if (roce_psn_diff(sq->rtx_nxt, sq->rtx_end) >= 0)
		return false;
	i = sq_msg_of(sq, sq->rtx_nxt);
	if (i == sq->q.tail)
		return false;
	sq_packet(&sq->q.m[i], sq->rtx_nxt, dqpn, p);
	sq->rtx_nxt = roce_psn_add(sq->rtx_nxt, 1);
	if (sq->rtx_nxt == sq->rtx_end)
		p->bth.ackreq = true;
	return true;
}

bool roce_sq_next(struct roce_sq *sq, uint32_t dqpn, struct roce_tx_pkt *p)
{
	int32_t window = sq->paused ? 0 : sq->window;

	if (!sq->paused && sq_next_rtx(sq, dqpn, p))
		return true;
	if (sq->nxt == sq->end || roce_psn_diff(sq->nxt, sq->una) >= window)
		return false;
	if (sq_packet(&sq->q.m[sq->cur], sq->nxt, dqpn, p))
		sq->cur++;
	/* A message's end, every ROCE_ACK_EVERY PSNs, and what fills the
	 * window: the requester never waits for a late ACK. */
	p->bth.ackreq |= roce_psn_diff(sq->nxt, sq->una) + 1 >= window ||
			 (sq->nxt & (sq->ack_every - 1)) == sq->ack_every - 1;
	sq->nxt = roce_psn_add(sq->nxt, 1);
	return true;
}

/* Forget the gap to resend: the requester goes back N instead. */
static void sq_rtx_clear(struct roce_sq *sq)
{
	sq->rtx_nxt = sq->rtx_end = sq->una;
}

void roce_sq_sent(struct roce_sq *sq, uint32_t psn, uint64_t now,
		  struct roce_qp_stats *st)
{
	if (roce_psn_diff(psn, sq->max) < 0) {
		st->retransmits++;
		/* Karn: an ACK after a retransmission times nothing. */
		sq->timing = false;
	} else {
		sq->max = roce_psn_add(psn, 1);
		if (!sq->timing) {
			sq->timing = true;
			sq->timed_psn = psn;
			sq->timed_ns = now;
		}
	}
	if (!sq->deadline_ns)
		sq->deadline_ns = now + sq->rto_ns;
}

void roce_sq_unsend(struct roce_sq *sq, uint32_t psn)
{
	/* A packet of the gap: the gap's own resend takes it again. */
	if (roce_psn_diff(psn, sq->rtx_end) < 0 &&
	    roce_psn_diff(psn, sq->una) >= 0) {
		if (roce_psn_diff(psn, sq->rtx_nxt) < 0)
			sq->rtx_nxt = psn;
		return;
	}
	if (roce_psn_diff(psn, sq->nxt) < 0) {
		sq->nxt = psn;
		sq_seek(sq);
	}
}

/* RFC 6298's estimator, with our floor and ceiling; no backoff. */
static uint64_t sq_base_rto(const struct roce_sq *sq)
{
	uint64_t rto = sq->srtt_ns + 4 * sq->rttvar_ns;

	if (!sq->srtt_ns)
		return ROCE_RTO_INIT;
	if (rto < ROCE_RTO_MIN)
		return ROCE_RTO_MIN;
	return rto > ROCE_RTO_MAX ? ROCE_RTO_MAX : rto;
}

static void sq_rtt(struct roce_sq *sq, uint64_t rtt)
{
	uint64_t d;

	if (!sq->rtt_min_ns || (rtt ? rtt : 1) < sq->rtt_min_ns)
		sq->rtt_min_ns = rtt ? rtt : 1;
	if (!sq->srtt_ns) {
		sq->srtt_ns = rtt ? rtt : 1;
		sq->rttvar_ns = rtt / 2;
		return;
	}
	d = sq->srtt_ns > rtt ? sq->srtt_ns - rtt : rtt - sq->srtt_ns;
	sq->rttvar_ns = (3 * sq->rttvar_ns + d) / 4;
	sq->srtt_ns = (7 * sq->srtt_ns + rtt) / 8;
}

/*
 * The first ACK after a timeout.  When it covers more than the probe, the
 * packets sent before the timer fired got through: the timeout was the
 * ACKs' lateness (a peer busy between exchanges, or descheduled), so go
 * on from where we were rather than send them all again (F-RTO's idea,
 * RFC 5682).  If some were lost after all, the next new packet finds the
 * gap, and its NAK sends us back.
 */
static void sq_frto(struct roce_sq *sq, uint32_t probe, uint32_t acked)
{
	sq->frto = false;
	if (roce_psn_diff(acked, roce_psn_add(probe, 1)) > 0 &&
	    roce_psn_diff(sq->frto_max, sq->nxt) > 0)
		sq->nxt = sq->frto_max;
}

/* Everything before @acked arrived: messages complete, the timer moves. */
static void sq_advance(struct roce_sq *sq, uint32_t acked, uint64_t now)
{
	uint32_t probe = sq->una;

	sq->una = acked;
	if (sq->timing && roce_psn_diff(sq->timed_psn, acked) < 0) {
		sq->timing = false;
		sq_rtt(sq, now - sq->timed_ns);
	}
	/* Progress: a timeout's backoff and window are over. */
	sq->rto_ns = sq_base_rto(sq);
	sq->window = sq->window_max;
	while (!roce_msgq_empty(&sq->q) &&
	       roce_psn_diff(msg_end(&sq->q.m[sq->q.head]), acked) <= 0)
		sq->q.head++;
	if (roce_psn_diff(sq->nxt, acked) < 0)
		sq->nxt = acked;
	if (roce_psn_diff(sq->rtx_end, acked) < 0)
		sq_rtx_clear(sq);
	if (sq->frto)
		sq_frto(sq, probe, acked);
	sq_seek(sq);
}

/*
 * A sequence NAK for the gap [@from, @end): resend it alone when the
 * requester has sent past it, else (it is already going back, or the
 * responder holds nothing past the gap) go back N from @from.
 */
static void sq_nak_seq(struct roce_sq *sq, uint32_t from, uint32_t end)
{
	if (roce_psn_diff(end, from) > 0 && roce_psn_diff(end, sq->max) <= 0 &&
	    roce_psn_diff(sq->nxt, end) >= 0) {
		sq->rtx_nxt = from;
		sq->rtx_end = end;
		return;
	}
	sq->nxt = from;
	sq_rtx_clear(sq);
	sq_seek(sq);
}

bool roce_sq_ack(struct roce_sq *sq, uint8_t syndrome, uint32_t psn,
		 uint32_t nak_end, uint64_t now)
{
	uint8_t kind = ROCE_AETH_KIND(syndrome);
	uint32_t acked;
	bool moved;

	/* An ACK names the last PSN it covers, a NAK the one it wants. */
	if (kind == ROCE_AETH_KIND_ACK)
		acked = roce_psn_add(psn, 1);
	else if (kind == ROCE_AETH_NAK_SEQ || kind == ROCE_AETH_RNR)
		acked = psn;
	else
		return false;
	/* Older than what we know, or of PSNs never sent: stale or bogus. */
	if (roce_psn_diff(acked, sq->una) < 0 ||
	    roce_psn_diff(acked, sq->max) > 0)
		return false;
	moved = acked != sq->una;
	if (moved)
		sq_advance(sq, acked, now);
	if (kind == ROCE_AETH_NAK_SEQ) {
		sq_nak_seq(sq, acked, nak_end);
	} else if (kind == ROCE_AETH_RNR) {
		/* Go back N: all from the PSN the responder wants again. */
		sq->nxt = acked;
		sq_rtx_clear(sq);
		sq_seek(sq);
	}
	if (kind != ROCE_AETH_KIND_ACK) {
		sq->timing = false;
		sq->frto = false;
	}
	/* An RNR NAK: nothing goes out until the responder says it has
	 * room (a NAK) or the timer sends a probe.  A NAK means it takes
	 * packets: the whole window. */
	sq->paused = kind == ROCE_AETH_RNR;
	if (kind == ROCE_AETH_NAK_SEQ)
		sq->window = sq->window_max;
	if (sq->una == sq->max && !sq->paused)
		sq->deadline_ns = 0;
	else if (moved || kind != ROCE_AETH_KIND_ACK)
		sq->deadline_ns = now + sq->rto_ns;
	return moved;
}

bool roce_sq_timer(struct roce_sq *sq, uint64_t now,
		   struct roce_qp_stats *st)
{
	if (!sq->deadline_ns || now < sq->deadline_ns)
		return false;
	if (sq->una == sq->max && !sq->paused) {
		sq->deadline_ns = 0;
		return false;
	}
	/* Resend the oldest packet alone, and see what its ACK says. */
	st->timeouts++;
	sq->frto = !sq->paused;
	sq->frto_max = sq->max;
	sq->nxt = sq->una;
	sq_rtx_clear(sq);
	sq_seek(sq);
	sq->paused = false;
	sq->window = 1;
	sq->timing = false;
	sq->rto_ns = 2 * sq->rto_ns > ROCE_RTO_MAX ? ROCE_RTO_MAX : 2 * sq->rto_ns;
	sq->deadline_ns = now + sq->rto_ns;
	return true;
}

/* ---- responder ---- */

void roce_rq_init(struct roce_rq *rq, uint32_t epsn)
{
	struct roce_msgq q = rq->q;

	roce_rq_free(rq);
	memset(rq, 0, sizeof(*rq));
	rq->q = q;
	rq->q.head = rq->q.tail = 0;
	rq->epsn = epsn & ROCE_PSN_MASK;
}

int roce_rq_post(struct roce_rq *rq, void *buf, size_t len)
{
	msgq_rewind_if_empty(&rq->q);
	return roce_msgq_push(&rq->q, buf, len);
}

/* The in-order packet of opcode @op into the oldest open receive. */
static int rq_place(struct roce_rq *rq, uint8_t op, const unsigned char *data,
		    size_t len, const char **why)
{
	struct roce_msg *m = &rq->q.m[rq->q.head];
	bool first = op == ROCE_OP_SEND_FIRST || op == ROCE_OP_SEND_ONLY;
	bool last = op == ROCE_OP_SEND_LAST || op == ROCE_OP_SEND_ONLY;

	if (first == rq->in_msg) {
		*why = rq->in_msg ? "a new message began inside another"
				  : "a message's middle or end came without its first packet";
		return -1;
	}
	if (!last && len != ROCE_MTU) {
		*why = "a packet other than a message's last was not of the path MTU";
		return -1;
	}
	if (len > m->len - m->done) {
		*why = "a message was longer than the receive";
		return -1;
	}
	memcpy(m->buf + m->done, data, len);
	m->done += len;
	rq->in_msg = !last;
	if (!last)
		return 0;
	if (m->done != m->len) {
		*why = "a message was shorter than the receive";
		return -1;
	}
	rq->q.head++;
	rq->msn = (rq->msn + 1) & ROCE_PSN_MASK;
	return 0;
}

static void rq_keep(struct roce_rq *rq, struct roce_buf *b)
{
	b->next = NULL;
	if (rq->ahead_tail)
		rq->ahead_tail->next = b;
	else
		rq->ahead = b;
	rq->ahead_tail = b;
	rq->nahead++;
}

/* A packet in order: placed, kept or refused. */
static enum roce_rx rq_in_order(struct roce_rq *rq, const struct roce_bth *h,
				struct roce_buf **b, struct roce_qp_stats *st,
				const char **why)
{
	struct roce_buf *p = *b;
	enum roce_rx rx = ROCE_RX_PLACED;

	if (!roce_msgq_empty(&rq->q)) {
		if (rq_place(rq, h->opcode, p->raw + p->off, p->len, why))
			return ROCE_RX_ERROR;
	} else if (rq->nahead < ROCE_AHEAD_MAX) {
		p->opcode = h->opcode;
		rq_keep(rq, p);
		*b = NULL;
		rx = ROCE_RX_KEPT;
	} else {
		/* Receiver not ready: the requester pauses until told. */
		st->dropped++;
		rq->rnr = true;
		rq->ctl = ROCE_CTL_RNR;
		return ROCE_RX_DROPPED;
	}
	rq->rnr = false;
	rq->epsn = roce_psn_add(rq->epsn, 1);
	rq->nak_sent = false;
	/* The gap it had NAKed is filled: an ACK says more now. */
	if (rq->ctl == ROCE_CTL_NAK)
		rq->ctl = ROCE_CTL_NONE;
	if (h->ackreq || ++rq->unacked >= ROCE_ACK_EVERY)
		rq->ack_now = true;
	return rx;
}

/*
 * What is taken for reordering: half the deepest gap seen yet, which a
 * loss makes the requester's window.  mp0 spraying a QP over a plane
 * with a link down and one without reorders so deep that 3, enough on
 * one path, resent 1696 packets the responder had (Documentation/
 * collective.md has the run).
 */
static unsigned int rq_reorder_pkts(const struct roce_rq *rq)
{
	unsigned int n = (rq->span + 1) / 2;

	return n < ROCE_REORDER_PKTS ? ROCE_REORDER_PKTS :
	       n > ROCE_REORDER_MAX ? ROCE_REORDER_MAX : n;
}

/* The gap at epsn is NAKed when more than reordering would hold is held
 * past it, or what is held ends a message (@msg_end: nothing may follow
 * it until an ACK); and again when ROCE_RENAK_PKTS more are held and it
 * is still open. */
static void rq_gap(struct roce_rq *rq, bool msg_end)
{
	if (rq->rnr || !rq->nheld)
		return;
	if (rq->nak_sent ? rq->nheld - rq->nak_held >= ROCE_RENAK_PKTS :
	    msg_end || rq->nheld >= rq_reorder_pkts(rq)) {
		rq->nak_sent = true;
		rq->nak_held = rq->nheld;
		rq->ctl = ROCE_CTL_NAK;
	}
}

/* A packet past epsn, held for its turn; a second copy, one beyond the
 * window, or any while receives are refused (RNR) is dropped. */
static enum roce_rx rq_hold(struct roce_rq *rq, const struct roce_bth *h,
			    struct roce_buf **b, struct roce_qp_stats *st)
{
	struct roce_buf **slot = &rq->held[HELD_SLOT(h->psn)];
	int32_t ahead = roce_psn_diff(h->psn, rq->epsn);
	bool msg_end;

	if (rq->rnr || *slot || ahead >= ROCE_WINDOW) {
		st->dropped++;
		return ROCE_RX_DROPPED;
	}
	(*b)->opcode = h->opcode;
	(*b)->ackreq = h->ackreq;
	*slot = *b;
	*b = NULL;
	rq->nheld++;
	st->held++;
	if ((unsigned int)ahead + 1 > rq->span)
		rq->span = ahead + 1;
	msg_end = h->opcode == ROCE_OP_SEND_LAST || h->opcode == ROCE_OP_SEND_ONLY;
	if (msg_end && (!rq->end_held || roce_psn_diff(h->psn, rq->end_psn) > 0)) {
		rq->end_held = true;
		rq->end_psn = h->psn;
	}
	rq_gap(rq, msg_end);
	return ROCE_RX_HELD;
}

static void buf_free(struct roce_buf **free, struct roce_buf *b)
{
	b->next = *free;
	*free = b;
}

/*
 * The held packets whose turn has come, in order, as if they came now;
 * those placed (or refused: the requester sends them again) go on
 * @free.  A gap left after them is NAKed at once if a message's end is
 * held past it (nothing follows that until an ACK), else as any other.
 */
static int rq_unhold(struct roce_rq *rq, struct roce_buf **free,
		     struct roce_qp_stats *st, const char **why)
{
	struct roce_buf **slot, *p;
	struct roce_bth h;

	while (rq->nheld && *(slot = &rq->held[HELD_SLOT(rq->epsn)])) {
		p = *slot;
		*slot = NULL;
		rq->nheld--;
		h = (struct roce_bth){
			.opcode = p->opcode, .ackreq = p->ackreq, .psn = rq->epsn,
		};
		switch (rq_in_order(rq, &h, &p, st, why)) {
		case ROCE_RX_ERROR:
			buf_free(free, p);
			return -1;
		case ROCE_RX_DROPPED:
			buf_free(free, p);
			return 0;
		case ROCE_RX_PLACED:
			buf_free(free, p);
			break;
		default:
			break;
		}
	}
	if (!rq->nheld)
		rq->end_held = false;
	rq_gap(rq, rq->end_held && roce_psn_diff(rq->end_psn, rq->epsn) > 0);
	return 0;
}

enum roce_rx roce_rq_data(struct roce_rq *rq, const struct roce_bth *h,
			  struct roce_buf **b, struct roce_buf **free,
			  struct roce_qp_stats *st, const char **why)
{
	int32_t d = roce_psn_diff(h->psn, rq->epsn);
	enum roce_rx rx;

	if (d > 0)
		return rq_hold(rq, h, b, st);
	if (d < 0) {
		/* A duplicate: our ACK was lost or late; say it again. */
		st->dropped++;
		rq->ack_now = true;
		return ROCE_RX_DROPPED;
	}
	rx = rq_in_order(rq, h, b, st, why);
	if ((rx == ROCE_RX_PLACED || rx == ROCE_RX_KEPT) &&
	    rq_unhold(rq, free, st, why))
		return ROCE_RX_ERROR;
	return rx;
}

int roce_rq_drain(struct roce_rq *rq, struct roce_buf **free,
		  const char **why)
{
	struct roce_buf *b;
	int err;

	while (rq->ahead && !roce_msgq_empty(&rq->q)) {
		b = rq->ahead;
		rq->ahead = b->next;
		if (!rq->ahead)
			rq->ahead_tail = NULL;
		rq->nahead--;
		err = rq_place(rq, b->opcode, b->raw + b->off, b->len, why);
		buf_free(free, b);
		if (err)
			return -1;
	}
	/* It refused packets, and has room now: ask for them again. */
	if (rq->rnr && rq->nahead < ROCE_AHEAD_MAX) {
		rq->rnr = false;
		rq->nak_sent = true;
		rq->ctl = ROCE_CTL_NAK;
	}
	return 0;
}

/* The gap at epsn ends at the first PSN held past it (epsn: none). */
static uint32_t rq_gap_end(const struct roce_rq *rq)
{
	unsigned int i;

	for (i = 1; rq->nheld && i < ROCE_WINDOW; i++)
		if (rq->held[HELD_SLOT(rq->epsn + i)])
			return roce_psn_add(rq->epsn, i);
	return rq->epsn;
}

bool roce_rq_ack(struct roce_rq *rq, bool all, uint8_t *syndrome,
		 uint32_t *psn, uint32_t *nak_end, uint32_t *msn,
		 struct roce_qp_stats *st)
{
	*nak_end = rq->epsn;
	switch (rq->ctl) {
	case ROCE_CTL_NAK:
		*syndrome = ROCE_AETH_NAK_SEQ;
		*psn = rq->epsn;
		*nak_end = rq_gap_end(rq);
		st->naks++;
		break;
	case ROCE_CTL_RNR:
		*syndrome = ROCE_AETH_RNR;
		*psn = rq->epsn;
		break;
	default:
		if (!rq->ack_now && !(all && rq->unacked))
			return false;
		*syndrome = ROCE_AETH_ACK;
		*psn = roce_psn_add(rq->epsn, ROCE_PSN_MASK);	/* epsn - 1 */
	}
	*msn = rq->msn;
	rq->ctl = ROCE_CTL_NONE;
	rq->ack_now = false;
	rq->unacked = 0;
	return true;
}

void roce_rq_free(struct roce_rq *rq)
{
	struct roce_buf *b;
	unsigned int i;

	while ((b = rq->ahead)) {
		rq->ahead = b->next;
		free(b);
	}
	rq->ahead_tail = NULL;
	rq->nahead = 0;
	for (i = 0; i < ROCE_WINDOW; i++) {
		free(rq->held[i]);
		rq->held[i] = NULL;
	}
	rq->nheld = 0;
	rq->end_held = false;
}
