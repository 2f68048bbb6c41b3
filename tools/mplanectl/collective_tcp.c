// SPDX-License-Identifier: GPL-2.0
/*
 * The tcp transport of 'mplanectl collective': a full mesh of TCP
 * connections, as gloo and NCCL's socket transport keep them.  Rank r
 * listens on its address and connects to every lower rank; a hello names
 * the connecting rank and its job.  Sockets are nonblocking with large
 * buffers, so that one send() or recv() moves as much as the kernel
 * holds, and exchange() moves every transfer of a step at once under one
 * poll(): a ring step sends to one neighbour while it receives from the
 * other, and alltoall talks to every peer together.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/socket.h>

#include "mp_arg.h"
#include "mp_out.h"
#include "mp_run.h"
#include "collective.h"

/* Twice this in the kernel's accounting: several slices in flight. */
#define TCP_SOCKBUF		(4 << 20)
#define TCP_HELLO_MAGIC		0x4d50434cU	/* "MPCL" */
#define TCP_RETRY_NS		20000000ULL	/* a refused connect again */

struct tcp_hello {
	uint32_t magic;
	uint32_t rank;
	uint32_t nranks;
	uint32_t pad;
	uint64_t job;
};

struct tcp_priv {
	int fd[COLL_MAX_RANKS];			/* -1 for our own rank */
	struct pollfd pfd[COLL_MAX_RANKS];
	int slot[COLL_MAX_RANKS];		/* peer's index in pfd */
	/* The first unfinished transfer to and from each peer, in this
	 * round of exchange(): later ones to the same peer wait their turn,
	 * so a peer's messages stay in order. */
	uint32_t busy_tx[COLL_MAX_RANKS], busy_rx[COLL_MAX_RANKS];
	uint32_t round;
	size_t *done;				/* bytes of each transfer */
	unsigned int ndone;
};

static uint16_t tcp_port(const struct sockaddr_storage *ss)
{
	uint16_t port = ss->ss_family == AF_INET6 ?
		((const struct sockaddr_in6 *)ss)->sin6_port :
		((const struct sockaddr_in *)ss)->sin_port;

	return port ? port : htons(COLL_TCP_PORT);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = port;
	else
		((struct sockaddr_in *)ss)->sin_port = port;
}

/* "rank 2 (10.100.2.2:18515)", for messages. */
static const char *peer_str(const struct coll_comm *c, unsigned int peer,
			    char *buf, size_t size)
{
	struct sockaddr_storage ss = c->addr[peer];
	char addr[MP_SOCKADDR_STRLEN];

	set_port(&ss, tcp_port(&c->addr[peer]));
	snprintf(buf, size, "rank %u (%s)", peer,
		 mp_sockaddr_str((struct sockaddr *)&ss, addr, sizeof(addr)));
	return buf;
}

/* Large buffers, no Nagle: set before connect() and listen(), so the
 * window scale that the handshake agrees on fits them. */
static void tcp_tune(int fd)
{
	int size = TCP_SOCKBUF, one = 1;

	/* The FORCE options pass net.core.[rw]mem_max, for root. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int tcp_socket(const struct coll_comm *c)
{
	int fd = socket(c->addr[c->rank].ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd >= 0)
		tcp_tune(fd);
	return fd;
}

/*
 * Our listener, or -1 while the port is taken: by another job's rank on
 * this host in its own setup, most likely, which lets go of it once its
 * connections are up.  So two jobs may share a host and a port, and
 * setup tries again until its deadline.
 */
static int tcp_listen(struct coll_comm *c, int *err)
{
	struct sockaddr_storage ss = c->addr[c->rank];
	int fd, one = 1;

	fd = tcp_socket(c);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	/* A job that just ended leaves TIME_WAIT, not a listener. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_port(&ss, tcp_port(&c->addr[c->rank]));
	if (!bind(fd, (struct sockaddr *)&ss, c->addrlen) &&
	    !listen(fd, COLL_MAX_RANKS))
		return fd;
	*err = errno;
	close(fd);
	return -1;
}

/* A connection from our own address to @peer's, in progress: an fd. */
static int tcp_connect(struct coll_comm *c, unsigned int peer)
{
	struct sockaddr_storage ss = c->addr[peer], self = c->addr[c->rank];
	int fd = tcp_socket(c);

	if (fd < 0)
		return -errno;
	set_port(&self, 0);
	set_port(&ss, tcp_port(&c->addr[peer]));
	if (bind(fd, (struct sockaddr *)&self, c->addrlen) ||
	    (connect(fd, (struct sockaddr *)&ss, c->addrlen) &&
	     errno != EINPROGRESS)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Setup's state.  Out, to each lower rank: connect, send our hello, and
 * take the peer's hello back as its yes; a refusal, or a listener of
 * another job that hangs up, is tried again.  In, from each higher rank:
 * accept, take its hello, answer with ours.
 */
enum out_state { OUT_IDLE, OUT_CONNECTING, OUT_HELLO };

struct tcp_setup {
	int lfd, listen_err;
	uint64_t retry_listen_ns;
	int out[COLL_MAX_RANKS];		/* connecting fd, or -1 */
	enum out_state state[COLL_MAX_RANKS];
	uint64_t retry_ns[COLL_MAX_RANKS];	/* when to try again */
	int last_err[COLL_MAX_RANKS];
	int in[COLL_MAX_RANKS];			/* accepted, hello not read */
	unsigned int nin;
	struct tcp_hello hello[2][COLL_MAX_RANKS];	/* out's, in's */
	size_t got[2][COLL_MAX_RANKS];
};

static struct tcp_hello my_hello(const struct coll_comm *c)
{
	return (struct tcp_hello){
		.magic = TCP_HELLO_MAGIC, .rank = c->rank, .nranks = c->nranks,
		.job = c->job,
	};
}

static bool hello_ok(const struct coll_comm *c, const struct tcp_hello *h)
{
	return h->magic == TCP_HELLO_MAGIC && h->job == c->job &&
	       h->nranks == c->nranks && h->rank < c->nranks &&
	       h->rank != c->rank;
}

/*
 * Read more of a hello on @fd: 1 when it is whole, 0 for more to come,
 * -1 when the peer hung up or failed.  An empty socket takes our own
 * 24-byte hello whole, so sends need no such care.
 */
static int hello_read(int fd, struct tcp_hello *h, size_t *got)
{
	ssize_t n = recv(fd, (char *)h + *got, sizeof(*h) - *got, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	*got += n;
	return *got == sizeof(*h);
}

static void out_retry(struct tcp_setup *s, unsigned int q, int err)
{
	close(s->out[q]);
	s->out[q] = -1;
	s->state[q] = OUT_IDLE;
	s->last_err[q] = err;
	s->retry_ns[q] = mp_mono_ns() + TCP_RETRY_NS;
}

/* Rank @q's connection, one state further when it can be. */
static void out_step(struct coll_comm *c, struct tcp_priv *p,
		     struct tcp_setup *s, unsigned int q)
{
	struct tcp_hello h = my_hello(c), *back = &s->hello[0][q];
	socklen_t len = sizeof(int);
	int err = 0, fd, rc;

	switch (s->state[q]) {
	case OUT_IDLE:
		if (s->retry_ns[q] > mp_mono_ns())
			return;
		fd = tcp_connect(c, q);
		if (fd < 0) {
			s->last_err[q] = -fd;
			s->retry_ns[q] = mp_mono_ns() + TCP_RETRY_NS;
			return;
		}
		s->out[q] = fd;
		s->state[q] = OUT_CONNECTING;
		return;
	case OUT_CONNECTING:
		if (poll(&(struct pollfd){ .fd = s->out[q], .events = POLLOUT },
			 1, 0) <= 0)
			return;
		getsockopt(s->out[q], SOL_SOCKET, SO_ERROR, &err, &len);
		if (!err && send(s->out[q], &h, sizeof(h), MSG_NOSIGNAL) != sizeof(h))
			err = errno ? errno : EIO;
		if (err) {
			out_retry(s, q, err);
			return;
		}
		s->state[q] = OUT_HELLO;
		s->got[0][q] = 0;
		return;
	case OUT_HELLO:
		rc = hello_read(s->out[q], back, &s->got[0][q]);
		if (rc < 0 || (rc > 0 && (!hello_ok(c, back) || back->rank != q)))
			out_retry(s, q, ECONNREFUSED);
		else if (rc > 0) {
			p->fd[q] = s->out[q];
			s->out[q] = -1;
		}
		return;
	}
}

static void in_drop(struct tcp_setup *s, unsigned int i)
{
	s->nin--;
	s->in[i] = s->in[s->nin];
	s->hello[1][i] = s->hello[1][s->nin];
	s->got[1][i] = s->got[1][s->nin];
}

/* More of accepted connection @i's hello: whole and of our job, it is
 * answered and its fd goes to its rank; a stray one is dropped. */
static void in_step(struct coll_comm *c, struct tcp_priv *p,
		    struct tcp_setup *s, unsigned int i)
{
	struct tcp_hello *h = &s->hello[1][i], me = my_hello(c);
	int rc = hello_read(s->in[i], h, &s->got[1][i]);

	if (!rc)
		return;
	if (rc > 0 && hello_ok(c, h) && h->rank > c->rank &&
	    p->fd[h->rank] < 0 &&
	    send(s->in[i], &me, sizeof(me), MSG_NOSIGNAL) == sizeof(me))
		p->fd[h->rank] = s->in[i];
	else
		close(s->in[i]);
	in_drop(s, i);
}

static void accept_all(struct tcp_setup *s)
{
	int fd;

	while (s->nin < COLL_MAX_RANKS &&
	       (fd = accept4(s->lfd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		s->in[s->nin] = fd;
		s->got[1][s->nin++] = 0;
	}
}

static unsigned int missing(const struct coll_comm *c,
			    const struct tcp_priv *p)
{
	unsigned int q, n = 0;

	for (q = 0; q < c->nranks; q++)
		n += q != c->rank && p->fd[q] < 0;
	return n;
}

/* Higher ranks not yet in: while there are any, we need our listener. */
static bool awaiting_higher(const struct coll_comm *c,
			    const struct tcp_priv *p)
{
	unsigned int q;

	for (q = c->rank + 1; q < c->nranks; q++)
		if (p->fd[q] < 0)
			return true;
	return false;
}

static void setup_timed_out(const struct coll_comm *c,
			    const struct tcp_priv *p,
			    const struct tcp_setup *s)
{
	char peer[96];
	unsigned int q;

	if (s->lfd < 0 && awaiting_higher(c, p)) {
		if (s->listen_err == EADDRINUSE)
			mp_err("%s: the port stayed taken for %.1f s: by a job still running on this host? (give each its own --port)",
			       peer_str(c, c->rank, peer, sizeof(peer)),
			       c->timeout_ns / 1e9);
		else
			mp_err("listening on %s: %s",
			       peer_str(c, c->rank, peer, sizeof(peer)),
			       strerror(s->listen_err));
		return;
	}
	for (q = 0; q < c->nranks; q++) {
		if (q == c->rank || p->fd[q] >= 0)
			continue;
		if (q < c->rank)
			mp_err("no connection to %s in %.1f s: %s",
			       peer_str(c, q, peer, sizeof(peer)),
			       c->timeout_ns / 1e9,
			       strerror(s->last_err[q] ? s->last_err[q] : ETIMEDOUT));
		else
			mp_err("no connection from %s in %.1f s",
			       peer_str(c, q, peer, sizeof(peer)),
			       c->timeout_ns / 1e9);
		return;
	}
}

/* Wait for the next thing setup can do, or the next retry. */
static int setup_poll(struct coll_comm *c, const struct tcp_priv *p,
		      struct tcp_setup *s, uint64_t deadline)
{
	struct pollfd pfd[2 * COLL_MAX_RANKS + 1];
	uint64_t now = mp_mono_ns(), wake = deadline;
	unsigned int q, n = 0;

	if (s->lfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	else if (awaiting_higher(c, p) && s->retry_listen_ns < wake)
		wake = s->retry_listen_ns;
	for (q = 0; q < c->rank; q++) {
		if (s->state[q] != OUT_IDLE)
			pfd[n++] = (struct pollfd){
				.fd = s->out[q],
				.events = s->state[q] == OUT_HELLO ? POLLIN : POLLOUT,
			};
		else if (s->retry_ns[q] < wake)
			wake = s->retry_ns[q];
	}
	for (q = 0; q < s->nin; q++)
		pfd[n++] = (struct pollfd){ .fd = s->in[q], .events = POLLIN };
	if (poll(pfd, n, wake > now ? (wake - now) / 1000000 + 1 : 0) < 0 &&
	    errno != EINTR)
		return -errno;
	return 0;
}

/*
 * The port is held only while a higher rank of ours may still connect:
 * the last rank never takes it, and the others let go of it as soon as
 * their higher ranks are in.  Two jobs on the same hosts in other rank
 * orders then cannot each hold a port the other waits for; a higher
 * rank connects out whether or not it has a listener of its own.
 */
static void setup_listener(struct coll_comm *c, struct tcp_priv *p,
			   struct tcp_setup *s)
{
	if (!awaiting_higher(c, p)) {
		if (s->lfd >= 0)
			close(s->lfd);
		s->lfd = -1;
		return;
	}
	if (s->lfd < 0 && s->retry_listen_ns <= mp_mono_ns()) {
		s->lfd = tcp_listen(c, &s->listen_err);
		s->retry_listen_ns = mp_mono_ns() + TCP_RETRY_NS;
	}
}

static void setup_round(struct coll_comm *c, struct tcp_priv *p,
			struct tcp_setup *s)
{
	unsigned int q, i;

	setup_listener(c, p, s);
	if (s->lfd >= 0)
		accept_all(s);
	for (i = s->nin; i-- > 0;)
		in_step(c, p, s, i);
	/* Once this round's hellos have brought the last one in. */
	setup_listener(c, p, s);
	for (q = 0; q < c->rank; q++)
		if (p->fd[q] < 0)
			out_step(c, p, s, q);
}

static void setup_free(struct tcp_setup *s)
{
	unsigned int q;

	for (q = 0; q < COLL_MAX_RANKS; q++)
		if (s->out[q] >= 0)
			close(s->out[q]);
	for (q = 0; q < s->nin; q++)
		close(s->in[q]);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s);
}

static int tcp_setup(struct coll_comm *c)
{
	uint64_t deadline = mp_mono_ns() + c->timeout_ns;
	struct tcp_setup *s;
	struct tcp_priv *p;
	unsigned int q;
	int err = 0;

	p = calloc(1, sizeof(*p));
	s = calloc(1, sizeof(*s));
	if (!p || !s) {
		free(p);
		free(s);
		return -ENOMEM;
	}
	for (q = 0; q < COLL_MAX_RANKS; q++)
		p->fd[q] = s->out[q] = -1;
	s->lfd = -1;
	c->priv = p;
	for (;;) {
		setup_round(c, p, s);
		if (!missing(c, p))
			break;
		if (mp_mono_ns() >= deadline) {
			setup_timed_out(c, p, s);
			err = -ETIMEDOUT;
			break;
		}
		err = setup_poll(c, p, s, deadline);
		if (err)
			break;
	}
	setup_free(s);
	return err;
}

/* The slot of @peer's fd in this round's poll set, added if new. */
static struct pollfd *poll_slot(struct tcp_priv *p, unsigned int peer,
				unsigned int *npfd)
{
	if (p->slot[peer] < 0) {
		p->slot[peer] = (*npfd)++;
		p->pfd[p->slot[peer]] = (struct pollfd){ .fd = p->fd[peer] };
	}
	return &p->pfd[p->slot[peer]];
}

static int xfer_error(struct coll_comm *c, unsigned int peer, bool tx,
		      int err)
{
	char buf[96];

	mp_err("%s %s: %s", tx ? "sending to" : "receiving from",
	       peer_str(c, peer, buf, sizeof(buf)),
	       err ? strerror(err) : "the peer closed the connection");
	return err == ETIMEDOUT ? -ETIMEDOUT : -ECONNRESET;
}

/*
 * Move what can move now, of every transfer whose turn it is: 1 if all
 * are done, 0 if some wait (their fds in p->pfd), or -errno (reported).
 * @moved is set when any byte went.
 */
static int tcp_progress(struct coll_comm *c, const struct coll_xfer *x,
			unsigned int nx, size_t *done, bool tx,
			unsigned int *npfd, bool *moved)
{
	struct tcp_priv *p = c->priv;
	uint32_t *busy = tx ? p->busy_tx : p->busy_rx;
	unsigned int i, all = 1;
	ssize_t n;

	for (i = 0; i < nx; i++) {
		unsigned int peer = x[i].peer;
		char *buf = x[i].buf;

		if (done[i] == x[i].len || busy[peer] == p->round)
			continue;
		for (;;) {
			n = tx ? send(p->fd[peer], buf + done[i],
				      x[i].len - done[i],
				      MSG_DONTWAIT | MSG_NOSIGNAL) :
				 recv(p->fd[peer], buf + done[i],
				      x[i].len - done[i], MSG_DONTWAIT);
			if (n <= 0)
				break;
			done[i] += n;
			*moved = true;
			if (tx)
				c->stats.tx_bytes += n;
			else
				c->stats.rx_bytes += n;
			if (done[i] == x[i].len)
				break;
		}
		if (done[i] == x[i].len)
			continue;
		if (n == 0 && !tx)
			return xfer_error(c, peer, tx, 0);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return xfer_error(c, peer, tx, errno);
		all = 0;
		busy[peer] = p->round;
		poll_slot(p, peer, npfd)->events |= tx ? POLLOUT : POLLIN;
	}
	return all;
}

/* After @timeout_ns without a byte: name a peer we wait on. */
static int tcp_stalled(struct coll_comm *c, const struct coll_xfer *sends,
		       unsigned int nsends, const struct coll_xfer *recvs,
		       unsigned int nrecvs, const size_t *done)
{
	char buf[96];
	unsigned int i;

	for (i = 0; i < nrecvs; i++)
		if (done[nsends + i] < recvs[i].len) {
			mp_err("no data from %s for %.1f s (%zu of %zu bytes came)",
			       peer_str(c, recvs[i].peer, buf, sizeof(buf)),
			       c->timeout_ns / 1e9, done[nsends + i],
			       recvs[i].len);
			return -ETIMEDOUT;
		}
	for (i = 0; i < nsends; i++)
		if (done[i] < sends[i].len) {
			mp_err("%s takes no data for %.1f s (%zu of %zu bytes went)",
			       peer_str(c, sends[i].peer, buf, sizeof(buf)),
			       c->timeout_ns / 1e9, done[i], sends[i].len);
			return -ETIMEDOUT;
		}
	return -ETIMEDOUT;
}

static int tcp_exchange(struct coll_comm *c, const struct coll_xfer *sends,
			unsigned int nsends, const struct coll_xfer *recvs,
			unsigned int nrecvs)
{
	struct tcp_priv *p = c->priv;
	uint64_t last = mp_mono_ns(), now;
	unsigned int npfd, q, nx = nsends + nrecvs;
	int tx_all, rx_all, n;
	bool moved;

	if (nx > p->ndone) {
		free(p->done);
		p->done = malloc(nx * sizeof(*p->done));
		if (!p->done) {
			p->ndone = 0;
			return -ENOMEM;
		}
		p->ndone = nx;
	}
	memset(p->done, 0, nx * sizeof(*p->done));
	for (;;) {
		p->round++;
		for (q = 0; q < c->nranks; q++)
			p->slot[q] = -1;
		npfd = 0;
		moved = false;
		tx_all = tcp_progress(c, sends, nsends, p->done, true, &npfd,
				      &moved);
		if (tx_all < 0)
			return tx_all;
		rx_all = tcp_progress(c, recvs, nrecvs, p->done + nsends, false,
				      &npfd, &moved);
		if (rx_all < 0)
			return rx_all;
		if (tx_all && rx_all)
			return 0;
		now = mp_mono_ns();
		if (moved)
			last = now;
		else if (now - last >= c->timeout_ns)
			return tcp_stalled(c, sends, nsends, recvs, nrecvs,
					   p->done);
		n = poll(p->pfd, npfd, (last + c->timeout_ns - now) / 1000000 + 1);
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* The kernel's counts of every connection, then close it. */
static void tcp_teardown(struct coll_comm *c)
{
	struct tcp_priv *p = c->priv;
	struct tcp_info ti;
	socklen_t len;
	unsigned int q;

	if (!p)
		return;
	for (q = 0; q < c->nranks; q++) {
		if (p->fd[q] < 0)
			continue;
		len = sizeof(ti);
		memset(&ti, 0, sizeof(ti));
		if (!getsockopt(p->fd[q], IPPROTO_TCP, TCP_INFO, &ti, &len)) {
			c->stats.tx_packets += ti.tcpi_segs_out;
			c->stats.rx_packets += ti.tcpi_segs_in;
			c->stats.retransmits += ti.tcpi_total_retrans;
			coll_stats_rtt(&c->stats, ti.tcpi_min_rtt * 1000ULL,
				       ti.tcpi_rtt * 1000ULL);
		}
		close(p->fd[q]);
	}
	free(p->done);
	free(p);
	c->priv = NULL;
}

const struct coll_transport coll_tcp_transport = {
	.name = "tcp",
	.setup = tcp_setup,
	.exchange = tcp_exchange,
	.teardown = tcp_teardown,
};
