// SPDX-License-Identifier: GPL-2.0
/* RoCEv2-shaped payloads for 'mplanectl traffic send --roce/--cnp'. */
#include <string.h>
#include <linux/mplane.h>

#include "traffic.h"

/* The BTH, from the InfiniBand layout; the PSN is the flow's sequence. */
static void bth_put(unsigned char *b, const struct traffic_roce *r,
		    uint64_t seq)
{
	uint32_t qpn = htobe32(r->qpn & MPLANE_BTH_QPN_MASK);
	uint32_t psn = seq & MPLANE_BTH_PSN_MASK;
	uint16_t pkey = htobe16(0xffff);	/* the default partition */

	/* Every Nth packet of a flow asks for an ACK, from the Nth on. */
	if (r->ackreq_every && (seq + 1) % r->ackreq_every == 0)
		psn |= MPLANE_BTH_ACKREQ;
	psn = htobe32(psn);
	b[0] = r->opcode;
	b[1] = 0;			/* SE, M, pad count, TVer */
	memcpy(b + 2, &pkey, 2);
	memcpy(b + 4, &qpn, 4);
	memcpy(b + 8, &psn, 4);
}

void traffic_roce_put(void *buf, size_t size, const struct traffic_roce *r,
		      const struct traffic_pkt *p)
{
	unsigned char *b = buf;

	bth_put(b, r, p->seq);
	/* A CNP's 16 reserved bytes have no room for the header: it stays
	 * out, and the rest (ICRC included) is the buffer's zeros. */
	if (size >= TRAFFIC_BTH_LEN + TRAFFIC_HDR_LEN + TRAFFIC_ICRC_LEN)
		traffic_hdr_put(b + TRAFFIC_BTH_LEN, p);
}
