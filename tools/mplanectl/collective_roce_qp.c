// SPDX-License-Identifier: GPL-2.0
/*
 * A QP of the roce transport, without sockets: the requester sends a
 * window of packets and goes back to the oldest unacked one on a NAK or
 * a timeout (go-back-N); the responder takes packets in PSN order only,
 * places them into the posted receives (or keeps them for receives to
 * come), and says how far it got with cumulative ACKs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collective_roce.h"

/* Bytes of one exchange's messages to or from one peer: with the window,
 * PSN arithmetic in the 24-bit circle stays unambiguous. */
#define ROCE_QUEUE_PKTS		(1U << 22)

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
	sq->window = ROCE_WINDOW;
	sq->rto_ns = ROCE_RTO_INIT;
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

/* cur: the message that holds nxt (tail once all is sent). */
static void sq_seek(struct roce_sq *sq)
{
	sq->cur = sq->q.head;
	while (sq->cur < sq->q.tail &&
	       roce_psn_diff(sq->nxt, msg_end(&sq->q.m[sq->cur])) >= 0)
		sq->cur++;
}

static uint8_t send_opcode(uint32_t k, uint32_t npkts)
{
	if (npkts == 1)
		return ROCE_OP_SEND_ONLY;
	if (k == 0)
		return ROCE_OP_SEND_FIRST;
	return k == npkts - 1 ? ROCE_OP_SEND_LAST : ROCE_OP_SEND_MIDDLE;
}

bool roce_sq_next(struct roce_sq *sq, uint32_t dqpn, struct roce_tx_pkt *p)
{
	int32_t window = sq->paused ? 0 : sq->window;
	const struct roce_msg *m;
	uint32_t k;
	size_t off;

	if (sq->nxt == sq->end || roce_psn_diff(sq->nxt, sq->una) >= window)
		return false;
	m = &sq->q.m[sq->cur];
	k = roce_psn_diff(sq->nxt, m->psn);
	off = (size_t)k * ROCE_MTU;
	p->payload = m->buf + off;
	p->len = m->len - off < ROCE_MTU ? m->len - off : ROCE_MTU;
	p->bth = (struct roce_bth){
		.opcode = send_opcode(k, m->npkts),
		.pad = -p->len & 3,
		.dqpn = dqpn,
		.psn = sq->nxt,
		/* A message's end, every ROCE_ACK_EVERY PSNs, and what fills
		 * the window: the requester never waits for a late ACK. */
		.ackreq = k == m->npkts - 1 ||
			  roce_psn_diff(sq->nxt, sq->una) + 1 >= window ||
			  (sq->nxt & (ROCE_ACK_EVERY - 1)) == ROCE_ACK_EVERY - 1,
	};
	sq->nxt = roce_psn_add(sq->nxt, 1);
	if (k == m->npkts - 1)
		sq->cur++;
	return true;
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
	sq->window = ROCE_WINDOW;
	while (!roce_msgq_empty(&sq->q) &&
	       roce_psn_diff(msg_end(&sq->q.m[sq->q.head]), acked) <= 0)
		sq->q.head++;
	if (roce_psn_diff(sq->nxt, acked) < 0)
		sq->nxt = acked;
	if (sq->frto)
		sq_frto(sq, probe, acked);
	sq_seek(sq);
}

bool roce_sq_ack(struct roce_sq *sq, uint8_t syndrome, uint32_t psn,
		 uint64_t now)
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
	if (kind == ROCE_AETH_NAK_SEQ || kind == ROCE_AETH_RNR) {
		/* Go back N: all from the PSN the responder wants again. */
		sq->nxt = acked;
		sq_seek(sq);
		sq->timing = false;
		sq->frto = false;
	}
	/* An RNR NAK: nothing goes out until the responder says it has
	 * room (a NAK) or the timer sends a probe.  A NAK means it takes
	 * packets: the whole window. */
	sq->paused = kind == ROCE_AETH_RNR;
	if (kind == ROCE_AETH_NAK_SEQ)
		sq->window = ROCE_WINDOW;
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

enum roce_rx roce_rq_data(struct roce_rq *rq, const struct roce_bth *h,
			  struct roce_buf **b, struct roce_qp_stats *st,
			  const char **why)
{
	int32_t d = roce_psn_diff(h->psn, rq->epsn);

	if (!d)
		return rq_in_order(rq, h, b, st, why);
	st->dropped++;
	if (d < 0) {
		/* A duplicate: our ACK was lost or late; say it again. */
		rq->ack_now = true;
	} else if (!rq->nak_sent && !rq->rnr) {
		/* The first packet past a gap: one NAK per gap. */
		rq->nak_sent = true;
		rq->ctl = ROCE_CTL_NAK;
	}
	return ROCE_RX_DROPPED;
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
		b->next = *free;
		*free = b;
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

bool roce_rq_ack(struct roce_rq *rq, bool all, uint8_t *syndrome,
		 uint32_t *psn, uint32_t *msn, struct roce_qp_stats *st)
{
	switch (rq->ctl) {
	case ROCE_CTL_NAK:
		*syndrome = ROCE_AETH_NAK_SEQ;
		*psn = rq->epsn;
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

	while ((b = rq->ahead)) {
		rq->ahead = b->next;
		free(b);
	}
	rq->ahead_tail = NULL;
	rq->nahead = 0;
}
