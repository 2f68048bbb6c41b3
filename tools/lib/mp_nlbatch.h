/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Pipelined rtnetlink requests: many messages go to the kernel in one
 * sendto(), which handles them in order, and only failures are answered
 * (plus one ack for the last message, to know the batch is done).  Used
 * to configure thousands of addresses, routes and qdiscs quickly; the
 * first failure is kept with a label that says which request it was.
 */
#ifndef MP_NLBATCH_H
#define MP_NLBATCH_H

#include <stdarg.h>
#include <stdint.h>

#include "mp_rtnl.h"

/* Bytes sent at most at once; any one message must fit in MP_NLBATCH_MSG. */
#define MP_NLBATCH_BUF	65536
#define MP_NLBATCH_MSG	8192
/* Messages per send: their error answers must fit the receive buffer. */
#define MP_NLBATCH_MAX	64
#define MP_NLBATCH_LABEL	64

struct mp_nlbatch {
	struct mp_rtnl *r;		/* the socket, and its namespace */
	char *buf;
	size_t len;			/* bytes of the complete messages */
	struct nlmsghdr *cur;		/* the one being written, or NULL */
	struct nlmsghdr *last;		/* the last complete one */
	unsigned int n;
	unsigned int first_seq;
	char labels[MP_NLBATCH_MAX][MP_NLBATCH_LABEL];
	/* The first failure: errno, label and the kernel's extack text. */
	int err;
	char err_label[MP_NLBATCH_LABEL];
	struct mp_nlerr e;
};

int mp_nlbatch_init(struct mp_nlbatch *b, struct mp_rtnl *r);
void mp_nlbatch_free(struct mp_nlbatch *b);

/*
 * A new request of @type with NLM_F_REQUEST | @flags, labelled with the
 * printf-style @fmt for error messages, with room for MP_NLBATCH_MSG
 * bytes; it is sent by a later mp_nlbatch_new() or mp_nlbatch_flush().
 */
struct nlmsghdr *mp_nlbatch_new(struct mp_nlbatch *b, uint16_t type,
				uint16_t flags, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Send what is queued and read its answers: 0, or the first failure
 * (negative errno, see b->err_label and b->e), which stays. */
int mp_nlbatch_flush(struct mp_nlbatch *b);

/* "LABEL: <extack text> (<strerror>)" through mp_err(). */
void mp_nlbatch_report(const struct mp_nlbatch *b, const char *who);

#endif /* MP_NLBATCH_H */
