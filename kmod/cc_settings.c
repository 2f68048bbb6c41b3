// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control's settings (IFLA_MPLANE_CC): kept as set, one value
 * per attribute, and published to the datapath as one RCU-swapped block
 * of DCQCN parameters, so that a packet never sees half of a change.
 * Turning CC on allocates the QP table; changing qp-max or the algorithm
 * makes a new one (the QPs' rate state starts over: a QP that DCQCN had
 * cut would otherwise show its last rate under notify, which paces
 * nothing); turning it off frees it.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "mplane.h"

static const u32 mplane_cc_defaults[IFLA_MPLANE_CC_MAX + 1] = {
	[IFLA_MPLANE_CC_ALGO]		= MPLANE_CC_OFF,
	[IFLA_MPLANE_CC_CNP_INTERVAL_US] = MPLANE_CC_CNP_INTERVAL_US_DEFAULT,
	[IFLA_MPLANE_CC_RATE_MAX_KBPS]	= MPLANE_CC_RATE_MAX_KBPS_DEFAULT,
	[IFLA_MPLANE_CC_RATE_MIN_KBPS]	= MPLANE_CC_RATE_MIN_KBPS_DEFAULT,
	[IFLA_MPLANE_CC_RATE_AI_KBPS]	= MPLANE_CC_RATE_AI_KBPS_DEFAULT,
	[IFLA_MPLANE_CC_RATE_HAI_KBPS]	= MPLANE_CC_RATE_HAI_KBPS_DEFAULT,
	[IFLA_MPLANE_CC_TIME_RESET_US]	= MPLANE_CC_TIME_RESET_US_DEFAULT,
	[IFLA_MPLANE_CC_BYTE_RESET]	= MPLANE_CC_BYTE_RESET_DEFAULT,
	[IFLA_MPLANE_CC_THRESHOLD]	= MPLANE_CC_THRESHOLD_DEFAULT,
	[IFLA_MPLANE_CC_ALPHA_G]	= MPLANE_CC_ALPHA_G_DEFAULT,
	[IFLA_MPLANE_CC_ALPHA_PERIOD_US] = MPLANE_CC_ALPHA_PERIOD_US_DEFAULT,
	[IFLA_MPLANE_CC_ALPHA_INITIAL]	= MPLANE_CC_ALPHA_INITIAL_DEFAULT,
	[IFLA_MPLANE_CC_REDUCE_PERIOD_US] = MPLANE_CC_REDUCE_PERIOD_US_DEFAULT,
	[IFLA_MPLANE_CC_MIN_DEC_FAC]	= MPLANE_CC_MIN_DEC_FAC_DEFAULT,
	[IFLA_MPLANE_CC_QP_MAX]		= MPLANE_CC_QP_MAX_DEFAULT,
};

/* The settable attributes: ALGO (a u8) through QP_MAX (u32s). */
#define MPLANE_CC_FIRST_SETTING	IFLA_MPLANE_CC_ALGO
#define MPLANE_CC_LAST_SETTING	IFLA_MPLANE_CC_QP_MAX

void mplane_cc_init(struct mplane_dev *mp)
{
	memcpy(mp->cc_cfg, mplane_cc_defaults, sizeof(mp->cc_cfg));
}

static struct mplane_cc_params *mplane_cc_params_new(const u32 *cfg)
{
	struct mplane_cc_params *cc = kzalloc(sizeof(*cc), GFP_KERNEL);

	if (!cc)
		return NULL;
	cc->cnp_interval_ns = (u64)cfg[IFLA_MPLANE_CC_CNP_INTERVAL_US] * NSEC_PER_USEC;
	cc->rate_control = cfg[IFLA_MPLANE_CC_ALGO] == MPLANE_CC_DCQCN;
	cc->dcqcn = (struct mplane_dcqcn_params) {
		.max_kbps = cfg[IFLA_MPLANE_CC_RATE_MAX_KBPS],
		.min_kbps = cfg[IFLA_MPLANE_CC_RATE_MIN_KBPS],
		.ai_kbps = cfg[IFLA_MPLANE_CC_RATE_AI_KBPS],
		.hai_kbps = cfg[IFLA_MPLANE_CC_RATE_HAI_KBPS],
		.time_reset_ns = (u64)cfg[IFLA_MPLANE_CC_TIME_RESET_US] * NSEC_PER_USEC,
		.byte_reset = cfg[IFLA_MPLANE_CC_BYTE_RESET],
		.threshold = cfg[IFLA_MPLANE_CC_THRESHOLD],
		.alpha_g = cfg[IFLA_MPLANE_CC_ALPHA_G],
		.alpha_period_ns = (u64)cfg[IFLA_MPLANE_CC_ALPHA_PERIOD_US] *
				   NSEC_PER_USEC,
		.alpha_initial = cfg[IFLA_MPLANE_CC_ALPHA_INITIAL],
		.reduce_period_ns = (u64)cfg[IFLA_MPLANE_CC_REDUCE_PERIOD_US] *
				    NSEC_PER_USEC,
		.min_dec_fac = cfg[IFLA_MPLANE_CC_MIN_DEC_FAC],
	};
	return cc;
}

/* Checks between settings, on the values they would have together. */
static int mplane_cc_check(const u32 *cfg, const struct nlattr *nest,
			   struct netlink_ext_ack *extack)
{
	u32 max = cfg[IFLA_MPLANE_CC_RATE_MAX_KBPS];

	if (max && cfg[IFLA_MPLANE_CC_RATE_MIN_KBPS] > max) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "mplane: rate-min (IFLA_MPLANE_CC_RATE_MIN_KBPS) must not be above rate-max (IFLA_MPLANE_CC_RATE_MAX_KBPS)");
		return -EINVAL;
	}
	return 0;
}

/*
 * With CC off no CNP comes, and spray stops the clock the marks decay by
 * (mplane_spray_charge()): a share left now would stand, unchanged, for
 * the next time CC is on.  Cleared instead; a CNP racing this is one CNP.
 */
static void mplane_cc_forget_marks(struct mplane_dev *mp)
{
	struct mplane_plane *plane;
	int i;

	for (i = 0; i < MPLANE_MAX_PLANES; i++) {
		plane = rtnl_dereference(mp->planes[i]);
		if (plane)
			WRITE_ONCE(plane->mark_share, 0);
	}
}

/* Publish @cc (NULL: off) and @qps in place of what the datapath had. */
static void mplane_cc_publish(struct mplane_dev *mp,
			      struct mplane_cc_params *cc,
			      struct mplane_qp_table *qps)
{
	struct mplane_cc_params *old_cc = rtnl_dereference(mp->cc);
	struct mplane_qp_table *old_qps = rtnl_dereference(mp->qps);

	rcu_assign_pointer(mp->cc, cc);
	if (!cc)
		mplane_cc_forget_marks(mp);
	if (qps != old_qps) {
		rcu_assign_pointer(mp->qps, qps);
		mplane_cc_table_free(old_qps);
	}
	if (old_cc)
		kfree_rcu(old_cc, rcu);
}

/*
 * Apply the IFLA_MPLANE_CC nest @nest, whose types and ranges were
 * validated.  Under RTNL; nothing changes when it fails.
 */
int mplane_cc_set(struct mplane_dev *mp, const struct nlattr *nest,
		  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IFLA_MPLANE_CC_MAX + 1];
	struct mplane_qp_table *qps;
	struct mplane_cc_params *cc = NULL;
	u32 cfg[IFLA_MPLANE_CC_MAX + 1];
	bool on, fresh;
	int err, t;

	ASSERT_RTNL();
	err = nla_parse_nested(tb, IFLA_MPLANE_CC_MAX, nest, mplane_cc_policy,
			       extack);
	if (err)
		return err;
	memcpy(cfg, mp->cc_cfg, sizeof(cfg));
	for (t = MPLANE_CC_FIRST_SETTING; t <= MPLANE_CC_LAST_SETTING; t++)
		if (tb[t])
			cfg[t] = t == IFLA_MPLANE_CC_ALGO ? nla_get_u8(tb[t]) :
							    nla_get_u32(tb[t]);
	err = mplane_cc_check(cfg, nest, extack);
	if (err)
		return err;

	on = cfg[IFLA_MPLANE_CC_ALGO] != MPLANE_CC_OFF;
	qps = on ? rtnl_dereference(mp->qps) : NULL;
	fresh = cfg[IFLA_MPLANE_CC_QP_MAX] != mp->cc_cfg[IFLA_MPLANE_CC_QP_MAX] ||
		cfg[IFLA_MPLANE_CC_ALGO] != mp->cc_cfg[IFLA_MPLANE_CC_ALGO];
	if (on && (!qps || fresh)) {
		qps = mplane_cc_table_alloc(cfg[IFLA_MPLANE_CC_QP_MAX]);
		if (!qps)
			goto nomem;
		netdev_info(mp->dev, "congestion control: a table of %u QPs in %zu bytes\n",
			    mplane_cc_table_entries(cfg[IFLA_MPLANE_CC_QP_MAX]),
			    mplane_cc_table_size(cfg[IFLA_MPLANE_CC_QP_MAX]));
	}
	if (on) {
		cc = mplane_cc_params_new(cfg);
		if (!cc) {
			if (qps != rtnl_dereference(mp->qps))
				mplane_cc_table_free(qps);
			goto nomem;
		}
	}
	memcpy(mp->cc_cfg, cfg, sizeof(cfg));
	mplane_cc_publish(mp, cc, qps);
	return 0;

nomem:
	NL_SET_ERR_MSG_ATTR(extack, nest,
			    "mplane: no memory for the congestion control's QP table");
	return -ENOMEM;
}

/* Under RTNL, from ndo_uninit and a newlink that failed. */
void mplane_cc_uninit(struct mplane_dev *mp)
{
	mplane_cc_publish(mp, NULL, NULL);
}

size_t mplane_cc_size(void)
{
	return nla_total_size(0) +
	       (MPLANE_CC_LAST_SETTING + 1) * nla_total_size(sizeof(u32)) +
	       3 * nla_total_size_64bit(sizeof(u64)) + mplane_cc_qps_size();
}

/* IFLA_MPLANE_CC and IFLA_MPLANE_QPS, for fill_info. */
int mplane_cc_fill(struct sk_buff *skb, struct mplane_dev *mp)
{
	struct nlattr *nest;
	u32 count;
	int t;

	if (mplane_cc_qps_fill(skb, mp, &count))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, IFLA_MPLANE_CC);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, IFLA_MPLANE_CC_ALGO, mp->cc_cfg[IFLA_MPLANE_CC_ALGO]))
		goto cancel;
	for (t = MPLANE_CC_FIRST_SETTING + 1; t <= MPLANE_CC_LAST_SETTING; t++)
		if (nla_put_u32(skb, t, mp->cc_cfg[t]))
			goto cancel;
	if (nla_put_u32(skb, IFLA_MPLANE_CC_QP_COUNT, count) ||
	    nla_put_u64_64bit(skb, IFLA_MPLANE_CC_QP_EVICTIONS,
			      atomic64_read(&mp->cc_evictions), IFLA_MPLANE_CC_PAD) ||
	    nla_put_u64_64bit(skb, IFLA_MPLANE_CC_CNP_UNKNOWN,
			      atomic64_read(&mp->cc_cnp_unknown), IFLA_MPLANE_CC_PAD) ||
	    nla_put_u64_64bit(skb, IFLA_MPLANE_CC_BAD_BTH,
			      atomic64_read(&mp->cc_bad_bth), IFLA_MPLANE_CC_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
