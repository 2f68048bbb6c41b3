// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport's socket I/O: packets built into a batch of slots
 * and sent with one sendmmsg(), data straight from the user's buffer by
 * iovec; datagrams taken a batch at a time with recvmmsg() and handed to
 * their QP, whose responder copies the payload once, into its receive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <linux/errqueue.h>
#include <sys/socket.h>

#include "collective_roce_io.h"
#include "mp_arg.h"
#include "mp_out.h"
#include "mp_run.h"

/* Bytes that no header of ours has: pad and ICRC. */
static const unsigned char roce_zeros[8];

static const char *peer_str(const struct roce *r, unsigned int peer,
			    char *buf, size_t size)
{
	return mp_sockaddr_str((const struct sockaddr *)&r->c->addr[peer],
			       buf, size);
}

void roce_fail(struct roce *r, int err, unsigned int peer, const char *fmt, ...)
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

struct roce_buf *roce_buf_get(struct roce *r)
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

/*
 * Send the batch.  A datagram the stack drops on the way out (ENOBUFS: a
 * full qdisc, a tc dropper) or cannot route is lost as on a wire, and
 * the QP resends it (its gap NAKed, or its timer); but when sendmmsg()
 * stopped at it, the error is not told, and the next call sends it
 * again.  A full send buffer stops the batch until the socket has room.
 */
static void tx_flush(struct roce *r, uint64_t now)
{
	struct roce_io *io = &r->io;
	unsigned int i = 0, k;
	bool retried = false;
	int n, err;

	while (i < io->ntx && !r->err) {
		n = sendmmsg(r->fd, io->tx + i, io->ntx - i, MSG_DONTWAIT);
		if (n > 0) {
			for (k = i; k < i + n; k++)
				tx_account(r, k, now);
			i += n;
			retried = false;
			continue;
		}
		err = errno;
		switch (err) {
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
			/* An earlier datagram's ICMP error, told now; if the
			 * same comes again, it is this one's: no route. */
			if (!retried) {
				roce_rx_errqueue(r);
				retried = true;
				continue;
			}
			/* fall through */
		case ENOBUFS:
		case EPERM:
			tx_account(r, i++, now);
			retried = false;
			continue;
		default:
			roce_fail(r, -err, io->slot[i].peer, "sendmmsg: %s",
				  strerror(err));
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

/* An ACK or NAK; a sequence NAK also names where its gap ends. */
static void tx_ack(struct roce *r, unsigned int peer, uint8_t syndrome,
		   uint32_t psn, uint32_t nak_end, uint32_t msn)
{
	struct roce_bth bth = {
		.opcode = ROCE_OP_ACK,
		.dqpn = roce_qpn(peer, r->c->rank),
		.psn = psn,
	};
	bool nak_seq = ROCE_AETH_KIND(syndrome) == ROCE_AETH_NAK_SEQ;
	unsigned char *b = tx_slot(r, peer, ROCE_BTH_LEN + ROCE_AETH_LEN +
				   (nak_seq ? ROCE_NAK_END_LEN : 0), NULL, 0, 0);

	roce_bth_put(b, &bth);
	roce_aeth_put(b + ROCE_BTH_LEN, syndrome, msn);
	if (nak_seq)
		roce_put32(b + ROCE_BTH_LEN + ROCE_AETH_LEN, nak_end & ROCE_PSN_MASK);
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
	uint32_t psn, nak_end, msn;
	uint8_t syndrome;
	unsigned int i;

	for (i = 0; i < r->c->nranks && tx_room(r, now); i++)
		if (i != r->c->rank && r->peer[i].heard &&
		    roce_rq_ack(&r->peer[i].rq, all, &syndrome, &psn, &nak_end,
				&msn, &r->st))
			tx_ack(r, i, syndrome, psn, nak_end, msn);
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
uint64_t roce_tx_pass(struct roce *r, bool all_acks, uint64_t now)
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
void roce_rx_errqueue(struct roce *r)
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
	ssize_t len;
	int rank;

	for (;;) {
		iov = (struct iovec){ data, sizeof(data) };
		h = (struct msghdr){
			.msg_name = &ss, .msg_namelen = sizeof(ss),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		len = recvmsg(r->fd, &h, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (len < 0)
			return;
		if (roce_cm_error_stale(data, (size_t)len))
			continue;
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
	uint32_t msn, nak_end = bth->psn;
	uint8_t syndrome;

	if (len < ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN) {
		r->st.dropped++;
		return;
	}
	roce_aeth_get(b->raw + ROCE_BTH_LEN, &syndrome, &msn);
	/* A NAK without its gap's end asks to go back N. */
	if (ROCE_AETH_KIND(syndrome) == ROCE_AETH_NAK_SEQ &&
	    len >= ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_NAK_END_LEN + ROCE_ICRC_LEN)
		nak_end = roce_get32(b->raw + ROCE_BTH_LEN + ROCE_AETH_LEN) &
			  ROCE_PSN_MASK;
	if (roce_sq_ack(&r->peer[peer].sq, syndrome, bth->psn, nak_end, now))
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
	switch (roce_rq_data(&r->peer[peer].rq, bth, &r->io.rxbuf[i], &r->free,
			     &r->st, &why)) {
	case ROCE_RX_KEPT:
	case ROCE_RX_HELD:
		r->io.rxbuf[i] = roce_buf_get(r);
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
int roce_rx_batch(struct roce *r)
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
			roce_rx_errqueue(r);
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
