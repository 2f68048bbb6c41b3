// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/rtnetlink.h>

#include "mp_out.h"
#include "mp_rtnl.h"

/* Dumps interrupted by changes this often in a row mean a busy host. */
#define DUMP_TRIES	5

int mp_rtnl_open(struct mp_rtnl *r, unsigned int groups)
{
	int one = 1, err;

	memset(r, 0, sizeof(*r));
	r->buf = malloc(MP_RTNL_BUF);
	if (!r->buf)
		return -ENOMEM;
	r->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!r->nl) {
		err = -errno;
		goto err_free;
	}
	/* Kernels before 4.12 (ext ack) or 4.3 (cap ack) refuse these; they
	 * then answer without text or with the whole request, which
	 * mp_nlerr_parse() reads as well. */
	mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(r->nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto err_close;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = time(NULL);
	return 0;

err_close:
	mnl_socket_close(r->nl);
err_free:
	free(r->buf);
	r->nl = NULL;
	r->buf = NULL;
	return err;
}

void mp_rtnl_close(struct mp_rtnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	free(r->buf);
	r->nl = NULL;
	r->buf = NULL;
}

struct answer {
	bool done;
	bool intr;
	int kernel_err;
	int cb_err;
};

static void read_end(const struct nlmsghdr *nlh, struct answer *ans,
		     struct mp_nlerr *e)
{
	const char *msg;
	int error;

	ans->done = true;
	if (mp_nlerr_parse_offs(nlh, &error, &msg, &e->offs)) {
		ans->kernel_err = -EBADMSG;
		return;
	}
	/* Some paths answer a positive number; an error is negative. */
	ans->kernel_err = error < 0 ? error : 0;
	if (msg && error < 0)
		snprintf(e->msg, sizeof(e->msg), "%s", msg);
}

int mp_rtnl_request(struct mp_rtnl *r, struct nlmsghdr *nlh, mp_rtnl_cb cb,
		    void *data, struct mp_nlerr *e)
{
	struct answer ans = {};
	const struct nlmsghdr *m;
	int len;

	e->msg[0] = '\0';
	e->offs = -1;
	nlh->nlmsg_seq = ++r->seq;
	/* NLM_F_DUMP is two bits, one of which is NLM_F_REPLACE. */
	if ((nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while (!ans.done) {
		len = mnl_socket_recvfrom(r->nl, r->buf, MP_RTNL_BUF);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (m = (void *)r->buf; mnl_nlmsg_ok(m, len) && !ans.done;
		     m = mnl_nlmsg_next(m, &len)) {
			/* Left over from an earlier request, or an event. */
			if (m->nlmsg_seq != nlh->nlmsg_seq ||
			    m->nlmsg_pid != r->portid)
				continue;
			if (m->nlmsg_flags & NLM_F_DUMP_INTR)
				ans.intr = true;
			if (m->nlmsg_type == NLMSG_ERROR ||
			    m->nlmsg_type == NLMSG_DONE)
				read_end(m, &ans, e);
			else if (m->nlmsg_type >= NLMSG_MIN_TYPE && cb &&
				 !ans.cb_err)
				/* After a callback failed the answer is
				 * still read to its end, so that none of it
				 * is left for the next request. */
				ans.cb_err = cb(m, data);
		}
	}
	if (ans.kernel_err)
		return ans.kernel_err;
	if (ans.cb_err)
		return ans.cb_err;
	return ans.intr ? -EINTR : 0;
}

void mp_nlerr_report(const char *what, int err, const struct mp_nlerr *e)
{
	if (e && e->msg[0])
		mp_err("%s: %s (%s)", what, e->msg, strerror(-err));
	else
		mp_err("%s: %s", what, strerror(-err));
}

struct link_walk {
	mp_link_cb cb;
	void *data;
	struct mp_link *link;		/* too big for the stack of a callback */
};

static int link_msg(const struct nlmsghdr *nlh, void *data)
{
	struct link_walk *w = data;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return 0;
	if (mp_link_parse(nlh, w->link))
		return 0;	/* not one to show */
	return w->cb(w->link, nlh->nlmsg_type, w->data);
}

static struct nlmsghdr *getlink_req(char *buf, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	return nlh;
}

int mp_rtnl_dump_links(struct mp_rtnl *r, mp_link_cb cb,
		       void (*restart)(void *data), void *data,
		       struct mp_nlerr *e)
{
	struct link_walk w = { .cb = cb, .data = data };
	char req[256] = { 0 };
	int tries, err = -EINTR;

	w.link = malloc(sizeof(*w.link));
	if (!w.link)
		return -ENOMEM;
	for (tries = 0; tries < DUMP_TRIES && err == -EINTR; tries++) {
		if (tries && restart)
			restart(data);
		err = mp_rtnl_request(r, getlink_req(req, NLM_F_DUMP),
				      link_msg, &w, e);
	}
	free(w.link);
	return err;
}

static int found_link(const struct mp_link *l, int msg_type, void *data)
{
	(void)l;
	(void)msg_type;
	(void)data;
	return 0;
}

int mp_rtnl_get_link(struct mp_rtnl *r, const char *name, struct mp_link *l,
		     struct mp_nlerr *e)
{
	struct link_walk w = { .cb = found_link, .link = l };
	char req[256] = { 0 };
	struct nlmsghdr *nlh = getlink_req(req, 0);
	int err;

	if (!mnl_attr_put_strz_check(nlh, sizeof(req), IFLA_IFNAME, name))
		return -ENAMETOOLONG;
	l->ifindex = 0;
	err = mp_rtnl_request(r, nlh, link_msg, &w, e);
	if (!err && !l->ifindex)
		err = -ENODEV;
	return err;
}

int mp_rtnl_read_links(struct mp_rtnl *r, mp_link_cb cb, void *data)
{
	struct link_walk w = { .cb = cb, .data = data };
	const struct nlmsghdr *m;
	int len, err = 0;

	len = mnl_socket_recvfrom(r->nl, r->buf, MP_RTNL_BUF);
	if (len < 0)
		return -errno;
	w.link = malloc(sizeof(*w.link));
	if (!w.link)
		return -ENOMEM;
	for (m = (void *)r->buf; mnl_nlmsg_ok(m, len) && !err;
	     m = mnl_nlmsg_next(m, &len))
		err = link_msg(m, &w);
	free(w.link);
	return err;
}
