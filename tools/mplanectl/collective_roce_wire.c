// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport's headers, in network order: the BTH
 * as uapi/linux/mplane.h lays it out (and hostacct parses it), the AETH
 * of ACKs and the DETH of the connection manager's UD packets.
 */
#include <string.h>
#include <linux/mplane.h>

#include "collective_roce.h"

/* The default partition, full member: what every RoCE QP uses here. */
#define ROCE_PKEY		0xffff
/* The Q_Key that IB reserves for the GSI (QP 1). */
#define ROCE_GSI_QKEY		0x80010000U

void roce_bth_put(unsigned char *b, const struct roce_bth *h)
{
	uint32_t psn = h->psn & MPLANE_BTH_PSN_MASK;

	if (h->ackreq)
		psn |= MPLANE_BTH_ACKREQ;
	b[0] = h->opcode;
	/* SE 0, MigReq 0, the pad count, transport version 0. */
	b[1] = (h->pad & 3) << 4;
	roce_put16(b + 2, ROCE_PKEY);
	roce_put32(b + 4, h->dqpn & MPLANE_BTH_QPN_MASK);
	roce_put32(b + 8, psn);
}

int roce_bth_get(const unsigned char *b, size_t len, struct roce_bth *h)
{
	uint32_t psn;

	if (len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return -1;
	psn = roce_get32(b + 8);
	h->opcode = b[0];
	h->pad = (b[1] >> 4) & 3;
	h->dqpn = roce_get32(b + 4) & MPLANE_BTH_QPN_MASK;
	h->psn = psn & MPLANE_BTH_PSN_MASK;
	h->ackreq = psn & MPLANE_BTH_ACKREQ;
	return 0;
}

/* The syndrome, then the MSN: the responder's count of messages done. */
void roce_aeth_put(unsigned char *b, uint8_t syndrome, uint32_t msn)
{
	roce_put32(b, (uint32_t)syndrome << 24 | (msn & 0x00ffffff));
}

void roce_aeth_get(const unsigned char *b, uint8_t *syndrome, uint32_t *msn)
{
	uint32_t v = roce_get32(b);

	*syndrome = v >> 24;
	*msn = v & 0x00ffffff;
}

/* The Q_Key, then a reserved byte and the source QP. */
void roce_deth_put(unsigned char *b, uint32_t src_qpn)
{
	roce_put32(b, ROCE_GSI_QKEY);
	roce_put32(b + 4, src_qpn & MPLANE_BTH_QPN_MASK);
}
