// SPDX-License-Identifier: GPL-2.0
/*
 * Loss through netem, where the kernel has it: a netem qdisc of our own
 * handle takes the place of the port's tbf child, so that the port sends
 * at its rate as before and netem drops its share of what tbf would
 * queue.  Wherever 'fabric up' put the tbf (the root, or under a netem
 * of its own that delays the link), it is found by its kind, and only
 * the child is ours: the rate, the queue's limit in bytes (as netem's
 * limit in full-size frames) and fabric up's own delay stay as they
 * were.  'clear' puts the qdiscs back as fabric up made them.
 *
 * Read here too: the tbf's rate and our netem's share and counts, for
 * 'fault show'.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "mp_out.h"
#include "mp_fault_loss.h"
#include "fabric_fault.h"

#define FRAME_MAX	1514
#define NETEM_HANDLE	TC_H_MAKE((uint32_t)MP_FAULT_TC_HANDLE << 16, 0)
#define LOOPBACK	1

struct qdisc_walk {
	int ifindex;
	bool tbf, netem;
	uint32_t tbf_handle, tbf_limit;
	uint64_t tbf_rate;		/* bytes per second */
	uint32_t loss;			/* netem's, of 2^32 */
	uint64_t packets, drops;	/* netem's */
};

static void tbf_opts(const struct nlattr *opts, struct qdisc_walk *w)
{
	const struct tc_tbf_qopt *q;
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, opts) {
		if (mnl_attr_get_type(a) == TCA_TBF_PARMS &&
		    mnl_attr_get_payload_len(a) >= sizeof(*q)) {
			q = mnl_attr_get_payload(a);
			w->tbf_limit = q->limit;
			w->tbf_rate = q->rate.rate;
		} else if (mnl_attr_get_type(a) == TCA_TBF_RATE64 &&
			   mnl_attr_get_payload_len(a) >= sizeof(uint64_t)) {
			w->tbf_rate = mnl_attr_get_u64(a);
		}
	}
}

static void netem_stats(const struct nlattr *stats, struct qdisc_walk *w)
{
	struct gnet_stats_basic b = {};
	struct gnet_stats_queue q = {};
	const struct nlattr *a;
	size_t len;

	mnl_attr_for_each_nested(a, stats) {
		len = mnl_attr_get_payload_len(a);
		if (mnl_attr_get_type(a) == TCA_STATS_BASIC) {
			memcpy(&b, mnl_attr_get_payload(a),
			       len < sizeof(b) ? len : sizeof(b));
			w->packets = b.packets;
		} else if (mnl_attr_get_type(a) == TCA_STATS_QUEUE) {
			memcpy(&q, mnl_attr_get_payload(a),
			       len < sizeof(q) ? len : sizeof(q));
			w->drops = q.drops;
		}
	}
}

static int qdisc_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *opts = NULL, *stats = NULL;
	struct qdisc_walk *w = data;
	const char *kind = "";

	if (nlh->nlmsg_type != RTM_NEWQDISC || tcm->tcm_ifindex != w->ifindex)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) == TCA_KIND)
			kind = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == TCA_OPTIONS)
			opts = a;
		else if (mnl_attr_get_type(a) == TCA_STATS2)
			stats = a;
	}
	if (!strcmp(kind, "tbf")) {
		w->tbf = true;
		w->tbf_handle = tcm->tcm_handle;
		if (opts)
			tbf_opts(opts, w);
	} else if (!strcmp(kind, "netem") && tcm->tcm_handle == NETEM_HANDLE) {
		const struct tc_netem_qopt *q = opts ?
						mnl_attr_get_payload(opts) : NULL;

		w->netem = true;
		if (q && mnl_attr_get_payload_len(opts) >= sizeof(*q))
			w->loss = q->loss;
		if (stats)
			netem_stats(stats, w);
	}
	return 0;
}

static int read_qdiscs(struct mp_rtnl *r, int ifindex, struct qdisc_walk *w)
{
	char buf[256] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct mp_nlerr e;
	struct tcmsg *tcm;

	memset(w, 0, sizeof(*w));
	w->ifindex = ifindex;
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	return mp_rtnl_request(r, nlh, qdisc_msg, w, &e);
}

/* A netem qdisc of ours at @parent, or its removal. */
static int netem_req(struct mp_rtnl *r, int ifindex, uint32_t parent,
		     uint16_t type, uint16_t flags,
		     const struct tc_netem_qopt *qopt, struct mp_nlerr *e)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = NETEM_HANDLE;
	if (qopt) {
		mnl_attr_put_strz(nlh, TCA_KIND, "netem");
		/* netem's options are its qopt itself, not a nest. */
		mnl_attr_put(nlh, TCA_OPTIONS, sizeof(*qopt), qopt);
	}
	return mp_rtnl_request(r, nlh, NULL, NULL, e);
}

/*
 * Whether netem can be had, tried on the namespace's loopback (whose
 * default qdisc nothing else in a fabric node relies on) and taken away
 * at once.  0, or -ENOENT when the kernel knows no netem (and cannot
 * load it).
 */
int fault_netem_probe(struct mp_rtnl *r)
{
	struct tc_netem_qopt q = { .limit = 1 };
	struct mp_nlerr e;
	int err;

	err = netem_req(r, LOOPBACK, TC_H_ROOT, RTM_NEWQDISC,
			NLM_F_CREATE | NLM_F_EXCL, &q, &e);
	if (!err)
		netem_req(r, LOOPBACK, TC_H_ROOT, RTM_DELQDISC, 0, NULL, &e);
	return err;
}

/* netem's probability is of 2^32, ours of a million. */
static uint32_t ppm_to_prob(uint32_t ppm)
{
	return ppm >= MP_FAULT_PPM_ONE ? UINT32_MAX :
	       (uint32_t)((uint64_t)ppm * UINT32_MAX / MP_FAULT_PPM_ONE);
}

static uint32_t prob_to_ppm(uint32_t loss)
{
	return (uint32_t)(((uint64_t)loss * MP_FAULT_PPM_ONE + UINT32_MAX / 2) /
			  UINT32_MAX);
}

int fault_loss_netem_set(struct mp_rtnl *r, const struct mp_fabric_port *p,
			 uint32_t ppm)
{
	struct tc_netem_qopt q = {};
	struct qdisc_walk w;
	struct mp_nlerr e;
	int err;

	err = read_qdiscs(r, p->ifindex, &w);
	if (err)
		return err;
	if (!w.tbf) {
		mp_err("%s: no tbf to put netem under (was the fabric made by 'fabric up'?)",
		       p->ifname);
		return -ENOENT;
	}
	if (!ppm && !w.netem)
		return 0;
	/* The queue tbf's own child had, in full-size frames. */
	q.limit = (w.tbf_limit + FRAME_MAX - 1) / FRAME_MAX;
	if (q.limit < 8)
		q.limit = 8;
	q.loss = ppm_to_prob(ppm);
	err = netem_req(r, p->ifindex, TC_H_MAKE(w.tbf_handle, 1), RTM_NEWQDISC,
			NLM_F_CREATE | NLM_F_REPLACE, &q, &e);
	if (err)
		mp_nlerr_report(p->ifname, err, &e);
	return err;
}

int fault_loss_netem_read(struct mp_rtnl *r, const struct mp_fabric_port *p,
			  struct fault_loss_counts *lc, uint64_t *rate_bps)
{
	struct qdisc_walk w;
	int err;

	memset(lc, 0, sizeof(*lc));
	*rate_bps = 0;
	err = read_qdiscs(r, p->ifindex, &w);
	if (err)
		return err;
	*rate_bps = w.tbf_rate * 8;
	if (!w.netem)
		return 0;
	lc->on = true;
	lc->ppm = prob_to_ppm(w.loss);
	lc->passed = w.packets;
	lc->dropped = w.drops;
	return 0;
}
