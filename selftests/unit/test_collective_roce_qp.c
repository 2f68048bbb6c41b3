// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/mplanectl/collective_roce_qp.c, the roce
 * transport's selective repeat and go-back-N: a requester and a
 * responder joined by a simulated wire that loses, reorders and
 * duplicates packets and ACKs, on a clock of its own.  Every message must
 * arrive whole and in order, across the 24-bit PSN wrap, through a full
 * keep-ahead buffer (RNR) and a peer whose ACKs stop for a while or come
 * late; a gap is resent alone, reordering is not resent at all; and
 * messages that do not fit the receives are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collective_roce.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define MS		1000000ULL
#define WIRE_MAX	(4 * ROCE_WINDOW)
#define DQPN		0x010102

struct pkt {
	struct roce_bth bth;
	struct roce_buf *b;	/* data */
	uint8_t syndrome;	/* an ACK's */
	uint32_t nak_end;	/* a sequence NAK's */
};

/* One direction of the wire; what it holds arrives at the next step. */
struct wire {
	struct pkt q[WIRE_MAX];
	unsigned int n;
	unsigned int loss, reorder, dup;	/* per mille */
	bool cut;				/* loses everything */
};

struct sim {
	struct roce_sq sq;
	struct roce_rq rq;
	struct roce_qp_stats st;
	struct wire ab, ba;
	struct roce_buf *free;
	uint64_t now;
	uint32_t rand;
	unsigned int placed, kept, held, errors;
	const char *why;
};

static unsigned int sim_rand(struct sim *s)
{
	s->rand = s->rand * 1103515245 + 12345;
	return (s->rand >> 16) % 1000;
}

static struct roce_buf *buf_get(struct sim *s)
{
	struct roce_buf *b = s->free;

	if (!b)
		return malloc(sizeof(*b));
	s->free = b->next;
	return b;
}

static void buf_put(struct sim *s, struct roce_buf *b)
{
	if (!b)
		return;
	b->next = s->free;
	s->free = b;
}

static void sim_init(struct sim *s, uint32_t isn)
{
	memset(s, 0, sizeof(*s));
	roce_sq_init(&s->sq, isn);
	roce_rq_init(&s->rq, isn);
	s->rand = 1;
}

static void sim_free(struct sim *s)
{
	struct roce_buf *b;
	unsigned int i;

	for (i = 0; i < s->ab.n; i++)
		free(s->ab.q[i].b);
	roce_msgq_free(&s->sq.q);
	roce_msgq_free(&s->rq.q);
	roce_rq_free(&s->rq);
	while ((b = s->free)) {
		s->free = b->next;
		free(b);
	}
}

/* Put @p on @w, or lose it, or put it twice, or before the last one. */
static void wire_put(struct sim *s, struct wire *w, struct pkt *p)
{
	struct roce_buf *copy;
	struct pkt t;

	if (w->cut || sim_rand(s) < w->loss || w->n >= WIRE_MAX - 1) {
		buf_put(s, p->b);
		return;
	}
	w->q[w->n++] = *p;
	if (sim_rand(s) < w->dup && p->b) {
		copy = buf_get(s);
		*copy = *p->b;
		w->q[w->n] = *p;
		w->q[w->n++].b = copy;
	}
	if (w->n >= 2 && sim_rand(s) < w->reorder) {
		t = w->q[w->n - 1];
		w->q[w->n - 1] = w->q[w->n - 2];
		w->q[w->n - 2] = t;
	}
}

static void send_data(struct sim *s)
{
	struct roce_tx_pkt p;
	struct pkt k;

	while (roce_sq_next(&s->sq, DQPN, &p)) {
		k = (struct pkt){ .bth = p.bth, .b = buf_get(s) };
		k.b->off = ROCE_BTH_LEN;
		k.b->len = p.len;
		memcpy(k.b->raw + k.b->off, p.payload, p.len);
		roce_sq_sent(&s->sq, p.bth.psn, s->now, &s->st);
		wire_put(s, &s->ab, &k);
	}
}

static void deliver_data(struct sim *s)
{
	unsigned int i;

	for (i = 0; i < s->ab.n; i++) {
		struct pkt *k = &s->ab.q[i];

		switch (roce_rq_data(&s->rq, &k->bth, &k->b, &s->free, &s->st,
				     &s->why)) {
		case ROCE_RX_PLACED:
			s->placed++;
			break;
		case ROCE_RX_KEPT:
			s->kept++;
			break;
		case ROCE_RX_HELD:
			s->held++;
			break;
		case ROCE_RX_ERROR:
			s->errors++;
			break;
		case ROCE_RX_DROPPED:
			break;
		}
		buf_put(s, k->b);
	}
	s->ab.n = 0;
}

static void send_acks(struct sim *s, bool all)
{
	uint32_t psn, nak_end, msn;
	uint8_t syn;
	struct pkt k;

	while (roce_rq_ack(&s->rq, all, &syn, &psn, &nak_end, &msn, &s->st)) {
		k = (struct pkt){ .bth.psn = psn, .syndrome = syn, .nak_end = nak_end };
		wire_put(s, &s->ba, &k);
	}
}

static void deliver_acks(struct sim *s)
{
	unsigned int i;

	for (i = 0; i < s->ba.n; i++)
		roce_sq_ack(&s->sq, s->ba.q[i].syndrome, s->ba.q[i].bth.psn,
			    s->ba.q[i].nak_end, s->now);
	s->ba.n = 0;
}

/* One step of 100 us: both ends do all they can, then time passes. */
static void sim_step(struct sim *s)
{
	send_data(s);
	deliver_data(s);
	send_acks(s, true);
	deliver_acks(s);
	s->now += MS / 10;
	roce_sq_timer(&s->sq, s->now, &s->st);
}

/* Steps until every send is acked and every receive full, or @max. */
static void sim_run(struct sim *s, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max && !s->errors; i++) {
		if (roce_sq_done(&s->sq) && roce_rq_done(&s->rq) && !s->ab.n)
			return;
		sim_step(s);
	}
}

static unsigned char *pattern(size_t len, unsigned int seed)
{
	unsigned char *b = malloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 7 + seed * 131 + (i >> 10));
	return b;
}

static const size_t sizes[] = { 0, 1, 3, 1023, 1024, 1025, 4096, 70001 };
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

/* Post every size, run, and check each receive against its send. */
static void run_sizes(struct sim *s, unsigned int max_steps)
{
	unsigned char *tx[NSIZES], *rx[NSIZES];
	unsigned int i;

	for (i = 0; i < NSIZES; i++) {
		tx[i] = pattern(sizes[i], i);
		rx[i] = calloc(1, sizes[i] + 1);
		assert_int_equal(roce_sq_post(&s->sq, tx[i], sizes[i]), 0);
		assert_int_equal(roce_rq_post(&s->rq, rx[i], sizes[i]), 0);
	}
	sim_run(s, max_steps);
	assert_int_equal(s->errors, 0);
	assert_true(roce_sq_done(&s->sq));
	assert_true(roce_rq_done(&s->rq));
	for (i = 0; i < NSIZES; i++) {
		assert_memory_equal(tx[i], rx[i], sizes[i]);
		free(tx[i]);
		free(rx[i]);
	}
}

static void test_psn_arith(TEST_ARGS)
{
	assert_int_equal(roce_psn_add(0xffffff, 1), 0);
	assert_int_equal(roce_psn_add(0xfffffe, 5), 3);
	assert_int_equal(roce_psn_diff(2, 0xfffffe), 4);
	assert_int_equal(roce_psn_diff(0xfffffe, 2), -4);
	assert_int_equal(roce_psn_diff(5, 5), 0);
	assert_int_equal(roce_qpn(3, 7), 0x010307);
}

static void test_clean(TEST_ARGS)
{
	struct sim s;

	sim_init(&s, 1000);
	run_sizes(&s, 1000);
	assert_int_equal(s.st.retransmits, 0);
	assert_int_equal(s.st.timeouts, 0);
	assert_int_equal(s.st.naks, 0);
	assert_int_equal(s.st.dropped, 0);
	assert_int_equal(s.rq.msn, NSIZES);
	/* Timed: the least sample, never above the smoothed RTT.  The
	 * simulation ACKs within the step, so both are its least, 1 ns. */
	assert_true(s.sq.rtt_min_ns >= 1 && s.sq.rtt_min_ns <= s.sq.srtt_ns);
	sim_free(&s);
}

static void test_psn_wrap(TEST_ARGS)
{
	struct sim s;

	/* 78 packets in all: the PSNs run over 0xffffff and on from 0. */
	sim_init(&s, ROCE_PSN_MASK - 20);
	run_sizes(&s, 1000);
	assert_true(roce_psn_diff(s.sq.una, 0) > 0);
	assert_int_equal(s.sq.una, s.rq.epsn);
	assert_int_equal(s.st.retransmits, 0);
	sim_free(&s);
}

/* Loss, reordering and duplicates both ways, across the wrap. */
static void test_lossy(TEST_ARGS)
{
	unsigned int round;
	struct sim s;

	sim_init(&s, ROCE_PSN_MASK - 30);
	s.ab = (struct wire){ .loss = 50, .reorder = 30, .dup = 20 };
	s.ba = (struct wire){ .loss = 50, .reorder = 30, .dup = 20 };
	for (round = 0; round < 20; round++)
		run_sizes(&s, 100000);
	assert_true(s.st.retransmits > 0);
	assert_true(s.st.naks > 0);
	assert_true(s.st.dropped > 0);
	sim_free(&s);
}

/* Ten packets of one message, sent, in k[] as the wire would carry them. */
static void send_ten(struct sim *s, struct pkt *k, unsigned char *tx,
		     unsigned char *rx)
{
	struct roce_tx_pkt p;
	unsigned int i;

	sim_init(s, 0);
	roce_sq_post(&s->sq, tx, 10 * ROCE_MTU);
	roce_rq_post(&s->rq, rx, 10 * ROCE_MTU);
	for (i = 0; i < 10; i++) {
		assert_true(roce_sq_next(&s->sq, DQPN, &p));
		roce_sq_sent(&s->sq, p.bth.psn, 0, &s->st);
		k[i] = (struct pkt){ .bth = p.bth, .b = buf_get(s) };
		k[i].b->off = 0;
		k[i].b->len = p.len;
		memcpy(k[i].b->raw, p.payload, p.len);
	}
	assert_false(roce_sq_next(&s->sq, DQPN, &p));
}

/* What send_ten() left: the packets not delivered, the buffers, the QP. */
static void ten_free(struct sim *s, struct pkt *k, unsigned char *tx,
		     unsigned char *rx)
{
	unsigned int i;

	for (i = 0; i < 10; i++)
		buf_put(s, k[i].b);
	free(tx);
	free(rx);
	sim_free(s);
}

/* Deliver k[i] (its buffer is the responder's or the free list's then). */
static enum roce_rx deliver(struct sim *s, struct pkt *k)
{
	enum roce_rx rx = roce_rq_data(&s->rq, &k->bth, &k->b, &s->free,
				       &s->st, &s->why);

	buf_put(s, k->b);
	k->b = NULL;
	s->held += rx == ROCE_RX_HELD;
	return rx;
}

/* The responder's ACKs and NAKs, each told to the requester; the NAKs'
 * PSNs and ends in @naks (pairs), how many in the return. */
static unsigned int answer(struct sim *s, uint32_t *naks, unsigned int max)
{
	uint32_t psn, nak_end, msn;
	unsigned int n = 0;
	uint8_t syn;

	while (roce_rq_ack(&s->rq, false, &syn, &psn, &nak_end, &msn, &s->st)) {
		if (syn == ROCE_AETH_NAK_SEQ && n < max) {
			naks[2 * n] = psn;
			naks[2 * n + 1] = nak_end;
			n++;
		}
		roce_sq_ack(&s->sq, syn, psn, nak_end, 0);
	}
	return n;
}

/* The requester's packets now: their PSNs in @psns, delivered. */
static unsigned int resend(struct sim *s, struct pkt *k, uint32_t *psns,
			   unsigned int max)
{
	struct roce_tx_pkt p;
	unsigned int n = 0;

	while (n < max && roce_sq_next(&s->sq, DQPN, &p)) {
		roce_sq_sent(&s->sq, p.bth.psn, 0, &s->st);
		psns[n++] = p.bth.psn;
		k[p.bth.psn] = (struct pkt){ .bth = p.bth, .b = buf_get(s) };
		k[p.bth.psn].b->off = 0;
		k[p.bth.psn].b->len = p.len;
		memcpy(k[p.bth.psn].b->raw, p.payload, p.len);
		assert_int_equal(deliver(s, &k[p.bth.psn]), ROCE_RX_PLACED);
	}
	return n;
}

/*
 * Packets @lost (a bitmask of 0..9) are lost, the others arrive in order:
 * those past the gap are held, one NAK names the gap [first lost, first
 * held past it), and the requester resends that gap alone.
 */
static void gap_resent_alone(unsigned int lost, uint32_t gap_from,
			     uint32_t gap_end)
{
	unsigned char *tx = pattern(10 * ROCE_MTU, 1), *rx = calloc(1, 10 * ROCE_MTU);
	uint32_t naks[8], psns[16];
	unsigned int i, n, nnaks = 0;
	struct pkt k[10];
	struct sim s;

	send_ten(&s, k, tx, rx);
	for (i = 0; i < 10; i++) {
		if (lost & 1U << i) {
			buf_put(&s, k[i].b);
			continue;
		}
		assert_int_equal(deliver(&s, &k[i]),
				 i < gap_from ? ROCE_RX_PLACED : ROCE_RX_HELD);
		nnaks += answer(&s, naks + 2 * nnaks, 4 - nnaks);
	}
	assert_int_equal(nnaks, 1);
	assert_int_equal(naks[0], gap_from);
	assert_int_equal(naks[1], gap_end);
	assert_int_equal(s.st.naks, 1);
	assert_int_equal(s.st.dropped, 0);
	/* The NAK acked what came before the gap; nxt stays past it. */
	assert_int_equal(s.sq.una, gap_from);
	assert_int_equal(s.sq.nxt, 10);
	n = resend(&s, k, psns, 16);
	assert_int_equal(n, gap_end - gap_from);
	for (i = 0; i < n; i++)
		assert_int_equal(psns[i], gap_from + i);
	assert_int_equal(s.st.retransmits, n);
	/* The last of the gap asked for an ACK: the rest of the gaps, if
	 * any, are NAKed the same way, until all is acked. */
	while ((nnaks = answer(&s, naks, 4)))
		resend(&s, k, psns, 16);
	assert_true(roce_rq_done(&s.rq));
	assert_true(roce_sq_done(&s.sq));
	assert_int_equal(s.sq.una, 10);
	assert_memory_equal(tx, rx, 10 * ROCE_MTU);
	ten_free(&s, k, tx, rx);
}

static void test_gap_resent_alone(TEST_ARGS)
{
	gap_resent_alone(1U << 3, 3, 4);
	/* A burst: one NAK, the burst resent, nothing after it. */
	gap_resent_alone(7U << 3, 3, 6);
	/* Two gaps: the second is NAKed once the first is filled. */
	gap_resent_alone(1U << 2 | 1U << 6, 2, 3);
}

/*
 * Reordering the responder has seen is not taken for loss again: a first
 * gap 12 deep is NAKed at 3 held (as a loss, for all it knows), after
 * which a gap is NAKed only once half that many, 6, are held past it.
 * mp0 spraying over planes of unlike delays reorders so.
 */
static void test_reorder_half_deepest_gap(TEST_ARGS)
{
	size_t len = 40 * ROCE_MTU;
	unsigned char *tx = pattern(len, 7), *rx = calloc(1, len);
	uint32_t naks[8], psns[4];
	unsigned int i, nnaks = 0;
	struct roce_tx_pkt p;
	struct pkt k[40], late;
	struct sim s;

	sim_init(&s, 0);
	roce_sq_post(&s.sq, tx, len);
	roce_rq_post(&s.rq, rx, len);
	for (i = 0; i < 40; i++) {
		assert_true(roce_sq_next(&s.sq, DQPN, &p));
		roce_sq_sent(&s.sq, p.bth.psn, 0, &s.st);
		k[i] = (struct pkt){ .bth = p.bth, .b = buf_get(&s) };
		k[i].b->off = 0;
		k[i].b->len = p.len;
		memcpy(k[i].b->raw, p.payload, p.len);
	}
	/* 10 is late by 11 packets: NAKed at 13, resent, then 10 itself
	 * comes as a duplicate. */
	for (i = 0; i < 22; i++) {
		if (i == 10)
			continue;
		deliver(&s, &k[i]);
		nnaks += answer(&s, naks, 4);
		if (i == 12)
			assert_int_equal(nnaks, 0);
	}
	assert_int_equal(nnaks, 1);
	assert_int_equal(s.rq.span, 12);
	late = k[10];
	assert_int_equal(resend(&s, k, psns, 1), 1);
	assert_int_equal(deliver(&s, &late), ROCE_RX_DROPPED);
	/* 22 is late by 5: nothing NAKed, nothing resent. */
	for (i = 23; i < 28; i++) {
		assert_int_equal(deliver(&s, &k[i]), ROCE_RX_HELD);
		assert_int_equal(answer(&s, naks, 4), 0);
	}
	assert_int_equal(deliver(&s, &k[22]), ROCE_RX_PLACED);
	/* 28 lost: NAKed once 6 are held past it. */
	buf_put(&s, k[28].b);
	for (i = 29; i < 35; i++) {
		deliver(&s, &k[i]);
		assert_int_equal(answer(&s, naks, 4), i == 34);
	}
	assert_int_equal(naks[0], 28);
	assert_int_equal(s.st.naks, 2);
	assert_int_equal(s.st.retransmits, 1);
	for (i = 35; i < 40; i++)
		buf_put(&s, k[i].b);
	free(tx);
	free(rx);
	sim_free(&s);
}

/*
 * A gap whose resend is lost too is NAKed again once a quarter of the
 * window more is held past it, and resent again: no timeout, and the
 * requester never goes back N.
 */
static void test_gap_nak_again(TEST_ARGS)
{
	size_t len = 200 * ROCE_MTU;
	unsigned char *tx = pattern(len, 5), *rx = calloc(1, len);
	unsigned int sent = 0, lost = 0;
	uint32_t naks[8];
	struct roce_tx_pkt p;
	struct pkt k;
	struct sim s;

	sim_init(&s, 0);
	roce_sq_post(&s.sq, tx, len);
	roce_rq_post(&s.rq, rx, len);
	while (roce_sq_next(&s.sq, DQPN, &p)) {
		roce_sq_sent(&s.sq, p.bth.psn, 0, &s.st);
		sent++;
		/* PSN 3 is lost, and so is its first resend. */
		if (p.bth.psn == 3 && lost < 2) {
			lost++;
			continue;
		}
		k = (struct pkt){ .bth = p.bth, .b = buf_get(&s) };
		k.b->off = 0;
		k.b->len = p.len;
		memcpy(k.b->raw, p.payload, p.len);
		deliver(&s, &k);
		if (answer(&s, naks, 4))
			assert_int_equal(naks[0], 3);
	}
	assert_int_equal(lost, 2);
	assert_int_equal(s.st.naks, 2);
	assert_int_equal(s.st.timeouts, 0);
	assert_int_equal(s.st.retransmits, 2);
	assert_int_equal(sent, 202);
	answer(&s, naks, 4);
	assert_true(roce_rq_done(&s.rq));
	assert_true(roce_sq_done(&s.sq));
	assert_memory_equal(tx, rx, len);
	free(tx);
	free(rx);
	sim_free(&s);
}

/* Two packets swapped on the way: the gap fills by itself, and nothing
 * is NAKed or sent again. */
static void test_reorder_not_resent(TEST_ARGS)
{
	unsigned char *tx = pattern(10 * ROCE_MTU, 2), *rx = calloc(1, 10 * ROCE_MTU);
	unsigned int order[10] = { 0, 1, 3, 4, 2, 5, 6, 7, 8, 9 };
	uint32_t naks[8];
	struct pkt k[10];
	unsigned int i;
	struct sim s;

	send_ten(&s, k, tx, rx);
	for (i = 0; i < 10; i++) {
		deliver(&s, &k[order[i]]);
		assert_int_equal(answer(&s, naks, 4), 0);
	}
	/* 3 and 4 waited for 2: fewer than a gap is NAKed for. */
	assert_int_equal(s.held, 2);
	assert_int_equal(s.st.naks, 0);
	assert_int_equal(s.st.retransmits, 0);
	assert_int_equal(s.st.dropped, 0);
	assert_true(roce_rq_done(&s.rq));
	assert_true(roce_sq_done(&s.sq));
	assert_memory_equal(tx, rx, 10 * ROCE_MTU);
	ten_free(&s, k, tx, rx);
}

/* A NAK that names no gap's end (the responder held nothing past it),
 * or one for a gap the requester has not sent past: go back N. */
static void test_nak_without_end_goes_back(TEST_ARGS)
{
	unsigned char *tx = pattern(10 * ROCE_MTU, 3), *rx = calloc(1, 10 * ROCE_MTU);
	struct roce_tx_pkt p;
	struct pkt k[10];
	unsigned int i;
	struct sim s;

	send_ten(&s, k, tx, rx);
	assert_true(roce_sq_ack(&s.sq, ROCE_AETH_NAK_SEQ, 4, 4, 0));
	assert_int_equal(s.sq.una, 4);
	for (i = 4; i < 10; i++) {
		assert_true(roce_sq_next(&s.sq, DQPN, &p));
		assert_int_equal(p.bth.psn, i);
	}
	/* An end past what was ever sent is no gap of ours. */
	assert_false(roce_sq_ack(&s.sq, ROCE_AETH_NAK_SEQ, 4, 12, 0));
	assert_true(roce_sq_next(&s.sq, DQPN, &p));
	assert_int_equal(p.bth.psn, 4);
	ten_free(&s, k, tx, rx);
}

/* Packets past a gap are held once: a second copy, or one beyond the
 * window, is dropped and counted, and leaves the held one alone. */
static void test_held_once(TEST_ARGS)
{
	unsigned char *tx = pattern(10 * ROCE_MTU, 4), *rx = calloc(1, 10 * ROCE_MTU);
	struct roce_buf *b = calloc(1, sizeof(*b));
	struct roce_bth far = { .opcode = ROCE_OP_SEND_MIDDLE, .psn = ROCE_WINDOW };
	struct pkt k[10], copy;
	struct sim s;

	send_ten(&s, k, tx, rx);
	copy = k[5];
	copy.b = buf_get(&s);
	*copy.b = *k[5].b;
	assert_int_equal(deliver(&s, &k[5]), ROCE_RX_HELD);
	assert_int_equal(deliver(&s, &copy), ROCE_RX_DROPPED);
	assert_int_equal(roce_rq_data(&s.rq, &far, &b, &s.free, &s.st, &s.why),
			 ROCE_RX_DROPPED);
	assert_int_equal(s.rq.nheld, 1);
	assert_int_equal(s.st.dropped, 2);
	free(b);
	ten_free(&s, k, tx, rx);
}

/* A receive posted late: what came first waits, acked, and is placed. */
static void test_keep_ahead(TEST_ARGS)
{
	unsigned char *tx = pattern(100000, 2), *rx = calloc(1, 100000);
	struct sim s;

	sim_init(&s, 77);
	roce_sq_post(&s.sq, tx, 100000);
	sim_run(&s, 100);
	assert_true(roce_sq_done(&s.sq));
	assert_int_equal(s.rq.nahead, (100000 + ROCE_MTU - 1) / ROCE_MTU);
	assert_int_equal(s.kept, s.rq.nahead);
	roce_rq_post(&s.rq, rx, 100000);
	assert_int_equal(roce_rq_drain(&s.rq, &s.free, &s.why), 0);
	assert_true(roce_rq_done(&s.rq));
	assert_int_equal(s.rq.nahead, 0);
	assert_memory_equal(tx, rx, 100000);
	free(tx);
	free(rx);
	sim_free(&s);
}

/* More than the responder keeps: RNR NAK, a pause, a resume. */
static void test_rnr(TEST_ARGS)
{
	size_t len = (ROCE_AHEAD_MAX + 500) * (size_t)ROCE_MTU;
	unsigned char *tx = pattern(len, 3), *rx = calloc(1, len);
	struct sim s;

	sim_init(&s, 5);
	roce_sq_post(&s.sq, tx, len);
	sim_run(&s, 2000);
	assert_int_equal(s.rq.nahead, ROCE_AHEAD_MAX);
	assert_true(s.sq.paused || s.sq.window == 1);
	assert_false(roce_sq_done(&s.sq));
	/* Paused: one probe per timeout (20, 40, 80 ms), not a stream. */
	assert_in_range(s.st.timeouts, 1, 3);
	assert_int_equal(s.st.retransmits, s.st.timeouts);
	roce_rq_post(&s.rq, rx, len);
	assert_int_equal(roce_rq_drain(&s.rq, &s.free, &s.why), 0);
	assert_int_equal(s.rq.ctl, ROCE_CTL_NAK);
	sim_run(&s, 1000);
	assert_true(roce_sq_done(&s.sq));
	assert_true(roce_rq_done(&s.rq));
	assert_false(s.sq.paused);
	assert_memory_equal(tx, rx, len);
	free(tx);
	free(rx);
	sim_free(&s);
}

/* No ACK for a while: the timer fires, backs off, and the job goes on. */
static void test_timeout(TEST_ARGS)
{
	unsigned char *tx = pattern(50000, 4), *rx = calloc(1, 50000);
	uint64_t rto;
	struct sim s;

	sim_init(&s, 9);
	roce_sq_post(&s.sq, tx, 50000);
	roce_rq_post(&s.rq, rx, 50000);
	s.ba.cut = true;
	sim_run(&s, 10000);
	assert_true(roce_rq_done(&s.rq));
	assert_false(roce_sq_done(&s.sq));
	assert_true(s.st.timeouts >= 3);
	/* Backed off: doubled each time, up to the ceiling. */
	rto = s.sq.rto_ns;
	assert_true(rto > ROCE_RTO_INIT && rto <= ROCE_RTO_MAX);
	assert_int_equal(s.sq.window, 1);
	/* Each timeout resent one packet only; the responder re-ACKs it. */
	assert_int_equal(s.st.retransmits, s.st.timeouts);
	s.ba.cut = false;
	sim_run(&s, 10000);
	assert_true(roce_sq_done(&s.sq));
	assert_true(s.sq.rto_ns < rto);
	assert_memory_equal(tx, rx, 50000);
	free(tx);
	free(rx);
	sim_free(&s);
}

/*
 * A window of 8 (the path's BDP): 8 packets out at a time, every second
 * asking for an ACK so that it slides, and 8 again after a timeout's
 * window of one, not the default 256.
 */
static void test_window_cap(TEST_ARGS)
{
	unsigned char *tx = pattern(100 * ROCE_MTU, 6);
	unsigned char *rx = calloc(1, 100 * ROCE_MTU);
	unsigned int sent = 0, ackreqs = 0;
	struct roce_tx_pkt p;
	struct sim s;

	sim_init(&s, 0);
	roce_sq_set_window(&s.sq, 8);
	assert_int_equal(s.sq.ack_every, 2);
	roce_sq_post(&s.sq, tx, 100 * ROCE_MTU);
	roce_rq_post(&s.rq, rx, 100 * ROCE_MTU);
	while (roce_sq_next(&s.sq, DQPN, &p)) {
		ackreqs += p.bth.ackreq;
		roce_sq_sent(&s.sq, p.bth.psn, 0, &s.st);
		sent++;
	}
	assert_int_equal(sent, 8);
	assert_int_equal(ackreqs, 4);
	assert_int_equal(roce_sq_inflight(&s.sq), 8);
	/* None of them arrived: one probe, then 8 again once it is acked. */
	s.now = ROCE_RTO_INIT;
	assert_true(roce_sq_timer(&s.sq, s.now, &s.st));
	assert_int_equal(s.sq.window, 1);
	sim_step(&s);
	assert_int_equal(s.sq.una, 1);
	assert_int_equal(s.sq.window, 8);
	/* The rest, lossy, still within 8 and all of it placed. */
	s.ab = (struct wire){ .loss = 30, .reorder = 20 };
	while (!roce_sq_done(&s.sq) && s.now < 100 * ROCE_RTO_INIT) {
		sim_step(&s);
		assert_true(roce_sq_inflight(&s.sq) <= 8);
	}
	assert_true(roce_sq_done(&s.sq));
	assert_memory_equal(tx, rx, 100 * ROCE_MTU);
	/* Out of range: the nearest window there is. */
	roce_sq_set_window(&s.sq, 0);
	assert_int_equal(s.sq.window_max, 1);
	assert_int_equal(s.sq.ack_every, 1);
	roce_sq_set_window(&s.sq, 100000);
	assert_int_equal(s.sq.window_max, ROCE_WINDOW);
	assert_int_equal(s.sq.ack_every, ROCE_ACK_EVERY);
	free(tx);
	free(rx);
	sim_free(&s);
}

/* Send 10 packets, let the timer fire and send the probe (PSN 0). */
static void timed_out(struct sim *s, unsigned char *tx)
{
	struct roce_tx_pkt p;
	unsigned int i;

	sim_init(s, 0);
	roce_sq_post(&s->sq, tx, 10 * ROCE_MTU);
	for (i = 0; i < 10; i++) {
		assert_true(roce_sq_next(&s->sq, DQPN, &p));
		roce_sq_sent(&s->sq, p.bth.psn, 0, &s->st);
	}
	assert_true(roce_sq_timer(&s->sq, ROCE_RTO_INIT, &s->st));
	assert_true(roce_sq_next(&s->sq, DQPN, &p));
	assert_int_equal(p.bth.psn, 0);
	assert_true(p.bth.ackreq);
	roce_sq_sent(&s->sq, 0, ROCE_RTO_INIT, &s->st);
	assert_false(roce_sq_next(&s->sq, DQPN, &p));
}

/*
 * The probe's ACK covers 0..4: the first sending got through, only its
 * ACKs were late; 5..9 are not sent again.  When it covers the probe
 * alone, go back N from 1 as after any loss.
 */
static void test_spurious_timeout(TEST_ARGS)
{
	unsigned char tx[10 * ROCE_MTU] = { 0 };
	struct roce_tx_pkt p;
	struct sim s;

	timed_out(&s, tx);
	assert_true(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 4, 4, ROCE_RTO_INIT));
	assert_int_equal(s.sq.window, ROCE_WINDOW);
	assert_false(roce_sq_next(&s.sq, DQPN, &p));
	assert_true(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 9, 9, ROCE_RTO_INIT));
	assert_true(roce_sq_done(&s.sq));
	assert_int_equal(s.st.retransmits, 1);
	sim_free(&s);

	timed_out(&s, tx);
	assert_true(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 0, 0, ROCE_RTO_INIT));
	assert_true(roce_sq_next(&s.sq, DQPN, &p));
	assert_int_equal(p.bth.psn, 1);
	sim_free(&s);
}

/* Messages that do not fit the receives are refused, and say why. */
static void expect_error(size_t send, size_t recv, const char *why)
{
	unsigned char *tx = pattern(send, 5), *rx = calloc(1, recv + 1);
	struct sim s;

	sim_init(&s, 0);
	roce_sq_post(&s.sq, tx, send);
	roce_rq_post(&s.rq, rx, recv);
	sim_run(&s, 100);
	assert_int_equal(s.errors, 1);
	assert_string_equal(s.why, why);
	free(tx);
	free(rx);
	sim_free(&s);
}

static void test_size_mismatch(TEST_ARGS)
{
	expect_error(3000, 2000, "a message was longer than the receive");
	expect_error(2000, 3000, "a message was shorter than the receive");
	expect_error(0, 1, "a message was shorter than the receive");
}

/* A MIDDLE with no FIRST before it is not a message. */
static void test_opcode_order(TEST_ARGS)
{
	unsigned char rx[4096];
	struct roce_bth h = { .opcode = ROCE_OP_SEND_MIDDLE, .psn = 0 };
	struct roce_buf *b = calloc(1, sizeof(*b));
	struct sim s;

	sim_init(&s, 0);
	roce_rq_post(&s.rq, rx, sizeof(rx));
	b->len = ROCE_MTU;
	assert_int_equal(roce_rq_data(&s.rq, &h, &b, &s.free, &s.st, &s.why),
			 ROCE_RX_ERROR);
	assert_string_equal(s.why,
			    "a message's middle or end came without its first packet");
	free(b);
	sim_free(&s);
}

/* ACKs of PSNs never sent, or older than una, change nothing. */
static void test_bogus_acks(TEST_ARGS)
{
	unsigned char tx[5 * ROCE_MTU] = { 0 };
	struct roce_tx_pkt p;
	struct sim s;

	sim_init(&s, 100);
	roce_sq_post(&s.sq, tx, sizeof(tx));
	assert_true(roce_sq_next(&s.sq, DQPN, &p));
	roce_sq_sent(&s.sq, p.bth.psn, 0, &s.st);
	assert_false(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 104, 104, 0));
	assert_false(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 98, 98, 0));
	assert_int_equal(s.sq.una, 100);
	assert_true(roce_sq_ack(&s.sq, ROCE_AETH_ACK, 100, 100, 0));
	assert_int_equal(s.sq.una, 101);
	sim_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psn_arith),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_lossy),
		cmocka_unit_test(test_gap_resent_alone),
		cmocka_unit_test(test_gap_nak_again),
		cmocka_unit_test(test_reorder_half_deepest_gap),
		cmocka_unit_test(test_reorder_not_resent),
		cmocka_unit_test(test_nak_without_end_goes_back),
		cmocka_unit_test(test_held_once),
		cmocka_unit_test(test_keep_ahead),
		cmocka_unit_test(test_rnr),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_window_cap),
		cmocka_unit_test(test_spurious_timeout),
		cmocka_unit_test(test_size_mismatch),
		cmocka_unit_test(test_opcode_order),
		cmocka_unit_test(test_bogus_acks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
