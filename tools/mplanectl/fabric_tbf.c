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
 * Limit (the queue, in bytes): 20 ms at the rate on top of the burst,
 * at least 8 full-size frames: enough for TCP and ECMP tests to see
 * queueing before loss, short enough that a saturated link does not add
 * seconds of delay.  100mbit: 262500 bytes.
 */
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "mp_nlbatch.h"
#include "fabric.h"

#define FRAME_MAX	1514		/* Ethernet header and 1500 bytes */
#define BURST_US	1000
#define LATENCY_US	20000

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

uint32_t fabric_tbf_limit(uint64_t rate_bps)
{
	uint64_t limit = fabric_tbf_burst(rate_bps) +
			 bytes_in(rate_bps, LATENCY_US);

	if (limit < 8 * FRAME_MAX)
		limit = 8 * FRAME_MAX;
	return limit > UINT32_MAX ? UINT32_MAX : limit;
}

/*
 * TCA_TBF_BURST gives the burst in bytes: the kernel turns it into the
 * time of the bucket (tc_tbf_qopt.buffer, in psched ticks) itself, so
 * nothing here depends on /proc/net/psched.  Rates of 2^32 bytes/s and
 * more only fit TCA_TBF_RATE64.
 */
void fabric_tbf(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	uint64_t bytes_ps = p->rate_bps / 8;
	struct tc_tbf_qopt qopt = {};
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	struct tcmsg *tcm;

	nlh = mp_nlbatch_new(nb, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
			     "%s: tbf qdisc", p->ifname);
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = p->ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = TC_H_MAKE(1U << 16, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "tbf");
	/* Ethernet link layer: the kernel then wants no rate table. */
	qopt.rate.linklayer = TC_LINKLAYER_ETHERNET;
	qopt.rate.rate = bytes_ps > UINT32_MAX ? UINT32_MAX : bytes_ps;
	qopt.limit = fabric_tbf_limit(p->rate_bps);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof(qopt), &qopt);
	if (bytes_ps > UINT32_MAX)
		mnl_attr_put_u64(nlh, TCA_TBF_RATE64, bytes_ps);
	mnl_attr_put_u32(nlh, TCA_TBF_BURST, fabric_tbf_burst(p->rate_bps));
	mnl_attr_nest_end(nlh, opts);
}
