/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The roce transport's state, between the loop and the transport's ops
 * (collective_roce.c) and its batched socket I/O (collective_roce_io.c).
 * Needs _GNU_SOURCE, for struct mmsghdr.
 */
#ifndef MPLANECTL_COLLECTIVE_ROCE_IO_H
#define MPLANECTL_COLLECTIVE_ROCE_IO_H

#include <stdint.h>
#include <sys/socket.h>

#include "collective.h"
#include "collective_roce.h"

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

/* Report the first failure (naming @peer, or us when it is our rank)
 * and keep it in r->err; later ones follow from it. */
void roce_fail(struct roce *r, int err, unsigned int peer, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
struct roce_buf *roce_buf_get(struct roce *r);
/* Send what is owed and what the windows allow: packets sent. */
uint64_t roce_tx_pass(struct roce *r, bool all_acks, uint64_t now);
/* Take and handle what the socket holds, a batch at most: datagrams. */
int roce_rx_batch(struct roce *r);
/* The socket's ICMP errors: a peer whose port is unreachable is gone. */
void roce_rx_errqueue(struct roce *r);

#endif /* MPLANECTL_COLLECTIVE_ROCE_IO_H */
