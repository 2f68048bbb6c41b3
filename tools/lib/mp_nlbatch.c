// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_nlbatch.h"
#include "mp_out.h"

int mp_nlbatch_init(struct mp_nlbatch *b, struct mp_rtnl *r)
{
	memset(b, 0, sizeof(*b));
	b->r = r;
	b->buf = malloc(MP_NLBATCH_BUF);
	return b->buf ? 0 : -ENOMEM;
}

void mp_nlbatch_free(struct mp_nlbatch *b)
{
	free(b->buf);
	b->buf = NULL;
}

/* The message being written is complete: count its bytes. */
static void close_msg(struct mp_nlbatch *b)
{
	if (!b->cur)
		return;
	b->last = b->cur;
	b->len += NLMSG_ALIGN(b->cur->nlmsg_len);
	b->cur = NULL;
}

struct nlmsghdr *mp_nlbatch_new(struct mp_nlbatch *b, uint16_t type,
				uint16_t flags, const char *fmt, ...)
{
	struct nlmsghdr *nlh;
	va_list ap;

	close_msg(b);
	if (b->n == MP_NLBATCH_MAX ||
	    b->len + MP_NLBATCH_MSG > MP_NLBATCH_BUF)
		mp_nlbatch_flush(b);
	if (!b->n)
		b->first_seq = b->r->seq + 1;
	memset(b->buf + b->len, 0, MP_NLBATCH_MSG);
	nlh = mnl_nlmsg_put_header(b->buf + b->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++b->r->seq;
	va_start(ap, fmt);
	vsnprintf(b->labels[b->n], MP_NLBATCH_LABEL, fmt, ap);
	va_end(ap);
	b->n++;
	b->cur = nlh;
	return nlh;
}

static void keep_error(struct mp_nlbatch *b, const struct nlmsghdr *m)
{
	unsigned int i = m->nlmsg_seq - b->first_seq;
	const char *msg = NULL;
	int error;

	if (mp_nlerr_parse(m, &error, &msg))
		error = -EBADMSG;
	if (error >= 0 || b->err)
		return;
	b->err = error;
	snprintf(b->err_label, sizeof(b->err_label), "%s",
		 i < b->n ? b->labels[i] : "request");
	snprintf(b->e.msg, sizeof(b->e.msg), "%s", msg ? msg : "");
}

/* Answers until the ack of @last_seq: errors of the batch, kept. */
static int read_answers(struct mp_nlbatch *b, unsigned int last_seq)
{
	struct mp_rtnl *r = b->r;
	const struct nlmsghdr *m;
	int len;

	for (;;) {
		len = mnl_socket_recvfrom(r->nl, r->buf, MP_RTNL_BUF);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (m = (void *)r->buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_pid != r->portid ||
			    m->nlmsg_type != NLMSG_ERROR ||
			    m->nlmsg_seq < b->first_seq ||
			    m->nlmsg_seq > last_seq)
				continue;
			keep_error(b, m);
			if (m->nlmsg_seq == last_seq)
				return 0;
		}
	}
}

int mp_nlbatch_flush(struct mp_nlbatch *b)
{
	int err;

	close_msg(b);
	if (!b->n)
		return b->err;
	b->last->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(b->r->nl, b->buf, b->len) < 0)
		err = -errno;
	else
		err = read_answers(b, b->last->nlmsg_seq);
	if (err && !b->err) {
		b->err = err;
		snprintf(b->err_label, sizeof(b->err_label), "%s",
			 b->labels[0]);
	}
	b->n = 0;
	b->len = 0;
	b->last = NULL;
	return b->err;
}

void mp_nlbatch_report(const struct mp_nlbatch *b, const char *who)
{
	char what[256];

	snprintf(what, sizeof(what), "%s: %s", who, b->err_label);
	mp_nlerr_report(what, b->err, &b->e);
}
