// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport's connection manager, a small cousin of IB's CM on
 * QP 1: each pair of ranks trades first PSNs before data flows (REQ,
 * REP), and at the end each rank stays until every peer has said that
 * its exchanges are over (DREQ, DREP), so that the ACKs a peer still
 * waits for are never lost with a closed socket.
 */
#include <errno.h>
#include <string.h>

#include "collective_roce.h"

#define ROCE_CM_MAGIC		0x4d50434d	/* "MPCM" */
#define ROCE_CM_VERSION		1

void roce_cm_put(unsigned char *b, const struct roce_cm *m)
{
	roce_put32(b, ROCE_CM_MAGIC);
	b[4] = ROCE_CM_VERSION;
	b[5] = m->type;
	roce_put16(b + 6, m->rank);
	roce_put16(b + 8, m->nranks);
	roce_put16(b + 10, 0);
	roce_put32(b + 12, m->isn);
	roce_put64(b + 16, m->job);
}

int roce_cm_get(const unsigned char *b, size_t len, struct roce_cm *m)
{
	if (len < ROCE_CM_LEN || roce_get32(b) != ROCE_CM_MAGIC ||
	    b[4] != ROCE_CM_VERSION)
		return -1;
	m->type = b[5];
	m->rank = roce_get16(b + 6);
	m->nranks = roce_get16(b + 8);
	m->isn = roce_get32(b + 12) & ROCE_PSN_MASK;
	m->job = roce_get64(b + 16);
	return m->type >= ROCE_CM_REQ && m->type <= ROCE_CM_DREP ? 0 : -1;
}

/*
 * Whether an ICMP port unreachable for the datagram @b (its UDP payload,
 * @len bytes of it) is old news: a REQ goes out only until its peer
 * answers, so a REQ's error says that the peer had not bound yet, not
 * that it went away, and it may come back after the peer's REP, the two
 * on different planes.
 */
bool roce_cm_error_stale(const unsigned char *b, size_t len)
{
	struct roce_cm m;

	if (len < ROCE_BTH_LEN + ROCE_DETH_LEN)
		return false;
	return !roce_cm_get(b + ROCE_BTH_LEN + ROCE_DETH_LEN,
			    len - ROCE_BTH_LEN - ROCE_DETH_LEN, &m) &&
	       m.type == ROCE_CM_REQ;
}

/* Its first REQ or REP: from now on its data is ours to take. */
static int cm_hear(struct roce_peer *p, const struct roce_cm *m)
{
	if (p->heard)
		return p->peer_isn == m->isn ? 0 : -ECONNRESET;
	p->heard = true;
	p->peer_isn = m->isn;
	roce_rq_init(&p->rq, m->isn);
	return 0;
}

int roce_cm_rx(struct roce_peer *p, const struct roce_cm *m, uint8_t *reply)
{
	int err = 0;

	*reply = 0;
	/* Whatever it sends, its socket is open. */
	p->gone = false;
	switch (m->type) {
	case ROCE_CM_REQ:
		err = cm_hear(p, m);
		*reply = ROCE_CM_REP;
		break;
	case ROCE_CM_REP:
		err = cm_hear(p, m);
		p->confirmed = true;
		break;
	case ROCE_CM_DREQ:
		if (!p->heard)
			return 0;
		p->done = true;
		*reply = ROCE_CM_DREP;
		break;
	case ROCE_CM_DREP:
		p->released = true;
		break;
	}
	if (err)
		*reply = 0;
	return err;
}

void roce_cm_arm(struct roce_peer *p, uint64_t now)
{
	p->cm_rto_ns = ROCE_CM_RTO_INIT;
	p->cm_deadline_ns = now;
}

uint8_t roce_cm_due(struct roce_peer *p, bool teardown, uint64_t now)
{
	bool owed = teardown ? !p->released && !p->gone : !p->confirmed;

	if (!owed || now < p->cm_deadline_ns)
		return 0;
	p->cm_deadline_ns = now + p->cm_rto_ns;
	p->cm_rto_ns = 2 * p->cm_rto_ns > ROCE_CM_RTO_MAX ? ROCE_CM_RTO_MAX
							  : 2 * p->cm_rto_ns;
	return teardown ? ROCE_CM_DREQ : ROCE_CM_REQ;
}
