// SPDX-License-Identifier: GPL-2.0
/*
 * Shaping of fabric links: a root tbf on every veth end, so that each
 * link is limited in both directions (a qdisc only sees what its device
 * sends).
 *
 * Burst: 1 ms at the rate, and never below two full-size frames, which
 * tbf needs to pass a frame at all (a frame larger than the burst is
 * dropped) and which keeps low rates from sending one frame per timer
 * tick.  100mbit: 12500 bytes.
 * Limit (the queue, in bytes): the port's buffer, 20 ms at the rate by
 * default (fabric up --buffer), on top of the burst, at least 8
 * full-size frames: enough for TCP and ECMP tests to see queueing before
 * loss, short enough that a saturated link does not add seconds of
 * delay.  100mbit: 262500 bytes.
 *
 * A delay or a loss puts netem at the root and the same tbf under it
 * (netem's class 1:1).  netem holds each packet for the delay (the
 * wire), dropping the lost ones as they come, and hands it on to tbf,
 * whose queue and limit then behave as without netem: the link's rate
 * and its queue are tbf's, its latency is the delay plus that queue.
 * The other way round (netem under tbf) would make netem's packet limit
 * the link's queue, and tbf's byte limit would be lost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "mp_nlbatch.h"
#include "mp_out.h"
#include "fabric.h"

#define FRAME_MAX	1514		/* Ethernet header and 1500 bytes */
#define FRAME_MIN	64
#define BURST_US	1000
/* netem's own default limit, in packets, on top of what the delay holds. */
#define NETEM_LIMIT	1000
#define ROOT_HANDLE	TC_H_MAKE(1U << 16, 0)	/* 1: */
#define TBF_UNDER_NETEM	TC_H_MAKE(0x10U << 16, 0)	/* 10: */

static uint64_t bytes_in(uint64_t rate_bps, uint64_t us)
{
	return rate_bps / 8 * us / 1000000;
}

uint32_t fabric_tbf_burst(uint64_t rate_bps)
{
	uint64_t burst = bytes_in(rate_bps, BURST_US);

	if (burst < 2 * FRAME_MAX)
		burst = 2 * FRAME_MAX;
	return burst > UINT32_MAX ? UINT32_MAX : burst;
}

uint32_t fabric_tbf_limit(uint64_t rate_bps, unsigned int buffer_us)
{
	uint64_t limit = fabric_tbf_burst(rate_bps) +
			 bytes_in(rate_bps, buffer_us ? buffer_us :
					    MP_FABRIC_DEF_BUFFER_US);

	if (limit < 8 * FRAME_MAX)
		limit = 8 * FRAME_MAX;
	return limit > UINT32_MAX ? UINT32_MAX : limit;
}

/*
 * netem's limit is in packets, of the delay line only: as many of the
 * smallest frames as the link carries during the delay, plus netem's own
 * default of 1000, so that the line never drops what the link could
 * have carried.
 */
static uint32_t netem_limit(const struct mp_fabric_port *p)
{
	uint64_t limit = NETEM_LIMIT + bytes_in(p->rate_bps, p->delay_us) /
				       FRAME_MIN;

	return limit > UINT32_MAX ? UINT32_MAX : limit;
}

/* A request of @type about a qdisc of @p, of @kind unless NULL. */
static struct nlmsghdr *qdisc_msg(struct mp_nlbatch *nb, uint16_t type,
				  const struct mp_fabric_port *p,
				  const char *kind, const char *label,
				  uint32_t parent, uint32_t handle)
{
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;

	nlh = mp_nlbatch_new(nb, type, type == RTM_NEWQDISC ?
			     NLM_F_CREATE | NLM_F_REPLACE : 0,
			     "%s: %s", p->ifname, label);
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = p->ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	if (kind)
		mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return nlh;
}

/*
 * netem's TCA_OPTIONS is its tc_netem_qopt followed by attributes, not
 * a nest: the delay goes in TCA_NETEM_LATENCY64 (ns, no psched ticks),
 * the loss in qopt.loss as a probability of 2^32.
 */
static void netem(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	struct tc_netem_qopt qopt = {};
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	void *room;

	nlh = qdisc_msg(nb, RTM_NEWQDISC, p, "netem", FABRIC_NETEM_LABEL,
			TC_H_ROOT, ROOT_HANDLE);
	qopt.limit = netem_limit(p);
	qopt.loss = p->loss_pct >= 100 ? UINT32_MAX :
		    (uint32_t)(p->loss_pct / 100 * UINT32_MAX + 0.5);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	opts->nla_type = TCA_OPTIONS;
	room = mnl_nlmsg_put_extra_header(nlh, MNL_ALIGN(sizeof(qopt)));
	memcpy(room, &qopt, sizeof(qopt));
	mnl_attr_put_u64(nlh, TCA_NETEM_LATENCY64, (uint64_t)p->delay_us * 1000);
	mnl_attr_nest_end(nlh, opts);
}

/*
 * TCA_TBF_BURST gives the burst in bytes: the kernel turns it into the
 * time of the bucket (tc_tbf_qopt.buffer, in psched ticks) itself, so
 * nothing here depends on /proc/net/psched.  Rates of 2^32 bytes/s and
 * more only fit TCA_TBF_RATE64.
 */
void fabric_tbf(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	bool netem_too = p->delay_us || p->loss_pct > 0;
	uint64_t bytes_ps = p->rate_bps / 8;
	struct tc_tbf_qopt qopt = {};
	struct nlmsghdr *nlh;
	struct nlattr *opts;

	if (netem_too)
		netem(nb, p);
	nlh = qdisc_msg(nb, RTM_NEWQDISC, p, "tbf", "tbf qdisc",
			netem_too ? TC_H_MAKE(ROOT_HANDLE, 1) : TC_H_ROOT,
			netem_too ? TBF_UNDER_NETEM : ROOT_HANDLE);
	/* Ethernet link layer: the kernel then wants no rate table. */
	qopt.rate.linklayer = TC_LINKLAYER_ETHERNET;
	qopt.rate.rate = bytes_ps > UINT32_MAX ? UINT32_MAX : bytes_ps;
	qopt.limit = fabric_tbf_limit(p->rate_bps, p->buffer_us);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof(qopt), &qopt);
	if (bytes_ps > UINT32_MAX)
		mnl_attr_put_u64(nlh, TCA_TBF_RATE64, bytes_ps);
	mnl_attr_put_u32(nlh, TCA_TBF_BURST, fabric_tbf_burst(p->rate_bps));
	mnl_attr_nest_end(nlh, opts);
}

/*
 * A kernel without netem (not built, or no module to load) answers its
 * qdisc with ENOENT ("Specified qdisc kind is unknown"), or EOPNOTSUPP
 * from an older path: say what is missing instead.
 */
void fabric_qdisc_report(const struct mp_nlbatch *nb, const char *who)
{
	if ((nb->err == -ENOENT || nb->err == -EOPNOTSUPP) &&
	    strstr(nb->err_label, FABRIC_NETEM_LABEL))
		mp_err("netem: this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM, module sch_netem), which --delay and --loss need");
	else if ((nb->err == -ENOENT || nb->err == -EOPNOTSUPP) &&
		 strstr(nb->err_label, FABRIC_FQ_LABEL))
		mp_err("fq: this kernel has no fq qdisc (CONFIG_NET_SCH_FQ, module sch_fq), which --cc dcqcn needs to pace mp0's QPs");
	else
		mp_nlbatch_report(nb, who);
}

/*
 * fq under the tbf (its one class, TBF:1): fq holds each packet of a QP
 * that mp0 paces until its skb->tstamp, and tbf still shapes the link
 * behind it.  At the root, fq would replace the tbf and the link's rate.
 * fq's flow_limit (100 packets a flow by default) is raised: a paced QP
 * is one flow with many packets waiting for their time by design, and
 * fq would drop the 101st as if the flow were misbehaving; the queue is
 * still bounded by fq's limit and by tbf's.  Its handle 20: sits beside
 * the tbf's 1: or 10:.
 */
#define FQ_HANDLE	TC_H_MAKE(0x20U << 16, 0)	/* 20: */

static void fq_qdisc(struct mp_nlbatch *nb, const struct mp_fabric_port *p,
		     uint32_t parent)
{
	struct nlmsghdr *nlh;
	struct nlattr *opts;

	nlh = qdisc_msg(nb, RTM_NEWQDISC, p, "fq", FABRIC_FQ_LABEL, parent,
			FQ_HANDLE);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FQ_FLOW_PLIMIT, FABRIC_FQ_FLOW_LIMIT);
	mnl_attr_nest_end(nlh, opts);
}

void fabric_fq(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	bool netem_too = p->delay_us || p->loss_pct > 0;

	fq_qdisc(nb, p, TC_H_MAKE(netem_too ? TBF_UNDER_NETEM : ROOT_HANDLE,
				  1U));
}

/*
 * Try the qdisc that @add puts on lo, and take it off again: whether this
 * kernel has it, before a fabric that needs it is built.
 */
static int fabric_qdisc_check(struct mp_rtnl *r, const char *who,
			      void (*add)(struct mp_nlbatch *nb,
					  const struct mp_fabric_port *lo))
{
	const struct mp_fabric_port lo = {
		.ifname = "lo",
		.ifindex = FABRIC_LO_IFINDEX,
		.rate_bps = FABRIC_MIN_RATE,
	};
	struct mp_nlbatch nb;
	int err;

	err = mp_nlbatch_init(&nb, r);
	if (err) {
		mp_err("%s: %s", who, strerror(-err));
		return err;
	}
	add(&nb, &lo);
	qdisc_msg(&nb, RTM_DELQDISC, &lo, NULL, "the trial qdisc removed",
		  TC_H_ROOT, 0);
	err = mp_nlbatch_flush(&nb);
	if (err)
		fabric_qdisc_report(&nb, who);
	mp_nlbatch_free(&nb);
	return err;
}

static void fq_on_root(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	fq_qdisc(nb, p, TC_H_ROOT);
}

int fabric_fq_check(struct mp_rtnl *r, const char *who)
{
	return fabric_qdisc_check(r, who, fq_on_root);
}

int fabric_netem_check(struct mp_rtnl *r, const char *who)
{
	return fabric_qdisc_check(r, who, netem);
}
