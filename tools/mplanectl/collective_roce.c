// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport of 'mplanectl collective': one UDP socket per rank
 * on port 4791, batched sendmmsg()/recvmmsg(), and one loop that serves
 * the three phases (connect, exchange, disconnect) alike: every packet
 * that comes is answered in any phase, so that a peer still in an
 * earlier phase never waits on us.  The QPs' logic is in
 * collective_roce_qp.c, the handshakes' in collective_roce_cm.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <linux/errqueue.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "collective.h"
#include "collective_roce.h"
#include "mp_arg.h"
#include "mp_out.h"
#include "mp_run.h"

/* Packets per sendmmsg() or recvmmsg(). */
#define ROCE_BATCH		64
/* Of one QP's data in a round of a batch: peers share the batch. */
#define ROCE_BATCH_PER_QP	16
/* IP ECN field: ECT(0), what RoCEv2 sends for congestion control. */
#define ROCE_ECT0		0x02
/* Socket buffers: a window from every peer fits in what we receive. */
#define ROCE_RCVBUF		(8 << 20)
#define ROCE_SNDBUF		(4 << 20)
#define ROCE_SLOT_HDR		(ROCE_BTH_LEN + ROCE_DETH_LEN + ROCE_CM_LEN)

enum roce_phase {
	ROCE_CONNECT,
	ROCE_EXCHANGE,
	ROCE_DISCONNECT,
};

/* What a sendmmsg() slot carries, to account it once it went out. */
struct roce_slot {
	unsigned int peer;
	bool data;
	uint8_t syndrome;	/* an ACK's */
	uint32_t psn;
	size_t len;		/* payload */
};

struct roce_io {
	struct mmsghdr tx[ROCE_BATCH];
	struct iovec txiov[ROCE_BATCH][3];
	unsigned char txhdr[ROCE_BATCH][ROCE_SLOT_HDR];
	struct roce_slot slot[ROCE_BATCH];
	unsigned int ntx;
	bool tx_blocked;	/* the socket's send buffer is full */
	struct mmsghdr rx[ROCE_BATCH];
	struct iovec rxiov[ROCE_BATCH];
	struct roce_buf *rxbuf[ROCE_BATCH];
	struct sockaddr_storage rxaddr[ROCE_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} rxctl[ROCE_BATCH];
};

struct roce {
	struct coll_comm *c;
	int fd;
	uint32_t cm_psn;	/* of our UD packets */
	enum roce_phase phase;
	struct roce_peer *peer;
	struct roce_buf *free;	/* receive buffers to reuse */
	struct roce_qp_stats st;
	uint32_t ovfl;		/* the socket's drops, as SO_RXQ_OVFL says */
	uint64_t start_ns;	/* of the phase */
	uint64_t progress_ns;	/* data last moved */
	uint64_t linger_ns;	/* disconnect: when every peer was done */
	unsigned int rr;	/* the peer whose data goes first */
	int err;		/* the first failure, reported */
	struct roce_io io;
};

/* Bytes that no header of ours has: pad and ICRC. */
static const unsigned char roce_zeros[8];

static const char *peer_str(const struct roce *r, unsigned int peer,
			    char *buf, size_t size)
{
	return mp_sockaddr_str((const struct sockaddr *)&r->c->addr[peer],
			       buf, size);
}

/* The first failure is the one reported; the rest follow from it. */
static void __attribute__((format(printf, 4, 5)))
roce_fail(struct roce *r, int err, unsigned int peer, const char *fmt, ...)
{
	char addr[MP_SOCKADDR_STRLEN], msg[256];
	va_list ap;

	if (r->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	peer_str(r, peer, addr, sizeof(addr));
	if (peer == r->c->rank)
		mp_err("roce: rank %u (%s): %s", peer, addr, msg);
	else
		mp_err("roce: rank %u: rank %u (%s): %s", r->c->rank, peer,
		       addr, msg);
	r->err = err;
}

static void sync_stats(struct roce *r)
{
	struct coll_transport_stats *s = &r->c->stats;

	s->retransmits = r->st.retransmits;
	s->timeouts = r->st.timeouts;
	s->naks = r->st.naks;
	s->dropped = r->st.dropped;
}

static struct roce_buf *buf_get(struct roce *r)
{
	struct roce_buf *b = r->free;

	if (b) {
		r->free = b->next;
		return b;
	}
	b = malloc(sizeof(*b));
	if (!b && !r->err) {
		mp_err("roce: %s", strerror(ENOMEM));
		r->err = -ENOMEM;
	}
	return b;
}

static bool addr_same(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

static int addr_rank(const struct roce *r, const struct sockaddr_storage *ss)
{
	unsigned int i;

	for (i = 0; i < r->c->nranks; i++)
		if (i != r->c->rank && addr_same(ss, &r->c->addr[i]))
			return i;
	return -1;
}

/* ---- transmit ---- */

static void tx_account(struct roce *r, unsigned int i, uint64_t now)
{
	const struct roce_slot *s = &r->io.slot[i];

	r->c->stats.tx_packets++;
	if (!s->data)
		return;
	r->c->stats.tx_bytes += s->len;
	roce_sq_sent(&r->peer[s->peer].sq, s->psn, now, &r->st);
}

/* Slots that did not go out: data is sent again, an ACK owed again. */
static void tx_unsend(struct roce *r, unsigned int from)
{
	const struct roce_slot *s;
	struct roce_rq *rq;
	unsigned int i;

	for (i = from; i < r->io.ntx; i++) {
		s = &r->io.slot[i];
		rq = &r->peer[s->peer].rq;
		if (s->data)
			roce_sq_unsend(&r->peer[s->peer].sq, s->psn);
		else if (s->syndrome == ROCE_AETH_ACK)
			rq->ack_now = true;
		else if (s->syndrome == ROCE_AETH_NAK_SEQ && !rq->ctl)
			rq->ctl = ROCE_CTL_NAK;
		else if (s->syndrome == ROCE_AETH_RNR && !rq->ctl)
			rq->ctl = ROCE_CTL_RNR;
	}
}

static void rx_errqueue(struct roce *r);

/*
 * Send the batch.  A datagram the stack drops on the way out (ENOBUFS
 * from a full qdisc, no route) is lost as on a wire: go-back-N resends
 * it.  A full send buffer stops the batch until the socket has room.
 */
static void tx_flush(struct roce *r, uint64_t now)
{
	struct roce_io *io = &r->io;
	unsigned int i = 0, k;
	int n;

	while (i < io->ntx && !r->err) {
		n = sendmmsg(r->fd, io->tx + i, io->ntx - i, MSG_DONTWAIT);
		if (n > 0) {
			for (k = i; k < i + n; k++)
				tx_account(r, k, now);
			i += n;
			continue;
		}
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
			tx_unsend(r, i);
			io->tx_blocked = true;
			io->ntx = 0;
			return;
		case ECONNREFUSED:
		case EHOSTUNREACH:
		case ENETUNREACH:
			/* An earlier datagram's ICMP error, reported now. */
			rx_errqueue(r);
			continue;
		case ENOBUFS:
		case EPERM:
			tx_account(r, i++, now);
			continue;
		default:
			mp_err("roce: rank %u: sendmmsg: %s", r->c->rank,
			       strerror(errno));
			r->err = -errno;
		}
	}
	io->ntx = 0;
}

/*
 * Room for a slot, a full batch sent first; false while the socket is
 * full.  Asked before a QP gives up its next packet or ACK, so that
 * what it gave is always in the batch, in order.
 */
static bool tx_room(struct roce *r, uint64_t now)
{
	if (r->io.ntx == ROCE_BATCH && !r->io.tx_blocked)
		tx_flush(r, now);
	return !r->io.tx_blocked && r->io.ntx < ROCE_BATCH;
}

/* The next slot (tx_room() said there is one), to peer @peer, with
 * @hlen bytes of header. */
static unsigned char *tx_slot(struct roce *r, unsigned int peer, size_t hlen,
			      const void *payload, size_t len, unsigned int pad)
{
	struct roce_io *io = &r->io;
	struct iovec *iov;
	struct msghdr *h;

	iov = io->txiov[io->ntx];
	h = &io->tx[io->ntx].msg_hdr;
	iov[0] = (struct iovec){ io->txhdr[io->ntx], hlen };
	iov[1] = (struct iovec){ (void *)payload, len };
	iov[2] = (struct iovec){ (void *)roce_zeros, pad + ROCE_ICRC_LEN };
	*h = (struct msghdr){
		.msg_name = &r->c->addr[peer],
		.msg_namelen = r->c->addrlen,
		.msg_iov = iov,
		.msg_iovlen = 3,
	};
	io->slot[io->ntx] = (struct roce_slot){ .peer = peer };
	return io->txhdr[io->ntx++];
}

static void tx_ack(struct roce *r, unsigned int peer, uint8_t syndrome,
		   uint32_t psn, uint32_t msn)
{
	struct roce_bth bth = {
		.opcode = ROCE_OP_ACK,
		.dqpn = roce_qpn(peer, r->c->rank),
		.psn = psn,
	};
	unsigned char *b = tx_slot(r, peer, ROCE_BTH_LEN + ROCE_AETH_LEN,
				   NULL, 0, 0);

	roce_bth_put(b, &bth);
	roce_aeth_put(b + ROCE_BTH_LEN, syndrome, msn);
	r->io.slot[r->io.ntx - 1].syndrome = syndrome;
}

/* A CM packet that finds no room is lost: its sender's timer resends. */
static void tx_cm(struct roce *r, unsigned int peer, uint8_t type,
		  uint64_t now)
{
	struct roce_bth bth = {
		.opcode = ROCE_OP_UD_SEND_ONLY,
		.dqpn = ROCE_QPN_CM,
		.psn = r->cm_psn,
	};
	struct roce_cm m = {
		.type = type,
		.rank = r->c->rank,
		.nranks = r->c->nranks,
		.isn = r->peer[peer].isn,
		.job = r->c->job,
	};
	unsigned char *b;

	if (!tx_room(r, now))
		return;
	b = tx_slot(r, peer, ROCE_SLOT_HDR, NULL, 0, 0);
	r->cm_psn = roce_psn_add(r->cm_psn, 1);
	roce_bth_put(b, &bth);
	roce_deth_put(b + ROCE_BTH_LEN, ROCE_QPN_CM);
	roce_cm_put(b + ROCE_BTH_LEN + ROCE_DETH_LEN, &m);
}

/* ACKs and NAKs first: they open windows.  @all: pending ones too. */
static void tx_acks(struct roce *r, bool all, uint64_t now)
{
	uint32_t psn, msn;
	uint8_t syndrome;
	unsigned int i;

	for (i = 0; i < r->c->nranks && tx_room(r, now); i++)
		if (i != r->c->rank && r->peer[i].heard &&
		    roce_rq_ack(&r->peer[i].rq, all, &syndrome, &psn, &msn,
				&r->st))
			tx_ack(r, i, syndrome, psn, msn);
}

static void tx_cms(struct roce *r, uint64_t now)
{
	bool teardown = r->phase == ROCE_DISCONNECT;
	unsigned int i;
	uint8_t type;

	for (i = 0; i < r->c->nranks; i++) {
		if (i == r->c->rank)
			continue;
		type = roce_cm_due(&r->peer[i], teardown, now);
		if (type)
			tx_cm(r, i, type, now);
	}
}

/* Up to @max packets of one QP's data. */
static unsigned int tx_data_qp(struct roce *r, unsigned int peer,
			       unsigned int max, uint64_t now)
{
	struct roce_tx_pkt p;
	struct roce_slot *s;
	unsigned char *b;
	unsigned int n;

	for (n = 0; n < max && tx_room(r, now); n++) {
		if (!roce_sq_next(&r->peer[peer].sq, roce_qpn(peer, r->c->rank),
				  &p))
			break;
		b = tx_slot(r, peer, ROCE_BTH_LEN, p.payload, p.len, p.bth.pad);
		roce_bth_put(b, &p.bth);
		s = &r->io.slot[r->io.ntx - 1];
		s->data = true;
		s->psn = p.bth.psn;
		s->len = p.len;
	}
	return n;
}

/* Data, a few packets of each QP in turn, a batch at most. */
static void tx_data(struct roce *r, uint64_t now)
{
	unsigned int n = r->c->nranks, i, k, got, sent = 0;

	do {
		got = 0;
		for (k = 0; k < n && !r->io.tx_blocked; k++) {
			i = (r->rr + k) % n;
			if (i != r->c->rank)
				got += tx_data_qp(r, i, ROCE_BATCH_PER_QP, now);
		}
		sent += got;
		r->rr = (r->rr + 1) % n;
	} while (got && sent < ROCE_BATCH && !r->io.tx_blocked);
}

/* One round of sending: how many packets went out. */
static uint64_t tx_pass(struct roce *r, bool all_acks, uint64_t now)
{
	uint64_t before = r->c->stats.tx_packets;

	r->io.tx_blocked = false;
	tx_acks(r, all_acks, now);
	tx_cms(r, now);
	tx_data(r, now);
	if (r->io.ntx)
		tx_flush(r, now);
	return r->c->stats.tx_packets - before;
}

/* ---- receive ---- */

/* ICMP errors: port unreachable means that peer's socket is closed. */
static void rx_errqueue(struct roce *r)
{
	union {
		char buf[512];
		struct cmsghdr align;
	} ctl;
	struct sock_extended_err ee;
	struct sockaddr_storage ss;
	unsigned char data[64];
	struct cmsghdr *cm;
	struct msghdr h;
	struct iovec iov;
	int rank;

	for (;;) {
		iov = (struct iovec){ data, sizeof(data) };
		h = (struct msghdr){
			.msg_name = &ss, .msg_namelen = sizeof(ss),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		if (recvmsg(r->fd, &h, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (cm = CMSG_FIRSTHDR(&h); cm; cm = CMSG_NXTHDR(&h, cm)) {
			if (!(cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) &&
			    !(cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			rank = addr_rank(r, &ss);
			if (ee.ee_errno == ECONNREFUSED && rank >= 0)
				r->peer[rank].gone = true;
		}
	}
}

/* The socket's drops so far, if this datagram says. */
static void rx_ovfl(struct roce *r, struct msghdr *h)
{
	struct cmsghdr *cm;
	uint32_t ovfl;

	for (cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SO_RXQ_OVFL)
			continue;
		memcpy(&ovfl, CMSG_DATA(cm), sizeof(ovfl));
		r->st.dropped += ovfl - r->ovfl;
		r->ovfl = ovfl;
	}
}

static void rx_cm(struct roce *r, const struct roce_bth *bth,
		  const struct roce_buf *b, size_t len,
		  const struct sockaddr_storage *from, uint64_t now)
{
	size_t hlen = ROCE_BTH_LEN + ROCE_DETH_LEN;
	struct roce_cm m;
	uint8_t reply;

	if (bth->opcode != ROCE_OP_UD_SEND_ONLY || len < hlen + ROCE_ICRC_LEN ||
	    roce_cm_get(b->raw + hlen, len - hlen - ROCE_ICRC_LEN, &m) ||
	    m.rank >= r->c->nranks || m.rank == r->c->rank ||
	    m.nranks != r->c->nranks || m.job != r->c->job ||
	    !addr_same(from, &r->c->addr[m.rank])) {
		r->st.dropped++;
		return;
	}
	if (roce_cm_rx(&r->peer[m.rank], &m, &reply)) {
		roce_fail(r, -ECONNRESET, m.rank,
			  "its first PSN changed: two ranks of that number?");
		return;
	}
	if (reply)
		tx_cm(r, m.rank, reply, now);
}

/* The peer a packet of ours comes from, by its QPN and address; -1. */
static int rx_peer(const struct roce *r, const struct roce_bth *bth,
		   const struct sockaddr_storage *from)
{
	unsigned int peer = bth->dqpn & 0xff;

	if ((bth->dqpn & 0xff0000) != ROCE_QPN_BASE ||
	    ((bth->dqpn >> 8) & 0xff) != r->c->rank ||
	    peer >= r->c->nranks || peer == r->c->rank ||
	    !r->peer[peer].heard || !addr_same(from, &r->c->addr[peer]))
		return -1;
	return peer;
}

static void rx_ack(struct roce *r, unsigned int peer, const struct roce_bth *bth,
		   const struct roce_buf *b, size_t len, uint64_t now)
{
	uint32_t msn;
	uint8_t syndrome;

	if (len < ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN) {
		r->st.dropped++;
		return;
	}
	roce_aeth_get(b->raw + ROCE_BTH_LEN, &syndrome, &msn);
	if (roce_sq_ack(&r->peer[peer].sq, syndrome, bth->psn, now))
		r->progress_ns = now;
}

static void rx_data(struct roce *r, unsigned int peer, unsigned int i,
		    const struct roce_bth *bth, size_t len, uint64_t now)
{
	struct roce_buf *b = r->io.rxbuf[i];
	const char *why = NULL;

	if (len < (size_t)ROCE_BTH_LEN + bth->pad + ROCE_ICRC_LEN) {
		r->st.dropped++;
		return;
	}
	b->off = ROCE_BTH_LEN;
	b->len = len - ROCE_BTH_LEN - bth->pad - ROCE_ICRC_LEN;
	r->c->stats.rx_bytes += b->len;
	switch (roce_rq_data(&r->peer[peer].rq, bth, &r->io.rxbuf[i], &r->st,
			     &why)) {
	case ROCE_RX_KEPT:
		r->io.rxbuf[i] = buf_get(r);
		/* fall through */
	case ROCE_RX_PLACED:
		r->progress_ns = now;
		break;
	case ROCE_RX_ERROR:
		roce_fail(r, -EPROTO, peer, "%s", why);
		break;
	case ROCE_RX_DROPPED:
		break;
	}
}

static bool is_send(uint8_t op)
{
	return op == ROCE_OP_SEND_FIRST || op == ROCE_OP_SEND_MIDDLE ||
	       op == ROCE_OP_SEND_LAST || op == ROCE_OP_SEND_ONLY;
}

static void rx_one(struct roce *r, unsigned int i, uint64_t now)
{
	struct msghdr *h = &r->io.rx[i].msg_hdr;
	const struct sockaddr_storage *from = &r->io.rxaddr[i];
	const struct roce_buf *b = r->io.rxbuf[i];
	size_t len = r->io.rx[i].msg_len;
	struct roce_bth bth;
	int peer;

	r->c->stats.rx_packets++;
	rx_ovfl(r, h);
	if ((h->msg_flags & MSG_TRUNC) || roce_bth_get(b->raw, len, &bth)) {
		r->st.dropped++;
		return;
	}
	if (bth.dqpn == ROCE_QPN_CM) {
		rx_cm(r, &bth, b, len, from, now);
		return;
	}
	peer = rx_peer(r, &bth, from);
	if (peer < 0)
		r->st.dropped++;
	else if (bth.opcode == ROCE_OP_ACK)
		rx_ack(r, peer, &bth, b, len, now);
	else if (is_send(bth.opcode))
		rx_data(r, peer, i, &bth, len, now);
	else
		r->st.dropped++;
}

/* What the socket holds, up to a batch: how many datagrams. */
static int rx_batch(struct roce *r)
{
	struct roce_io *io = &r->io;
	uint64_t now;
	int i, n;

	for (i = 0; i < ROCE_BATCH; i++) {
		io->rxiov[i] = (struct iovec){ io->rxbuf[i]->raw, ROCE_RAW_MAX };
		io->rx[i].msg_hdr = (struct msghdr){
			.msg_name = &io->rxaddr[i],
			.msg_namelen = sizeof(io->rxaddr[i]),
			.msg_iov = &io->rxiov[i],
			.msg_iovlen = 1,
			.msg_control = io->rxctl[i].buf,
			.msg_controllen = sizeof(io->rxctl[i].buf),
		};
	}
	n = recvmmsg(r->fd, io->rx, ROCE_BATCH, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == ECONNREFUSED || errno == EHOSTUNREACH ||
		    errno == ENETUNREACH)
			rx_errqueue(r);
		else if (errno != EAGAIN && errno != EINTR)
			roce_fail(r, -errno, r->c->rank, "recvmmsg: %s",
				  strerror(errno));
		return 0;
	}
	now = mp_mono_ns();
	for (i = 0; i < n && !r->err; i++)
		rx_one(r, i, now);
	return n;
}

/* ---- the loop ---- */

static bool peer_busy(const struct roce_peer *p)
{
	return !roce_sq_done(&p->sq) || !roce_rq_done(&p->rq);
}

static bool connect_done(struct roce *r, uint64_t now)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->c->nranks; i++)
		if (i != r->c->rank && !(r->peer[i].heard && r->peer[i].confirmed))
			n++;
	if (!n)
		return true;
	if (now - r->start_ns < r->c->timeout_ns)
		return false;
	for (i = 0; i < r->c->nranks; i++)
		if (i != r->c->rank && !(r->peer[i].heard && r->peer[i].confirmed))
			break;
	roce_fail(r, -ETIMEDOUT, i, "no handshake in %.1f s (%u rank%s missing)",
		  r->c->timeout_ns / 1e9, n, n == 1 ? "" : "s");
	return false;
}

static bool exchange_done(struct roce *r, uint64_t now)
{
	const struct roce_peer *p;
	unsigned int i, busy = 0, first = 0;

	for (i = 0; i < r->c->nranks; i++) {
		p = &r->peer[i];
		if (i == r->c->rank || !peer_busy(p))
			continue;
		if (p->gone) {
			roce_fail(r, -ECONNRESET, i, "went away (port unreachable)");
			return false;
		}
		if (p->done && !roce_rq_done(&p->rq)) {
			roce_fail(r, -ECONNRESET, i,
				  "disconnected with a message still to send");
			return false;
		}
		if (!busy++)
			first = i;
	}
	if (!busy)
		return true;
	if (now - r->progress_ns >= r->c->timeout_ns) {
		p = &r->peer[first];
		roce_fail(r, -ETIMEDOUT, first,
			  "nothing moved for %.1f s (%u packets in flight, %s)",
			  r->c->timeout_ns / 1e9, roce_sq_inflight(&p->sq),
			  roce_rq_done(&p->rq) ? "all received" : "a receive open");
	}
	return false;
}

/* Every peer is done and knows we are (or is gone); then linger a bit. */
static bool disconnect_done(struct roce *r, uint64_t now)
{
	const struct roce_peer *p;
	unsigned int i;

	if (now - r->start_ns >= r->c->timeout_ns)
		return true;
	if (!r->linger_ns) {
		for (i = 0; i < r->c->nranks; i++) {
			p = &r->peer[i];
			if (i != r->c->rank && !p->gone &&
			    !(p->done && p->released))
				return false;
		}
		r->linger_ns = now;
	}
	return now - r->linger_ns >= ROCE_CM_LINGER;
}

static bool phase_done(struct roce *r, uint64_t now)
{
	switch (r->phase) {
	case ROCE_CONNECT:
		return connect_done(r, now);
	case ROCE_EXCHANGE:
		return exchange_done(r, now);
	case ROCE_DISCONNECT:
		return disconnect_done(r, now);
	}
	return true;
}

static void min_deadline(uint64_t *d, uint64_t t)
{
	if (t && t < *d)
		*d = t;
}

/* The earliest thing to do without a packet: a timer or a phase's end. */
static uint64_t next_deadline(const struct roce *r)
{
	uint64_t d = UINT64_MAX;
	const struct roce_peer *p;
	unsigned int i;

	for (i = 0; i < r->c->nranks; i++) {
		p = &r->peer[i];
		if (i == r->c->rank)
			continue;
		min_deadline(&d, p->sq.deadline_ns);
		if (r->phase == ROCE_CONNECT ? !p->confirmed :
		    r->phase == ROCE_DISCONNECT && !p->released && !p->gone)
			min_deadline(&d, p->cm_deadline_ns);
	}
	if (r->phase == ROCE_EXCHANGE)
		min_deadline(&d, r->progress_ns + r->c->timeout_ns);
	else
		min_deadline(&d, r->start_ns + r->c->timeout_ns);
	if (r->linger_ns)
		min_deadline(&d, r->linger_ns + ROCE_CM_LINGER);
	return d;
}

static void wait_io(struct roce *r, uint64_t now)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	uint64_t d = next_deadline(r), ns = d > now ? d - now : 0;
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	if (r->io.tx_blocked)
		pfd.events |= POLLOUT;
	if (ppoll(&pfd, 1, d == UINT64_MAX ? NULL : &ts, NULL) > 0 &&
	    (pfd.revents & POLLERR))
		rx_errqueue(r);
}

static void timers(struct roce *r, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < r->c->nranks; i++)
		if (i != r->c->rank)
			roce_sq_timer(&r->peer[i].sq, now, &r->st);
}

/* Receive, time out, send, until the phase is over or fails. */
static int roce_run(struct roce *r, enum roce_phase phase)
{
	uint64_t now = mp_mono_ns(), sent;
	int n;

	r->phase = phase;
	r->start_ns = r->progress_ns = now;
	r->linger_ns = 0;
	while (!r->err) {
		n = rx_batch(r);
		now = mp_mono_ns();
		timers(r, now);
		sent = tx_pass(r, false, now);
		if (r->err || phase_done(r, now))
			break;
		if (!r->io.tx_blocked && (n || sent))
			continue;
		/* Idle: what is owed goes out before we sleep. */
		if (!r->io.tx_blocked && tx_pass(r, true, now))
			continue;
		wait_io(r, now);
	}
	if (!r->err)
		tx_pass(r, true, now);
	sync_stats(r);
	return r->err;
}

/* ---- the transport ---- */

static int set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* A big buffer if we may (root in the namespace), else what rmem_max says. */
static void set_buf(int fd, int force, int name, int size)
{
	if (set_int(fd, SOL_SOCKET, force, size))
		set_int(fd, SOL_SOCKET, name, size);
}

static int roce_socket(struct roce *r)
{
	const struct sockaddr_storage *me = &r->c->addr[r->c->rank];
	bool v6 = me->ss_family == AF_INET6;
	const char *what = "socket";

	r->fd = socket(me->ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->fd < 0)
		goto err;
	set_buf(r->fd, SO_RCVBUFFORCE, SO_RCVBUF, ROCE_RCVBUF);
	set_buf(r->fd, SO_SNDBUFFORCE, SO_SNDBUF, ROCE_SNDBUF);
	what = "socket options";
	if (set_int(r->fd, SOL_SOCKET, SO_RXQ_OVFL, 1) ||
	    (v6 ? set_int(r->fd, IPPROTO_IPV6, IPV6_TCLASS, ROCE_ECT0) ||
		  set_int(r->fd, IPPROTO_IPV6, IPV6_RECVERR, 1)
		: set_int(r->fd, IPPROTO_IP, IP_TOS, ROCE_ECT0) ||
		  set_int(r->fd, IPPROTO_IP, IP_RECVERR, 1)))
		goto err;
	what = "bind";
	if (bind(r->fd, (const struct sockaddr *)me, r->c->addrlen))
		goto err;
	return 0;
err:
	roce_fail(r, -errno, r->c->rank, "%s: %s", what, strerror(errno));
	return r->err;
}

/* The port the engine gave (--port), else RoCEv2's, which hostacct and
 * every RoCE tool know. */
static void set_port(struct sockaddr_storage *ss)
{
	in_port_t *port = ss->ss_family == AF_INET6 ?
		&((struct sockaddr_in6 *)ss)->sin6_port :
		&((struct sockaddr_in *)ss)->sin_port;

	if (!*port)
		*port = htons(COLL_ROCE_PORT);
}

/* First PSNs at random, as RC QPs have: a stale packet of an earlier job
 * on the same addresses falls outside every window. */
static int roce_random(struct roce *r)
{
	unsigned int i, n = r->c->nranks;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v || getrandom(v, n * sizeof(*v), 0) != (ssize_t)(n * sizeof(*v))) {
		roce_fail(r, v ? -errno : -ENOMEM, r->c->rank, "random PSNs: %s",
			  strerror(v ? errno : ENOMEM));
		free(v);
		return r->err;
	}
	for (i = 0; i < n; i++) {
		r->peer[i].isn = v[i] & ROCE_PSN_MASK;
		roce_sq_init(&r->peer[i].sq, r->peer[i].isn);
	}
	free(v);
	return 0;
}

static void roce_free(struct roce *r)
{
	struct roce_buf *b;
	unsigned int i;

	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; r->peer && i < r->c->nranks; i++) {
		roce_msgq_free(&r->peer[i].sq.q);
		roce_msgq_free(&r->peer[i].rq.q);
		roce_rq_free(&r->peer[i].rq);
	}
	for (i = 0; i < ROCE_BATCH; i++)
		free(r->io.rxbuf[i]);
	while ((b = r->free)) {
		r->free = b->next;
		free(b);
	}
	free(r->peer);
	free(r);
}

static int roce_alloc(struct coll_comm *c, struct roce **rp)
{
	struct roce *r = calloc(1, sizeof(*r));
	unsigned int i;

	*rp = r;
	if (!r) {
		mp_err("roce: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r->c = c;
	r->fd = -1;
	r->peer = calloc(c->nranks, sizeof(*r->peer));
	for (i = 0; r->peer && i < ROCE_BATCH; i++)
		r->io.rxbuf[i] = buf_get(r);
	if (!r->peer || r->err) {
		if (!r->err)
			mp_err("roce: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

static int roce_setup(struct coll_comm *c)
{
	uint64_t now = mp_mono_ns();
	struct roce *r = NULL;
	unsigned int i;
	int err;

	err = roce_alloc(c, &r);
	if (!err) {
		for (i = 0; i < c->nranks; i++)
			set_port(&c->addr[i]);
		err = roce_random(r);
	}
	if (!err)
		err = roce_socket(r);
	for (i = 0; !err && i < c->nranks; i++)
		roce_cm_arm(&r->peer[i], now);
	if (!err)
		err = roce_run(r, ROCE_CONNECT);
	if (err) {
		if (r)
			roce_free(r);
		return err;
	}
	/* ICMP errors of REQs sent before a peer had bound are old news. */
	rx_errqueue(r);
	for (i = 0; i < c->nranks; i++)
		r->peer[i].gone = false;
	c->priv = r;
	return 0;
}

static int post_one(struct roce *r, const struct coll_xfer *x, bool send)
{
	struct roce_peer *p;
	int err;

	if (x->peer >= r->c->nranks || x->peer == r->c->rank) {
		mp_err("roce: rank %u: no peer %u to %s", r->c->rank, x->peer,
		       send ? "send to" : "receive from");
		return -EINVAL;
	}
	p = &r->peer[x->peer];
	err = send ? roce_sq_post(&p->sq, x->buf, x->len)
		   : roce_rq_post(&p->rq, x->buf, x->len);
	if (err)
		roce_fail(r, err, x->peer, "%s of %zu bytes: %s",
			  send ? "send" : "receive", x->len, strerror(-err));
	return err;
}

static int roce_exchange(struct coll_comm *c, const struct coll_xfer *sends,
			 unsigned int nsends, const struct coll_xfer *recvs,
			 unsigned int nrecvs)
{
	struct roce *r = c->priv;
	const char *why;
	unsigned int i;
	int err = 0;

	if (r->err)
		return r->err;
	for (i = 0; !err && i < nsends; i++)
		err = post_one(r, &sends[i], true);
	for (i = 0; !err && i < nrecvs; i++)
		err = post_one(r, &recvs[i], false);
	/* What came early goes into the receives just posted. */
	for (i = 0; !err && i < c->nranks; i++) {
		if (i != c->rank &&
		    roce_rq_drain(&r->peer[i].rq, &r->free, &why)) {
			roce_fail(r, -EPROTO, i, "%s", why);
			err = r->err;
		}
	}
	if (err)
		return r->err ? r->err : err;
	return roce_run(r, ROCE_EXCHANGE);
}

static void roce_teardown(struct coll_comm *c)
{
	struct roce *r = c->priv;
	uint64_t now = mp_mono_ns();
	unsigned int i;

	if (!r)
		return;
	if (!r->err) {
		for (i = 0; i < c->nranks; i++)
			roce_cm_arm(&r->peer[i], now);
		roce_run(r, ROCE_DISCONNECT);
	}
	sync_stats(r);
	roce_free(r);
	c->priv = NULL;
}

const struct coll_transport coll_roce_transport = {
	.name = "roce",
	.setup = roce_setup,
	.exchange = roce_exchange,
	.teardown = roce_teardown,
};
