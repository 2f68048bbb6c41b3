// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink for mplane: the "mplane" link kind, its settings, and the
 * per-plane attributes of its rails.  Policies are strict; every value out
 * of range is refused with a message that names the attribute and its
 * range.  Settings may change while traffic flows: the datapath reads
 * each one with READ_ONCE, so a change takes effect from the next packet.
 */
#include <linux/cpumask.h>
#include <linux/if_link.h>
#include <linux/minmax.h>
#include <linux/netdevice.h>
#include <linux/stringify.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "balance.h"
#include "compat.h"
#include "mplane.h"

/* More transmit queues than this only costs memory. */
#define MPLANE_MAX_TX_QUEUES	64

#define MPLANE_RANGE_MSG(what, attr, lo, hi, unit)			\
	"mplane: " what " (" #attr ") must be " __stringify(lo) ".."	\
	__stringify(hi) unit

/* The range of one attribute, and the extack text that states it. */
struct mplane_range {
	u32 lo, hi;
	const char *msg;
	bool or_zero;		/* 0 is good too: off, or the line rate */
};

static const struct mplane_range mplane_dev_ranges[IFLA_MPLANE_MAX + 1] = {
	[IFLA_MPLANE_POLICY] = { 0, __MPLANE_POLICY_MAX - 1,
		"mplane: policy (IFLA_MPLANE_POLICY) must be 0..3: flowlet, hash, rr or spray" },
	[IFLA_MPLANE_FLOWLET_GAP_US] = { 1, MPLANE_FLOWLET_GAP_US_MAX,
		MPLANE_RANGE_MSG("flowlet gap", IFLA_MPLANE_FLOWLET_GAP_US,
				 1, 1000000, " us") },
	[IFLA_MPLANE_PROBE_INTERVAL_US] = { MPLANE_PROBE_INTERVAL_US_MIN,
		MPLANE_PROBE_INTERVAL_US_MAX,
		MPLANE_RANGE_MSG("probe interval", IFLA_MPLANE_PROBE_INTERVAL_US,
				 50, 1000000, " us") },
	[IFLA_MPLANE_PROBE_MISSES] = { MPLANE_PROBE_MISSES_MIN, MPLANE_PROBE_MISSES_MAX,
		MPLANE_RANGE_MSG("probe misses", IFLA_MPLANE_PROBE_MISSES,
				 1, 255, "") },
	[IFLA_MPLANE_HOLDDOWN_MS] = { 0, MPLANE_HOLDDOWN_MS_MAX,
		MPLANE_RANGE_MSG("hold-down", IFLA_MPLANE_HOLDDOWN_MS,
				 0, 60000, " ms") },
	[IFLA_MPLANE_CONG_THRESHOLD] = { 1, MPLANE_CONG_THRESHOLD_MAX,
		MPLANE_RANGE_MSG("congestion threshold", IFLA_MPLANE_CONG_THRESHOLD,
				 1, 1000000, " events") },
	[IFLA_MPLANE_CONG_HALFLIFE_US] = { 1, MPLANE_CONG_HALFLIFE_US_MAX,
		MPLANE_RANGE_MSG("congestion half-life", IFLA_MPLANE_CONG_HALFLIFE_US,
				 1, 10000000, " us") },
	[IFLA_MPLANE_GSO_MODE] = { 0, __MPLANE_GSO_MAX - 1,
		"mplane: GSO mode (IFLA_MPLANE_GSO_MODE) must be 0..1: whole or segment" },
	[IFLA_MPLANE_REORDER_US] = { 0, MPLANE_REORDER_US_MAX,
		MPLANE_RANGE_MSG("reorder window", IFLA_MPLANE_REORDER_US,
				 0, 100000, " us (0: off)") },
};

static const struct mplane_range mplane_cc_ranges[IFLA_MPLANE_CC_MAX + 1] = {
	[IFLA_MPLANE_CC_ALGO] = { 0, __MPLANE_CC_MAX - 1,
		"mplane: cc (IFLA_MPLANE_CC_ALGO) must be 0..2: off, dcqcn or notify" },
	[IFLA_MPLANE_CC_CNP_INTERVAL_US] = { 0, MPLANE_CC_CNP_INTERVAL_US_MAX,
		MPLANE_RANGE_MSG("CNP interval", IFLA_MPLANE_CC_CNP_INTERVAL_US,
				 0, MPLANE_CC_CNP_INTERVAL_US_MAX, " us") },
	[IFLA_MPLANE_CC_RATE_MAX_KBPS] = { MPLANE_CC_RATE_KBPS_MIN,
		MPLANE_CC_RATE_KBPS_MAX,
		"mplane: rate-max (IFLA_MPLANE_CC_RATE_MAX_KBPS) must be 0 (line rate) or "
		__stringify(MPLANE_CC_RATE_KBPS_MIN) ".."
		__stringify(MPLANE_CC_RATE_KBPS_MAX) " kbit/s", true },
	[IFLA_MPLANE_CC_RATE_MIN_KBPS] = { MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
		MPLANE_RANGE_MSG("rate-min", IFLA_MPLANE_CC_RATE_MIN_KBPS,
				 MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX, " kbit/s") },
	[IFLA_MPLANE_CC_RATE_AI_KBPS] = { MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
		MPLANE_RANGE_MSG("rate-ai", IFLA_MPLANE_CC_RATE_AI_KBPS,
				 MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX, " kbit/s") },
	[IFLA_MPLANE_CC_RATE_HAI_KBPS] = { MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
		MPLANE_RANGE_MSG("rate-hai", IFLA_MPLANE_CC_RATE_HAI_KBPS,
				 MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX, " kbit/s") },
	[IFLA_MPLANE_CC_TIME_RESET_US] = { MPLANE_CC_TIME_RESET_US_MIN,
		MPLANE_CC_TIME_RESET_US_MAX,
		MPLANE_RANGE_MSG("time-reset", IFLA_MPLANE_CC_TIME_RESET_US,
				 MPLANE_CC_TIME_RESET_US_MIN, MPLANE_CC_TIME_RESET_US_MAX, " us") },
	[IFLA_MPLANE_CC_BYTE_RESET] = { MPLANE_CC_BYTE_RESET_MIN, MPLANE_CC_BYTE_RESET_MAX,
		MPLANE_RANGE_MSG("byte-reset", IFLA_MPLANE_CC_BYTE_RESET,
				 MPLANE_CC_BYTE_RESET_MIN, MPLANE_CC_BYTE_RESET_MAX, " bytes") },
	[IFLA_MPLANE_CC_THRESHOLD] = { MPLANE_CC_THRESHOLD_MIN, MPLANE_CC_THRESHOLD_MAX,
		MPLANE_RANGE_MSG("threshold", IFLA_MPLANE_CC_THRESHOLD,
				 MPLANE_CC_THRESHOLD_MIN, MPLANE_CC_THRESHOLD_MAX, " stages") },
	[IFLA_MPLANE_CC_ALPHA_G] = { 0, MPLANE_CC_ALPHA_MAX,
		MPLANE_RANGE_MSG("alpha-g", IFLA_MPLANE_CC_ALPHA_G,
				 0, MPLANE_CC_ALPHA_MAX, " (of 1024)") },
	[IFLA_MPLANE_CC_ALPHA_PERIOD_US] = { MPLANE_CC_ALPHA_PERIOD_US_MIN,
		MPLANE_CC_ALPHA_PERIOD_US_MAX,
		MPLANE_RANGE_MSG("alpha-period", IFLA_MPLANE_CC_ALPHA_PERIOD_US,
				 MPLANE_CC_ALPHA_PERIOD_US_MIN,
				 MPLANE_CC_ALPHA_PERIOD_US_MAX, " us") },
	[IFLA_MPLANE_CC_ALPHA_INITIAL] = { MPLANE_CC_ALPHA_INITIAL_MIN, MPLANE_CC_ALPHA_MAX,
		MPLANE_RANGE_MSG("alpha-initial", IFLA_MPLANE_CC_ALPHA_INITIAL,
				 MPLANE_CC_ALPHA_INITIAL_MIN, MPLANE_CC_ALPHA_MAX, " (of 1024)") },
	[IFLA_MPLANE_CC_REDUCE_PERIOD_US] = { 0, MPLANE_CC_REDUCE_PERIOD_US_MAX,
		MPLANE_RANGE_MSG("reduce-period", IFLA_MPLANE_CC_REDUCE_PERIOD_US,
				 0, MPLANE_CC_REDUCE_PERIOD_US_MAX, " us") },
	[IFLA_MPLANE_CC_MIN_DEC_FAC] = { 0, MPLANE_CC_MIN_DEC_FAC_MAX,
		MPLANE_RANGE_MSG("min-dec-fac", IFLA_MPLANE_CC_MIN_DEC_FAC,
				 0, MPLANE_CC_MIN_DEC_FAC_MAX, " %") },
	[IFLA_MPLANE_CC_QP_MAX] = { MPLANE_CC_QP_MAX_MIN, MPLANE_CC_QP_MAX_MAX,
		MPLANE_RANGE_MSG("qp-max", IFLA_MPLANE_CC_QP_MAX,
				 MPLANE_CC_QP_MAX_MIN, MPLANE_CC_QP_MAX_MAX, " QPs") },
};

/* The sample interval's range has a hole: 0 (off), then MIN..MAX. */
static const char mplane_sample_msg[] =
	"mplane: sample interval (IFLA_MPLANE_SAMPLE_INTERVAL_US) must be 0 (off) or "
	__stringify(MPLANE_SAMPLE_INTERVAL_US_MIN) ".."
	__stringify(MPLANE_SAMPLE_INTERVAL_US_MAX) " us";

static const struct mplane_range mplane_plane_ranges[IFLA_MPLANE_PLANE_MAX + 1] = {
	[IFLA_MPLANE_PLANE_WEIGHT] = { 0, MPLANE_WEIGHT_MAX,
		MPLANE_RANGE_MSG("plane weight", IFLA_MPLANE_PLANE_WEIGHT,
				 0, 1000000, " (0: link speed)") },
	[IFLA_MPLANE_PLANE_ADMIN] = { 0, __MPLANE_ADMIN_MAX - 1,
		"mplane: plane admin (IFLA_MPLANE_PLANE_ADMIN) must be 0..2: up, drain, down" },
};

/*
 * Ranges are checked here, after the policy has checked each type and
 * length, rather than with NLA_POLICY_VALIDATE_FN: when an integer with a
 * validation function fails its length check, 6.1 dumps its policy into
 * the extack and WARNs on the function (lib/nlattr.c).
 */
static int mplane_check_ranges(const struct mplane_range *ranges, int max,
			       struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	const struct mplane_range *range;
	struct nlattr *attr;
	u32 v;
	int t;

	for (t = 1; data && t <= max; t++) {
		attr = data[t];
		range = &ranges[t];
		if (!attr || !range->msg)
			continue;
		v = nla_len(attr) == sizeof(u8) ? nla_get_u8(attr) : nla_get_u32(attr);
		if (v - range->lo > range->hi - range->lo &&
		    !(range->or_zero && !v)) {
			mplane_extack_msg(extack, attr, range->msg);
			return -ERANGE;
		}
	}
	return 0;
}

const struct nla_policy mplane_cc_policy[IFLA_MPLANE_CC_MAX + 1] = {
	[IFLA_MPLANE_CC_UNSPEC] = {
		.strict_start_type = IFLA_MPLANE_CC_ALGO,
	},
	[IFLA_MPLANE_CC_ALGO] = { .type = NLA_U8 },
	[IFLA_MPLANE_CC_CNP_INTERVAL_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_RATE_MAX_KBPS] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_RATE_MIN_KBPS] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_RATE_AI_KBPS] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_RATE_HAI_KBPS] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_TIME_RESET_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_BYTE_RESET] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_THRESHOLD] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_ALPHA_G] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_ALPHA_PERIOD_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_ALPHA_INITIAL] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_REDUCE_PERIOD_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_MIN_DEC_FAC] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_QP_MAX] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC_QP_COUNT] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the QP count is read-only",
	},
	[IFLA_MPLANE_CC_QP_EVICTIONS] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the QP evictions are read-only",
	},
	[IFLA_MPLANE_CC_CNP_UNKNOWN] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the unknown-QP CNP count is read-only",
	},
	[IFLA_MPLANE_CC_BAD_BTH] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the bad-BTH count is read-only",
	},
	[IFLA_MPLANE_CC_PAD] = { .type = NLA_REJECT },
};

static const struct nla_policy mplane_policy[IFLA_MPLANE_MAX + 1] = {
	[IFLA_MPLANE_UNSPEC] = {
		.strict_start_type = IFLA_MPLANE_PLANE_COUNT,
	},
	[IFLA_MPLANE_PLANE_COUNT] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane count is read-only",
	},
	[IFLA_MPLANE_POLICY] = { .type = NLA_U8 },
	[IFLA_MPLANE_FLOWLET_GAP_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_PROBE_INTERVAL_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_PROBE_MISSES] = { .type = NLA_U32 },
	[IFLA_MPLANE_HOLDDOWN_MS] = { .type = NLA_U32 },
	[IFLA_MPLANE_CONG_THRESHOLD] = { .type = NLA_U32 },
	[IFLA_MPLANE_CONG_HALFLIFE_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_GSO_MODE] = { .type = NLA_U8 },
	[IFLA_MPLANE_PEERS] = { .type = NLA_NESTED },
	/* Its range, with a hole at 1..9, is checked in validate. */
	[IFLA_MPLANE_SAMPLE_INTERVAL_US] = { .type = NLA_U32 },
	[IFLA_MPLANE_CC] = NLA_POLICY_NESTED(mplane_cc_policy),
	[IFLA_MPLANE_QPS] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the QP list is read-only",
	},
	[IFLA_MPLANE_REORDER_US] = { .type = NLA_U32 },
};

static const struct nla_policy mplane_slave_policy[IFLA_MPLANE_PLANE_MAX + 1] = {
	[IFLA_MPLANE_PLANE_UNSPEC] = {
		.strict_start_type = IFLA_MPLANE_PLANE_ID,
	},
	[IFLA_MPLANE_PLANE_ID] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane index is read-only",
	},
	[IFLA_MPLANE_PLANE_STATE] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane state is read-only",
	},
	[IFLA_MPLANE_PLANE_REASON] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane reason is read-only",
	},
	[IFLA_MPLANE_PLANE_WEIGHT] = { .type = NLA_U32 },
	[IFLA_MPLANE_PLANE_ADMIN] = { .type = NLA_U8 },
	[IFLA_MPLANE_PLANE_LOAD] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the plane load is read-only",
	},
	[IFLA_MPLANE_PLANE_CONG_SCORE] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: the congestion score is read-only",
	},
	[IFLA_MPLANE_PLANE_STATS] = {
		.type = NLA_REJECT,
		.reject_message = "mplane: plane counters are read-only",
	},
	[IFLA_MPLANE_PLANE_PAD] = { .type = NLA_REJECT },
};

static int mplane_check_sample_interval(struct nlattr *data[],
					struct netlink_ext_ack *extack)
{
	struct nlattr *attr = data ? data[IFLA_MPLANE_SAMPLE_INTERVAL_US] : NULL;
	u32 us;

	if (!attr)
		return 0;
	us = nla_get_u32(attr);
	if (us && (us < MPLANE_SAMPLE_INTERVAL_US_MIN ||
		   us > MPLANE_SAMPLE_INTERVAL_US_MAX)) {
		mplane_extack_msg(extack, attr, mplane_sample_msg);
		return -ERANGE;
	}
	return 0;
}

/* The IFLA_MPLANE_CC nest's ranges; its types were checked by the policy. */
static int mplane_check_cc(struct nlattr *data[], struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IFLA_MPLANE_CC_MAX + 1];
	int err;

	if (!data || !data[IFLA_MPLANE_CC])
		return 0;
	err = nla_parse_nested(tb, IFLA_MPLANE_CC_MAX, data[IFLA_MPLANE_CC],
			       mplane_cc_policy, extack);
	if (err)
		return err;
	return mplane_check_ranges(mplane_cc_ranges, IFLA_MPLANE_CC_MAX, tb,
				   extack);
}

static int mplane_validate(struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	int err;

	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
				    "mplane: an mplane device has no link-layer address");
		return -EINVAL;
	}
	if (tb[IFLA_BROADCAST]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_BROADCAST],
				    "mplane: an mplane device has no link-layer broadcast address");
		return -EINVAL;
	}
	err = mplane_check_ranges(mplane_dev_ranges, IFLA_MPLANE_MAX, data,
				  extack);
	if (err)
		return err;
	err = mplane_check_cc(data, extack);
	if (err)
		return err;
	return mplane_check_sample_interval(data, extack);
}

/* Apply validated settings.  Under RTNL; the datapath sees each at once. */
static int mplane_apply(struct mplane_dev *mp, struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	int err;

	if (!data)
		return 0;
	/* First: these are the settings that can fail after validation. */
	if (data[IFLA_MPLANE_CC]) {
		err = mplane_cc_set(mp, data[IFLA_MPLANE_CC], extack);
		if (err)
			return err;
	}
	if (data[IFLA_MPLANE_REORDER_US]) {
		err = mplane_reorder_set(mp, nla_get_u32(data[IFLA_MPLANE_REORDER_US]),
					 extack);
		if (err)
			return err;
	}
	if (data[IFLA_MPLANE_PEERS]) {
		err = mplane_peers_set(mp, data[IFLA_MPLANE_PEERS], extack);
		if (err)
			return err;
	}
	if (data[IFLA_MPLANE_POLICY])
		WRITE_ONCE(mp->policy, nla_get_u8(data[IFLA_MPLANE_POLICY]));
	if (data[IFLA_MPLANE_GSO_MODE])
		WRITE_ONCE(mp->gso_mode, nla_get_u8(data[IFLA_MPLANE_GSO_MODE]));
	if (data[IFLA_MPLANE_FLOWLET_GAP_US]) {
		mp->flowlet_gap_us = nla_get_u32(data[IFLA_MPLANE_FLOWLET_GAP_US]);
		WRITE_ONCE(mp->flowlet_gap_ns,
			   (u64)mp->flowlet_gap_us * NSEC_PER_USEC);
	}
	if (data[IFLA_MPLANE_PROBE_INTERVAL_US])
		WRITE_ONCE(mp->probe_interval_us,
			   nla_get_u32(data[IFLA_MPLANE_PROBE_INTERVAL_US]));
	if (data[IFLA_MPLANE_PROBE_MISSES])
		WRITE_ONCE(mp->probe_misses,
			   nla_get_u32(data[IFLA_MPLANE_PROBE_MISSES]));
	if (data[IFLA_MPLANE_HOLDDOWN_MS])
		WRITE_ONCE(mp->holddown_ms,
			   nla_get_u32(data[IFLA_MPLANE_HOLDDOWN_MS]));
	if (data[IFLA_MPLANE_CONG_THRESHOLD]) {
		mp->cong_threshold_events =
			nla_get_u32(data[IFLA_MPLANE_CONG_THRESHOLD]);
		WRITE_ONCE(mp->cong_threshold,
			   (u64)mp->cong_threshold_events * MPLANE_CONG_UNIT);
	}
	if (data[IFLA_MPLANE_CONG_HALFLIFE_US]) {
		mp->cong_halflife_us = nla_get_u32(data[IFLA_MPLANE_CONG_HALFLIFE_US]);
		WRITE_ONCE(mp->cong_halflife_ns,
			   (u64)mp->cong_halflife_us * NSEC_PER_USEC);
	}
	if (data[IFLA_MPLANE_PROBE_INTERVAL_US])
		mplane_probe_restart(mp);
	if (data[IFLA_MPLANE_SAMPLE_INTERVAL_US]) {
		WRITE_ONCE(mp->sample_interval_us,
			   nla_get_u32(data[IFLA_MPLANE_SAMPLE_INTERVAL_US]));
		/* A new device starts sampling once registered (newlink). */
		if (mp->dev->reg_state == NETREG_REGISTERED)
			mplane_sampler_restart(mp);
	}
	return 0;
}

int mplane_newlink(struct net_device *dev, struct nlattr *data[],
		   struct netlink_ext_ack *extack)
{
	struct mplane_dev *mp = netdev_priv(dev);
	int err;

	err = mplane_apply(mp, data, extack);
	if (err)
		goto err_free;
	err = register_netdevice(dev);
	if (err)
		goto err_free;
	/* Stopped again by ndo_uninit if the rest of newlink fails. */
	mplane_sampler_restart(mp);
	return 0;

err_free:
	/*
	 * What mplane_apply() allocated: register_netdevice() can fail
	 * before ndo_init (a bad name), and then ndo_uninit never runs.
	 */
	mplane_peers_free(mp);
	mplane_cc_uninit(mp);
	mplane_reorder_uninit(mp);
	return err;
}

static int mplane_changelink(struct net_device *dev, struct nlattr *tb[],
			     struct nlattr *data[],
			     struct netlink_ext_ack *extack)
{
	return mplane_apply(netdev_priv(dev), data, extack);
}

static int mplane_slave_changelink(struct net_device *dev,
				   struct net_device *rail,
				   struct nlattr *tb[], struct nlattr *data[],
				   struct netlink_ext_ack *extack)
{
	struct mplane_plane *plane = mplane_plane_of(rail);
	int err;

	if (!plane || plane->mp != netdev_priv(dev)) {
		NL_SET_ERR_MSG_MOD(extack, "device is not a plane of this mplane device");
		return -EINVAL;
	}
	err = mplane_check_ranges(mplane_plane_ranges, IFLA_MPLANE_PLANE_MAX,
				  data, extack);
	if (err || !data)
		return err;
	if (data[IFLA_MPLANE_PLANE_WEIGHT]) {
		plane->weight = nla_get_u32(data[IFLA_MPLANE_PLANE_WEIGHT]);
		mplane_plane_update_capacity(plane);
		mplane_cc_line_update(plane->mp);
	}
	if (data[IFLA_MPLANE_PLANE_ADMIN])
		mplane_state_set_admin(plane,
				       nla_get_u8(data[IFLA_MPLANE_PLANE_ADMIN]));
	return 0;
}

static unsigned int mplane_get_num_tx_queues(void)
{
	return min_t(unsigned int, num_possible_cpus(), MPLANE_MAX_TX_QUEUES);
}

static size_t mplane_get_size(const struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	return 9 * nla_total_size(sizeof(u32)) +	/* count, u32 settings */
	       2 * nla_total_size(sizeof(u8)) +		/* policy, gso mode */
	       mplane_peers_size(mp) + mplane_cc_size();
}

static int mplane_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct mplane_dev *mp = netdev_priv(dev);

	if (nla_put_u32(skb, IFLA_MPLANE_PLANE_COUNT, READ_ONCE(mp->plane_count)) ||
	    nla_put_u8(skb, IFLA_MPLANE_POLICY, READ_ONCE(mp->policy)) ||
	    nla_put_u32(skb, IFLA_MPLANE_FLOWLET_GAP_US, mp->flowlet_gap_us) ||
	    nla_put_u32(skb, IFLA_MPLANE_PROBE_INTERVAL_US, mp->probe_interval_us) ||
	    nla_put_u32(skb, IFLA_MPLANE_PROBE_MISSES, mp->probe_misses) ||
	    nla_put_u32(skb, IFLA_MPLANE_HOLDDOWN_MS, mp->holddown_ms) ||
	    nla_put_u32(skb, IFLA_MPLANE_CONG_THRESHOLD, mp->cong_threshold_events) ||
	    nla_put_u32(skb, IFLA_MPLANE_CONG_HALFLIFE_US, mp->cong_halflife_us) ||
	    nla_put_u8(skb, IFLA_MPLANE_GSO_MODE, READ_ONCE(mp->gso_mode)) ||
	    nla_put_u32(skb, IFLA_MPLANE_SAMPLE_INTERVAL_US,
			READ_ONCE(mp->sample_interval_us)) ||
	    nla_put_u32(skb, IFLA_MPLANE_REORDER_US, READ_ONCE(mp->reorder_us)) ||
	    mplane_peers_fill(skb, mp) || mplane_cc_fill(skb, mp))
		return -EMSGSIZE;
	return 0;
}

static size_t mplane_get_slave_size(const struct net_device *dev,
				    const struct net_device *rail)
{
	return 4 * nla_total_size(sizeof(u32)) +	/* id, weight, load, score */
	       3 * nla_total_size(sizeof(u8)) +		/* state, reason, admin */
	       mplane_pstats_size();
}

static int mplane_fill_plane(struct sk_buff *skb, struct mplane_plane *plane)
{
	u64 score = mplane_decay(READ_ONCE(plane->cong_score),
				 ktime_get_ns() - READ_ONCE(plane->cong_stamp),
				 READ_ONCE(plane->mp->cong_halflife_ns));

	if (nla_put_u32(skb, IFLA_MPLANE_PLANE_ID, plane->index) ||
	    nla_put_u8(skb, IFLA_MPLANE_PLANE_STATE, READ_ONCE(plane->state)) ||
	    nla_put_u8(skb, IFLA_MPLANE_PLANE_REASON, READ_ONCE(plane->reason)) ||
	    nla_put_u32(skb, IFLA_MPLANE_PLANE_WEIGHT, plane->weight) ||
	    nla_put_u8(skb, IFLA_MPLANE_PLANE_ADMIN, plane->admin) ||
	    nla_put_u32(skb, IFLA_MPLANE_PLANE_LOAD, mplane_plane_load_now(plane)) ||
	    nla_put_u32(skb, IFLA_MPLANE_PLANE_CONG_SCORE,
			(u32)min_t(u64, score / MPLANE_CONG_UNIT, U32_MAX)) ||
	    mplane_pstats_fill(skb, plane))
		return -EMSGSIZE;
	return 0;
}

static int mplane_fill_slave_info(struct sk_buff *skb,
				  const struct net_device *dev,
				  const struct net_device *rail)
{
	struct mplane_plane *plane;
	int err = 0;

	/* Dumps may not hold RTNL on every kernel; the plane is RCU-freed. */
	rcu_read_lock_bh();
	plane = mplane_plane_of(rail);
	if (plane)
		err = mplane_fill_plane(skb, plane);
	rcu_read_unlock_bh();
	return err;
}

static struct rtnl_link_ops mplane_link_ops __read_mostly = {
	.kind			= MPLANE_LINK_KIND,
	.priv_size		= sizeof(struct mplane_dev),
	.setup			= mplane_setup,
	.maxtype		= IFLA_MPLANE_MAX,
	.policy			= mplane_policy,
	.validate		= mplane_validate,
	.newlink		= mplane_compat_newlink,
	.changelink		= mplane_changelink,
	.get_num_tx_queues	= mplane_get_num_tx_queues,
	.get_size		= mplane_get_size,
	.fill_info		= mplane_fill_info,
	.slave_maxtype		= IFLA_MPLANE_PLANE_MAX,
	.slave_policy		= mplane_slave_policy,
	.slave_changelink	= mplane_slave_changelink,
	.get_slave_size		= mplane_get_slave_size,
	.fill_slave_info	= mplane_fill_slave_info,
};

int mplane_netlink_init(void)
{
	return rtnl_link_register(&mplane_link_ops);
}

/* Deletes every mplane device, in every namespace, under RTNL. */
void mplane_netlink_uninit(void)
{
	rtnl_link_unregister(&mplane_link_ops);
}
