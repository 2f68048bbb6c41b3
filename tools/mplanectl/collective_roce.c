// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport of 'mplanectl collective': one UDP socket per rank
 * on port 4791, and one loop that serves the three phases (connect,
 * exchange, disconnect) alike: every packet that comes is answered in
 * any phase, so that a peer still in an earlier phase never waits on us.
 * The QPs' logic is in collective_roce_qp.c, the handshakes' in
 * collective_roce_cm.c, the batched I/O in collective_roce_io.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "collective_roce_io.h"
#include "mp_out.h"
#include "mp_run.h"

static void sync_stats(struct roce *r)
{
	struct coll_transport_stats *s = &r->c->stats;
	unsigned int i;

	s->retransmits = r->st.retransmits;
	s->timeouts = r->st.timeouts;
	s->naks = r->st.naks;
	s->held = r->st.held;
	s->dropped = r->st.dropped;
	s->rtt_min_ns = 0;
	s->srtt_min_ns = s->srtt_sum_ns = s->srtt_max_ns = 0;
	s->rtt_conns = 0;
	for (i = 0; i < r->c->nranks; i++)
		if (i != r->c->rank)
			coll_stats_rtt(s, r->peer[i].sq.rtt_min_ns,
				       r->peer[i].sq.srtt_ns);
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
		roce_rx_errqueue(r);
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
		n = roce_rx_batch(r);
		now = mp_mono_ns();
		timers(r, now);
		sent = roce_tx_pass(r, false, now);
		if (r->err || phase_done(r, now))
			break;
		if (!r->io.tx_blocked && (n || sent))
			continue;
		/* Idle: what is owed goes out before we sleep. */
		if (!r->io.tx_blocked && roce_tx_pass(r, true, now))
			continue;
		wait_io(r, now);
	}
	if (!r->err)
		roce_tx_pass(r, true, now);
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
	/* The kernel doubles what it is asked for: half, to get what the
	 * job said. */
	set_buf(r->fd, SO_SNDBUFFORCE, SO_SNDBUF,
		r->c->sndbuf ? (int)(r->c->sndbuf / 2) : ROCE_SNDBUF);
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
	/* The socket is the job's until its end: a second job on this
	 * host cannot wait for it, as tcp's does for its listener. */
	if (errno == EADDRINUSE) {
		roce_fail(r, -errno, r->c->rank,
			  "the port is taken: is another job on this host? (give each its own --port)");
		return r->err;
	}
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
		if (r->c->window)
			roce_sq_set_window(&r->peer[i].sq, r->c->window);
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
		r->io.rxbuf[i] = roce_buf_get(r);
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
	roce_rx_errqueue(r);
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
