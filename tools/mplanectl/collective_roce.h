/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The roce transport of 'mplanectl collective': RoCEv2 framing over UDP
 * to port 4791, one reliable-connected QP per ordered pair of ranks, with
 * selective repeat (the responder holds what comes past a gap, and the
 * requester resends the gap alone), going back N after a timeout.
 * Documentation/collective.md, "roce transport", has the design; the
 * files are:
 *
 *	collective_roce.h	what they share: wire format, QP state
 *	collective_roce_wire.c	headers built and parsed
 *	collective_roce_qp.c	a QP's two halves: the requester's window,
 *				acks and timer, the responder's placement
 *				and acks (no sockets: unit-tested alone)
 *	collective_roce_cm.c	connect and disconnect handshakes
 *	collective_roce_io.h	the transport's state, for the two below
 *	collective_roce_io.c	batched sendmmsg()/recvmmsg(), dispatch
 *	collective_roce.c	the socket, the loop, the transport ops
 */
#ifndef MPLANECTL_COLLECTIVE_ROCE_H
#define MPLANECTL_COLLECTIVE_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The path MTU: payload bytes of a packet (IB MTU 1024: fits 1500). */
#define ROCE_MTU		1024
/* Packets a requester may have in flight on one QP, unacked: the most,
 * and the default where the job does not set less (roce_sq_set_window). */
#define ROCE_WINDOW		256
/* Every so many PSNs (a quarter of a smaller window), and at each
 * message's end, a packet asks for an ACK; a responder also acks after
 * this many packets without one. */
#define ROCE_ACK_EVERY		64
/* Packets a responder holds for receives not posted yet, per QP. */
#define ROCE_AHEAD_MAX		4096
/* Packets held past a gap before the responder NAKs it: fewer are taken
 * for reordering, whose gap fills by itself.  Half the deepest gap seen
 * (rq_reorder_pkts), as packets sprayed over planes of unlike delays
 * come out of order by up to half a window; no fewer than TCP's three
 * duplicate ACKs, no more than ROCE_REORDER_MAX.  A held packet that
 * ends a message has its gap NAKed at once. */
#define ROCE_REORDER_PKTS	3
#define ROCE_REORDER_MAX	32
/* A gap NAKed that stays open while this many more are held past it is
 * NAKed again: its resend was lost too (a quarter of the window is well
 * past any reordering, and a resend's round trip behind a full queue). */
#define ROCE_RENAK_PKTS		(ROCE_WINDOW / 4)

/* The retransmission timer (ns): floor, before any RTT sample, ceiling. */
#define ROCE_RTO_MIN		(5 * 1000000ULL)
#define ROCE_RTO_INIT		(20 * 1000000ULL)
#define ROCE_RTO_MAX		(400 * 1000000ULL)

/* PSNs are 24 bits and wrap. */
#define ROCE_PSN_MASK		0x00ffffffU

static inline uint32_t roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ROCE_PSN_MASK;
}

/* a - b in the 24-bit circle: negative when @a is before @b. */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* Fields in network order, byte by byte: headers need not be aligned. */
static inline void roce_put16(unsigned char *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static inline void roce_put32(unsigned char *b, uint32_t v)
{
	roce_put16(b, v >> 16);
	roce_put16(b + 2, v);
}

static inline void roce_put64(unsigned char *b, uint64_t v)
{
	roce_put32(b, v >> 32);
	roce_put32(b + 4, v);
}

static inline uint16_t roce_get16(const unsigned char *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t roce_get32(const unsigned char *b)
{
	return (uint32_t)roce_get16(b) << 16 | roce_get16(b + 2);
}

static inline uint64_t roce_get64(const unsigned char *b)
{
	return (uint64_t)roce_get32(b) << 32 | roce_get32(b + 4);
}

/*
 * The wire.  A UDP payload is a BTH (12 bytes), an extended header (an
 * AETH on ACKs, a DETH on the connection manager's UD packets), the
 * payload padded to 4 bytes, and a 4-byte ICRC (zero: see the doc).
 */
#define ROCE_BTH_LEN		12
#define ROCE_AETH_LEN		4
/* After a sequence NAK's AETH: the first PSN the responder holds past
 * the gap, the gap's end (ours, not IB's: selective repeat). */
#define ROCE_NAK_END_LEN	4
#define ROCE_DETH_LEN		8
#define ROCE_ICRC_LEN		4
#define ROCE_HDR_MAX		(ROCE_BTH_LEN + ROCE_DETH_LEN)
/* Receive buffers hold the largest packet of ours, with room to spare
 * so that a longer datagram shows as truncated, not as ours. */
#define ROCE_RAW_MAX		2048

enum roce_opcode {
	ROCE_OP_SEND_FIRST	= 0x00,	/* RC: a message's first packet */
	ROCE_OP_SEND_MIDDLE	= 0x01,
	ROCE_OP_SEND_LAST	= 0x02,
	ROCE_OP_SEND_ONLY	= 0x04,	/* a message of one packet */
	ROCE_OP_ACK		= 0x11,	/* RC ACKNOWLEDGE, with an AETH */
	ROCE_OP_UD_SEND_ONLY	= 0x64,	/* UD, with a DETH: the CM's */
};

/* AETH syndromes: the top 3 bits say which, the low 5 bits qualify. */
#define ROCE_AETH_KIND_ACK	0x00
#define ROCE_AETH_ACK		0x1f	/* ACK, no credit count */
#define ROCE_AETH_RNR		0x20	/* RNR NAK, timer field 0 */
#define ROCE_AETH_NAK_SEQ	0x60	/* NAK: PSN sequence error */
#define ROCE_AETH_KIND(s)	((s) & 0xe0)

/*
 * QP numbers.  Rank R's QP for peer P is 0x01RRPP, and a packet carries
 * its destination's QP: what R receives from P, data or ACK, is addressed
 * to 0x01RRPP, what R sends to P to 0x01PPRR.  QP 1 is the connection
 * manager's (as IB's GSI), and QP 0 is never used.
 */
#define ROCE_QPN_BASE		0x010000U
#define ROCE_QPN_CM		1U

static inline uint32_t roce_qpn(unsigned int local, unsigned int remote)
{
	return ROCE_QPN_BASE | local << 8 | remote;
}

struct roce_bth {
	uint8_t opcode;
	uint8_t pad;		/* bytes after the payload, before the ICRC */
	bool ackreq;
	uint32_t dqpn;
	uint32_t psn;
};

/* Write @h into @b (ROCE_BTH_LEN bytes). */
void roce_bth_put(unsigned char *b, const struct roce_bth *h);
/* Read the BTH of a packet of @len bytes: 0, or -1 for one too short. */
int roce_bth_get(const unsigned char *b, size_t len, struct roce_bth *h);
void roce_aeth_put(unsigned char *b, uint8_t syndrome, uint32_t msn);
void roce_aeth_get(const unsigned char *b, uint8_t *syndrome, uint32_t *msn);
void roce_deth_put(unsigned char *b, uint32_t src_qpn);

/* A received packet; a responder can keep it for a later receive, or
 * hold it past a gap. */
struct roce_buf {
	struct roce_buf *next;
	uint16_t off, len;	/* of the payload in raw[] */
	uint8_t opcode;
	bool ackreq;		/* of a held packet */
	unsigned char raw[ROCE_RAW_MAX];
};

/* One message, as posted: a send, or a receive that fills up. */
struct roce_msg {
	unsigned char *buf;
	size_t len;
	size_t done;		/* a receive's bytes placed */
	uint32_t psn;		/* a send's first PSN */
	uint32_t npkts;		/* a send's packets (1 for an empty one) */
};

/* A FIFO of the messages of one exchange, reused from one to the next. */
struct roce_msgq {
	struct roce_msg *m;
	unsigned int head, tail, cap;
};

int roce_msgq_push(struct roce_msgq *q, void *buf, size_t len);
void roce_msgq_free(struct roce_msgq *q);

static inline bool roce_msgq_empty(const struct roce_msgq *q)
{
	return q->head == q->tail;
}

/* What a responder owes its requester, sent when tx next runs. */
enum roce_ctl {
	ROCE_CTL_NONE,
	ROCE_CTL_NAK,		/* sequence error: resend the gap at epsn */
	ROCE_CTL_RNR,		/* no room: wait, then go back to epsn */
};

/* The requester half of a QP: our messages to the peer. */
struct roce_sq {
	struct roce_msgq q;
	uint32_t una;		/* the oldest PSN not acked */
	uint32_t nxt;		/* the next PSN to send */
	uint32_t max;		/* one past the highest PSN ever sent */
	uint32_t end;		/* one past the last PSN posted */
	uint32_t rtx_nxt;	/* a gap the responder NAKed, to resend */
	uint32_t rtx_end;	/* before nxt: empty when equal */
	unsigned int cur;	/* the message that holds nxt */
	uint32_t window;	/* packets it may have in flight: 1 after a
				 * timeout, until an ACK moves */
	uint32_t window_max;	/* ... and the rest of the time */
	uint32_t ack_every;	/* a power of two, at most ROCE_ACK_EVERY */
	bool frto;		/* a timeout's probe is out, and ... */
	uint32_t frto_max;	/* ... this was max when the timer fired */
	bool paused;		/* an RNR NAK came: nothing until the
				 * responder has room, or the timer fires */
	bool timing;		/* an RTT sample is under way */
	uint32_t timed_psn;
	uint64_t timed_ns;
	uint64_t srtt_ns, rttvar_ns, rto_ns;
	uint64_t rtt_min_ns;	/* the least sample; 0: none yet */
	uint64_t deadline_ns;	/* the timer; 0 when nothing is in flight */
};

/* The responder half: the peer's messages to us. */
struct roce_rq {
	struct roce_msgq q;
	uint32_t epsn;		/* the PSN expected next */
	uint32_t msn;		/* messages completed, for the AETH */
	bool in_msg;		/* a FIRST came; MIDDLE or LAST next */
	bool nak_sent;		/* for the gap at epsn ... */
	unsigned int nak_held;	/* ... when nheld was this */
	unsigned int span;	/* the farthest past epsn a packet has come:
				 * a gap's depth, up to the requester's
				 * window */
	bool end_held;		/* a message's last packet is held: */
	uint32_t end_psn;	/* the farthest such, once held */
	bool rnr;		/* refused a packet for lack of room */
	bool ack_now;		/* an ACK is due as soon as tx runs */
	enum roce_ctl ctl;
	unsigned int unacked;	/* in-order packets since the last ACK */
	struct roce_buf *ahead, *ahead_tail;	/* kept, in PSN order */
	unsigned int nahead;
	/* Packets past epsn, by PSN modulo the window, for their turn. */
	struct roce_buf *held[ROCE_WINDOW];
	unsigned int nheld;
};

/* What the two halves count; the transport adds them to comm->stats. */
struct roce_qp_stats {
	uint64_t retransmits, timeouts, naks, held, dropped;
};

/* What a responder made of a data packet. */
enum roce_rx {
	ROCE_RX_PLACED,		/* into a posted receive */
	ROCE_RX_KEPT,		/* kept for a receive to come: buf taken */
	ROCE_RX_HELD,		/* past a gap, for its turn: buf taken */
	ROCE_RX_DROPPED,	/* a duplicate, a second copy of one held,
				 * beyond the window, or no room */
	ROCE_RX_ERROR,		/* the peer's messages do not fit ours */
};

/* A requester's next packet: where its payload is and what it is. */
struct roce_tx_pkt {
	struct roce_bth bth;
	const unsigned char *payload;
	size_t len;
};

void roce_sq_init(struct roce_sq *sq, uint32_t isn);
/* At most @pkts (1 to ROCE_WINDOW) in flight, from now on: a window the
 * size of what the path holds keeps the fabric's queues short (IRN's
 * BDP-based flow control), where a larger one only fills them. */
void roce_sq_set_window(struct roce_sq *sq, uint32_t pkts);
int roce_sq_post(struct roce_sq *sq, const void *buf, size_t len);
/* The next packet, if the window allows one: true, and nxt moves on. */
bool roce_sq_next(struct roce_sq *sq, uint32_t dqpn, struct roce_tx_pkt *p);
/* Packet @psn went out at @now (or could not: roce_sq_unsend). */
void roce_sq_sent(struct roce_sq *sq, uint32_t psn, uint64_t now,
		  struct roce_qp_stats *st);
void roce_sq_unsend(struct roce_sq *sq, uint32_t psn);
/*
 * An ACK or NAK of @psn arrived: true when it moved una.  @nak_end is a
 * sequence NAK's gap end (the first PSN the responder holds past it), or
 * @psn when it holds none: the requester then goes back N.
 */
bool roce_sq_ack(struct roce_sq *sq, uint8_t syndrome, uint32_t psn,
		 uint32_t nak_end, uint64_t now);
/* The timer at @now: true when it fired. */
bool roce_sq_timer(struct roce_sq *sq, uint64_t now,
		   struct roce_qp_stats *st);
static inline bool roce_sq_done(const struct roce_sq *sq)
{
	return roce_msgq_empty(&sq->q);
}
/* Packets in flight, not acked. */
static inline uint32_t roce_sq_inflight(const struct roce_sq *sq)
{
	return roce_psn_diff(sq->max, sq->una);
}

void roce_rq_init(struct roce_rq *rq, uint32_t epsn);
int roce_rq_post(struct roce_rq *rq, void *buf, size_t len);
/*
 * A data packet with its BTH @h, its payload in *@b.  ROCE_RX_KEPT and
 * ROCE_RX_HELD take the buffer (*@b becomes NULL); the held packets that
 * it lets through and that are placed go on *@free.  ROCE_RX_ERROR sets
 * @why.
 */
enum roce_rx roce_rq_data(struct roce_rq *rq, const struct roce_bth *h,
			  struct roce_buf **b, struct roce_buf **free,
			  struct roce_qp_stats *st, const char **why);
/*
 * Place what was kept into receives just posted; the buffers it used go
 * on *@free.  0, or -1 with @why set.
 */
int roce_rq_drain(struct roce_rq *rq, struct roce_buf **free,
		  const char **why);
static inline bool roce_rq_done(const struct roce_rq *rq)
{
	return roce_msgq_empty(&rq->q);
}
/*
 * The ACK or NAK to send now (@all: also an ACK that is merely pending):
 * true with its syndrome, PSN and, for a sequence NAK, the gap's end
 * (@psn itself otherwise), and the responder counts it sent.
 */
bool roce_rq_ack(struct roce_rq *rq, bool all, uint8_t *syndrome,
		 uint32_t *psn, uint32_t *nak_end, uint32_t *msn,
		 struct roce_qp_stats *st);
void roce_rq_free(struct roce_rq *rq);

/*
 * The connection manager: UD packets to QP 1 whose payload is one of
 * these, ROCE_CM_LEN bytes in network order:
 *
 *	offset	size	field
 *	0	4	magic, "MPCM"
 *	4	1	version, 1
 *	5	1	type (enum roce_cm_type)
 *	6	2	the sender's rank
 *	8	2	the job's ranks
 *	10	2	reserved, 0
 *	12	4	the first PSN of the sender's QP to the receiver
 *	16	8	the job's id (struct coll_comm's job)
 */
#define ROCE_CM_LEN		24
/* Handshake packets again after this long, doubling up to the ceiling. */
#define ROCE_CM_RTO_INIT	(10 * 1000000ULL)
#define ROCE_CM_RTO_MAX		(320 * 1000000ULL)
/* After the last DREP, still answer a peer whose DREP got lost. */
#define ROCE_CM_LINGER		(20 * 1000000ULL)

enum roce_cm_type {
	ROCE_CM_REQ = 1,	/* connect: here is my first PSN */
	ROCE_CM_REP,		/* connect: here is mine, and I have yours */
	ROCE_CM_DREQ,		/* disconnect: my exchanges are over */
	ROCE_CM_DREP,		/* disconnect: I know */
};

struct roce_cm {
	uint8_t type;
	uint16_t rank, nranks;
	uint32_t isn;
	uint64_t job;
};

/* Write @m after the BTH and DETH; read one: 0, or -1 if not ours. */
void roce_cm_put(unsigned char *b, const struct roce_cm *m);
int roce_cm_get(const unsigned char *b, size_t len, struct roce_cm *m);
bool roce_cm_error_stale(const unsigned char *b, size_t len);

/* All that a rank knows of one peer. */
struct roce_peer {
	struct roce_sq sq;
	struct roce_rq rq;
	uint32_t isn;		/* our first PSN to it */
	uint32_t peer_isn;	/* its first PSN to us, once heard */
	bool heard;		/* its REQ or REP came: rq knows its PSNs */
	bool confirmed;		/* its REP came: it knows ours */
	bool done;		/* its DREQ came: its exchanges are over */
	bool released;		/* its DREP came: it knows ours are */
	bool gone;		/* ICMP port unreachable: its socket closed */
	uint64_t cm_deadline_ns, cm_rto_ns;
};

/*
 * A CM packet @m of our job from peer @p: 0 with *@reply the type to
 * answer with (0: none), or -ECONNRESET when it is not the peer we
 * connected with (a rank of the same number with other PSNs).
 */
int roce_cm_rx(struct roce_peer *p, const struct roce_cm *m, uint8_t *reply);
/* What @p is owed at @now: REQ while connecting, DREQ while
 * disconnecting (@teardown), or 0. */
uint8_t roce_cm_due(struct roce_peer *p, bool teardown, uint64_t now);
/* Start the handshake timer over (a phase begins). */
void roce_cm_arm(struct roce_peer *p, uint64_t now);

#endif /* MPLANECTL_COLLECTIVE_ROCE_H */
