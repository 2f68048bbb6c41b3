/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packets of 'mplanectl traffic': what send puts in the UDP payload and
 * recv reads back, and what the two commands share.
 *
 * The payload starts with this header, in network byte order, and is
 * padded with zeros up to --size:
 *
 *	offset	size	field
 *	0	4	magic, "MPTR"
 *	4	1	version, 1
 *	5	1	reserved, 0
 *	6	2	flow: which of the sender's --flows, from 0
 *	8	8	seq: the flow's sequence number, from 0
 *	16	8	send time, ns of the sender's CLOCK_MONOTONIC
 *
 * The offsets are fixed, so filters can match on them: the low 32 bits
 * of seq are at offset 12 of the payload (40 of an IPv4 packet without
 * options, 60 of an IPv6 one without extension headers).
 */
#ifndef MPLANECTL_TRAFFIC_H
#define MPLANECTL_TRAFFIC_H

#include <endian.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define TRAFFIC_MAGIC		0x4d505452	/* "MPTR" */
#define TRAFFIC_VERSION		1
#define TRAFFIC_HDR_LEN		24
#define TRAFFIC_PORT		9000
/* Flows of one sender, each its own socket and so its own source port. */
#define TRAFFIC_MAX_FLOWS	256

#define NSEC_PER_SEC		1000000000ULL

struct traffic_pkt {
	uint16_t flow;
	uint64_t seq;
	uint64_t send_ns;
};

/* Byte by byte: payloads need not be aligned, nor hosts big-endian. */
static inline void traffic_hdr_put(void *buf, const struct traffic_pkt *p)
{
	uint32_t magic = htobe32(TRAFFIC_MAGIC);
	uint16_t flow = htobe16(p->flow);
	uint64_t seq = htobe64(p->seq), ns = htobe64(p->send_ns);
	unsigned char *b = buf;

	memcpy(b, &magic, 4);
	b[4] = TRAFFIC_VERSION;
	b[5] = 0;
	memcpy(b + 6, &flow, 2);
	memcpy(b + 8, &seq, 8);
	memcpy(b + 16, &ns, 8);
}

/* False for what is not a packet of ours (a stray datagram on the port). */
static inline bool traffic_hdr_get(const void *buf, size_t len,
				   struct traffic_pkt *p)
{
	const unsigned char *b = buf;
	uint32_t magic;
	uint16_t flow;
	uint64_t seq, ns;

	if (len < TRAFFIC_HDR_LEN)
		return false;
	memcpy(&magic, b, 4);
	if (be32toh(magic) != TRAFFIC_MAGIC || b[4] != TRAFFIC_VERSION)
		return false;
	memcpy(&flow, b + 6, 2);
	memcpy(&seq, b + 8, 8);
	memcpy(&ns, b + 16, 8);
	p->flow = be16toh(flow);
	p->seq = be64toh(seq);
	p->send_ns = be64toh(ns);
	return true;
}

/*
 * RoCEv2-shaped packets (send --roce/--cnp): UDP to 4791 whose payload is
 * an InfiniBand BTH (uapi/linux/mplane.h), then the header above when it
 * fits, then zeros, ending in a 4-byte ICRC placeholder (zero: nothing
 * here checks it).  recv finds the header after the BTH too.
 */
#define TRAFFIC_BTH_LEN		12
#define TRAFFIC_ICRC_LEN	4

struct traffic_roce {
	uint32_t qpn;
	uint8_t opcode;
	uint64_t ackreq_every;	/* 0: never */
};

/* Write the payload of packet @p, @size bytes, RoCEv2-shaped. */
void traffic_roce_put(void *buf, size_t size, const struct traffic_roce *r,
		      const struct traffic_pkt *p);

/* The header at the start of a payload, or after a BTH. */
static inline bool traffic_hdr_find(const void *buf, size_t len,
				    struct traffic_pkt *p)
{
	return traffic_hdr_get(buf, len, p) ||
	       (len > TRAFFIC_BTH_LEN &&
		traffic_hdr_get((const char *)buf + TRAFFIC_BTH_LEN,
				len - TRAFFIC_BTH_LEN, p));
}

static inline uint64_t traffic_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Set by SIGINT and SIGTERM, which traffic_main() catches for every
 * command of the group: they stop and print what they have so far.
 */
extern volatile sig_atomic_t traffic_stop;

#endif /* MPLANECTL_TRAFFIC_H */
