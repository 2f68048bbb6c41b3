/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the 'mplanectl collective' files share.  A job is one rank per
 * host of a fabric, each a child process in its host's namespace; ranks
 * move data with a transport (TCP sockets, or RoCEv2 framing over UDP),
 * and every operation is built from one primitive, coll_exchange(): a
 * set of sends and receives with peers that completes as a whole.
 */
#ifndef MPLANECTL_COLLECTIVE_H
#define MPLANECTL_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define COLL_MAX_RANKS		256
/* The UDP port of RoCEv2 (IANA), and the TCP port of the tcp transport. */
#define COLL_ROCE_PORT		4791
#define COLL_TCP_PORT		18515

/* One send to, or one receive from, a peer rank. */
struct coll_xfer {
	unsigned int peer;
	void *buf;		/* a send's data, or where a receive lands */
	size_t len;		/* a receive wants exactly this many bytes */
};

/* What a transport counted, for the job's report. */
struct coll_transport_stats {
	uint64_t tx_packets, rx_packets;	/* segments or datagrams */
	uint64_t tx_bytes, rx_bytes;		/* payload */
	uint64_t retransmits;			/* packets sent again */
	uint64_t timeouts;			/* retransmission timer fired */
	uint64_t naks;				/* sequence errors told */
	uint64_t held;				/* came past a gap, kept */
	uint64_t dropped;			/* duplicate, refused, bad */
	/*
	 * Round trips, over the connections (QPs) that measured one: the
	 * least sample (the path and the hosts at their quickest), and the
	 * smoothed RTT each had at the end, its least, sum and most.  What
	 * the hosts take to answer under the job's load is the difference.
	 */
	uint64_t rtt_min_ns;			/* 0: none measured */
	uint64_t srtt_min_ns, srtt_sum_ns, srtt_max_ns;
	uint64_t rtt_conns;			/* connections in the sum */
};

/* Fold one connection's RTT figures (ns; 0: none) into @st. */
void coll_stats_rtt(struct coll_transport_stats *st, uint64_t rtt_min_ns,
		    uint64_t srtt_ns);
/* Fold @from's RTT figures into @st, as a rank's into the job's. */
void coll_stats_rtt_merge(struct coll_transport_stats *st,
			  const struct coll_transport_stats *from);

struct coll_comm;

struct coll_transport {
	const char *name;
	/*
	 * Connect to every other rank: 0, or a negative errno (reported
	 * with mp_err(), naming the peer).  Every rank calls it at once;
	 * it returns when all of this rank's connections are up, or after
	 * comm->timeout_ns.
	 */
	int (*setup)(struct coll_comm *c);
	/*
	 * Send every @sends and receive every @recvs, progressing all of
	 * them together (a ring step sends to one neighbour while it
	 * receives from the other); returns when all are done.  Messages
	 * between two ranks arrive in the order they were sent, whole and
	 * unchanged, or the call fails.  0, or a negative errno: -ETIMEDOUT
	 * when nothing moved for comm->timeout_ns, -ECONNRESET when a peer
	 * went away (reported, naming the peer).
	 */
	int (*exchange)(struct coll_comm *c, const struct coll_xfer *sends,
			unsigned int nsends, const struct coll_xfer *recvs,
			unsigned int nrecvs);
	/* Close every connection; what only the end can tell (the
	 * kernel's segment and retransmit counts) goes into c->stats
	 * first. */
	void (*teardown)(struct coll_comm *c);
};

extern const struct coll_transport coll_tcp_transport;
extern const struct coll_transport coll_roce_transport;

/* --sndbuf: the kernel's own floor, and its SO_SNDBUFFORCE ceiling
 * (sk_sndbuf is an int, twice what is asked); what a fabric with DCQCN
 * gets where --sndbuf does not say (collective_run.c). */
#define COLL_SNDBUF_MIN		4096ULL
#define COLL_SNDBUF_MAX		(1ULL << 30)
#define COLL_SNDBUF_AUTO_MIN	16384ULL
#define COLL_SNDBUF_AUTO_MS	20

/* A rank's view of its job. */
struct coll_comm {
	unsigned int rank, nranks;
	/* Each rank's address.  The port is the transport's to set: 0 for
	 * its default, or what --port asked for. */
	struct sockaddr_storage addr[COLL_MAX_RANKS];
	socklen_t addrlen;
	/* The job's id, the same in every rank and unlike any other job's:
	 * a transport tells its own job's peers from a stray one. */
	uint64_t job;
	uint64_t timeout_ns;		/* no progress for this long: fail */
	/* Bytes the rank's socket may have below it, in the rails' qdiscs;
	 * 0: the transport's own default (roce only). */
	uint64_t sndbuf;
	/* Packets a roce QP may have in flight; 0: the transport's most. */
	unsigned int window;
	const struct coll_transport *t;
	void *priv;			/* the transport's state */
	struct coll_transport_stats stats;
};

static inline int coll_exchange(struct coll_comm *c,
				const struct coll_xfer *sends,
				unsigned int nsends,
				const struct coll_xfer *recvs,
				unsigned int nrecvs)
{
	return c->t->exchange(c, sends, nsends, recvs, nrecvs);
}

#endif /* MPLANECTL_COLLECTIVE_H */
