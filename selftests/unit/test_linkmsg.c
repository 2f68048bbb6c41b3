// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_linkmsg.c: decoding what the kernel says of
 * mplane devices and rails, encoding the IFLA_LINKINFO that sets them,
 * and finding the extack text in acks, on messages built here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "mp_linkmsg.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define BUF_SIZE	8192

static char buf[BUF_SIZE] __attribute__((aligned(8)));
static struct mp_link lk;	/* big: not on the stack */

static struct nlmsghdr *newlink(int ifindex, unsigned int flags)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	return nlh;
}

static const uint8_t v4[4] = { 10, 0, 0, 2 };
static const uint8_t v6[16] = { 0xfd, [15] = 2 };

/* mp0 as a kernel would describe it, with IFLA_INFO_DATA first or last. */
static struct nlmsghdr *device_msg(bool data_first)
{
	struct nlmsghdr *nlh = newlink(5, IFF_UP);
	struct rtnl_link_stats64 st = { .rx_packets = 11, .tx_bytes = 22 };
	struct nlattr *info, *data, *peers;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, "mp0");
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, 6);
	mnl_attr_put(nlh, IFLA_STATS64, sizeof(st), &st);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	if (!data_first)
		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "mplane");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_PLANE_COUNT, 2);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_POLICY, MPLANE_POLICY_HASH);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_FLOWLET_GAP_US, 100);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_HOLDDOWN_MS, 60000);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_GSO_MODE, MPLANE_GSO_SEGMENT);
	peers = mnl_attr_nest_start(nlh, IFLA_MPLANE_PEERS);
	mnl_attr_put(nlh, IFLA_MPLANE_PEER, 4, v4);
	mnl_attr_put(nlh, IFLA_MPLANE_PEER, 16, v6);
	mnl_attr_put(nlh, IFLA_MPLANE_PEER, 5, v6);	/* neither: skipped */
	mnl_attr_nest_end(nlh, peers);
	/* An attribute from a newer kernel. */
	mnl_attr_put_u32(nlh, __IFLA_MPLANE_MAX, 99);
	mnl_attr_nest_end(nlh, data);
	if (data_first)
		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "mplane");
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

static void check_device(void)
{
	assert_int_equal(lk.ifindex, 5);
	assert_string_equal(lk.name, "mp0");
	assert_true(lk.flags & IFF_UP);
	assert_int_equal(lk.operstate, 6);
	assert_int_equal(lk.carrier, -1);
	assert_int_equal(lk.master, 0);
	assert_true(mp_link_is_mplane(&lk));
	assert_false(mp_link_is_plane(&lk));
	assert_true(lk.has_stats64);
	assert_int_equal(lk.stats64.rx_packets, 11);
	assert_int_equal(lk.stats64.tx_bytes, 22);

	assert_int_equal(lk.present, (1u << IFLA_MPLANE_PLANE_COUNT) |
			 (1u << IFLA_MPLANE_POLICY) |
			 (1u << IFLA_MPLANE_FLOWLET_GAP_US) |
			 (1u << IFLA_MPLANE_HOLDDOWN_MS) |
			 (1u << IFLA_MPLANE_GSO_MODE) |
			 (1u << IFLA_MPLANE_PEERS) | (1u << __IFLA_MPLANE_MAX));
	assert_int_equal(lk.val[IFLA_MPLANE_PLANE_COUNT], 2);
	assert_int_equal(lk.val[IFLA_MPLANE_POLICY], MPLANE_POLICY_HASH);
	assert_int_equal(lk.val[IFLA_MPLANE_FLOWLET_GAP_US], 100);
	assert_int_equal(lk.val[IFLA_MPLANE_HOLDDOWN_MS], 60000);
	assert_int_equal(lk.val[IFLA_MPLANE_GSO_MODE], MPLANE_GSO_SEGMENT);
	/* A nest whose length looks like a u64 is not read as one. */
	assert_int_equal(lk.val[IFLA_MPLANE_PEERS], 0);
	assert_int_equal(lk.npeers, 2);
	assert_int_equal(lk.peers[0].len, 4);
	assert_memory_equal(lk.peers[0].bytes, v4, 4);
	assert_int_equal(lk.peers[1].len, 16);
	assert_memory_equal(lk.peers[1].bytes, v6, 16);
}

static void test_parse_device(TEST_ARGS)
{
	assert_int_equal(mp_link_parse(device_msg(false), &lk), 0);
	check_device();
}

/* Data means what the kind says, wherever the kind comes. */
static void test_parse_device_data_first(TEST_ARGS)
{
	assert_int_equal(mp_link_parse(device_msg(true), &lk), 0);
	check_device();
}

/* The IFLA_INFO_DATA of another kind is not read as mplane's. */
static void test_parse_other_kind(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(3, 0);
	struct nlattr *info, *data;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, "vx0");
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vxlan");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_POLICY, 1);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	assert_int_equal(mp_link_parse(nlh, &lk), 0);
	assert_string_equal(lk.kind, "vxlan");
	assert_false(mp_link_is_mplane(&lk));
	assert_int_equal(lk.present, 0);
	assert_false(lk.has_stats64);
	assert_int_equal(lk.operstate, -1);
}

static struct nlmsghdr *rail_msg(const char *slave_kind)
{
	struct nlmsghdr *nlh = newlink(7, IFF_UP);
	struct nlattr *info, *data, *stats;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, "a1");
	mnl_attr_put_u32(nlh, IFLA_MASTER, 5);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, 2);
	mnl_attr_put_u8(nlh, IFLA_CARRIER, 0);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	mnl_attr_put_strz(nlh, IFLA_INFO_SLAVE_KIND, slave_kind);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_SLAVE_DATA);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_PLANE_ID, 1);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_PLANE_STATE, MPLANE_PLANE_DOWN);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_PLANE_REASON, MPLANE_REASON_CARRIER);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_PLANE_WEIGHT, 40);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_PLANE_ADMIN, MPLANE_ADMIN_DRAIN);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_PLANE_LOAD, 3);
	/* The kernel pads u64s with an attribute of the PAD type. */
	mnl_attr_put(nlh, IFLA_MPLANE_PLANE_PAD, 0, NULL);
	stats = mnl_attr_nest_start(nlh, IFLA_MPLANE_PLANE_STATS);
	mnl_attr_put(nlh, IFLA_MPLANE_PSTAT_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_TX_PACKETS, 1ULL << 40);
	mnl_attr_put(nlh, IFLA_MPLANE_PSTAT_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_PROBES_LOST, 9);
	/* After PAD in number: counters all the same. */
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_CNP_SENT, 77);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_RATE_CUTS, 78);
	/* Resequencing's, the last of the uapi's. */
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_REORDER_HELD, 12);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_REORDER_FILLED, 10);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_REORDER_EXPIRED, 1);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS, 1ULL << 35);
	mnl_attr_put_u64(nlh, __IFLA_MPLANE_PSTAT_MAX, 79);	/* newer */
	mnl_attr_nest_end(nlh, stats);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

static void test_parse_rail(TEST_ARGS)
{
	const struct mp_plane_info *p = &lk.plane;

	assert_int_equal(mp_link_parse(rail_msg("mplane"), &lk), 0);
	assert_string_equal(lk.name, "a1");
	assert_int_equal(lk.master, 5);
	assert_int_equal(lk.carrier, 0);
	assert_int_equal(lk.operstate, 2);
	assert_string_equal(lk.kind, "veth");
	assert_false(mp_link_is_mplane(&lk));
	assert_true(mp_link_is_plane(&lk));
	assert_int_equal(lk.present, 0);

	assert_int_equal(p->present, (1u << IFLA_MPLANE_PLANE_ID) |
			 (1u << IFLA_MPLANE_PLANE_STATE) |
			 (1u << IFLA_MPLANE_PLANE_REASON) |
			 (1u << IFLA_MPLANE_PLANE_WEIGHT) |
			 (1u << IFLA_MPLANE_PLANE_ADMIN) |
			 (1u << IFLA_MPLANE_PLANE_LOAD) |
			 (1u << IFLA_MPLANE_PLANE_STATS));
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_ID], 1);
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_STATE], MPLANE_PLANE_DOWN);
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_REASON], MPLANE_REASON_CARRIER);
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_WEIGHT], 40);
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_ADMIN], MPLANE_ADMIN_DRAIN);
	assert_int_equal(p->val[IFLA_MPLANE_PLANE_LOAD], 3);
	assert_int_equal(p->stats_present, (1u << IFLA_MPLANE_PSTAT_TX_PACKETS) |
			 (1u << IFLA_MPLANE_PSTAT_PROBES_LOST) |
			 (1u << IFLA_MPLANE_PSTAT_CNP_SENT) |
			 (1u << IFLA_MPLANE_PSTAT_RATE_CUTS) |
			 (1u << IFLA_MPLANE_PSTAT_REORDER_HELD) |
			 (1u << IFLA_MPLANE_PSTAT_REORDER_FILLED) |
			 (1u << IFLA_MPLANE_PSTAT_REORDER_EXPIRED) |
			 (1u << IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS));
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_TX_PACKETS], 1ULL << 40);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_PROBES_LOST], 9);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_CNP_SENT], 77);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_RATE_CUTS], 78);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_REORDER_HELD], 12);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_REORDER_FILLED], 10);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_REORDER_EXPIRED], 1);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS],
			 1ULL << 35);
	assert_int_equal(p->stats[IFLA_MPLANE_PSTAT_PAD], 0);
}

/* mp0 as fill_info reports congestion control: the whole nest, and QPs. */
static struct nlmsghdr *cc_msg(void)
{
	struct nlmsghdr *nlh = newlink(5, IFF_UP);
	struct nlattr *info, *data, *cc, *qps, *qp;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, "mp0");
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "mplane");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_POLICY, MPLANE_POLICY_SPRAY);
	cc = mnl_attr_nest_start(nlh, IFLA_MPLANE_CC);
	mnl_attr_put_u8(nlh, IFLA_MPLANE_CC_ALGO, MPLANE_CC_DCQCN);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_CC_CNP_INTERVAL_US, 50);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_CC_RATE_MAX_KBPS, 0);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_CC_QP_MAX, 1024);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_CC_QP_COUNT, 2);
	mnl_attr_put(nlh, IFLA_MPLANE_CC_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_CC_QP_EVICTIONS, 1ULL << 33);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_CC_CNP_UNKNOWN, 3);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_CC_BAD_BTH, 4);
	mnl_attr_put_u32(nlh, __IFLA_MPLANE_CC_MAX, 5);		/* newer */
	mnl_attr_nest_end(nlh, cc);
	qps = mnl_attr_nest_start(nlh, IFLA_MPLANE_QPS);
	qp = mnl_attr_nest_start(nlh, IFLA_MPLANE_QP);
	mnl_attr_put(nlh, IFLA_MPLANE_QP_PEER, 4, v4);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_QP_QPN, 0x11);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_QP_RATE_KBPS, 500000);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_QP_TARGET_KBPS, 750000);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_QP_ALPHA, 512);
	mnl_attr_put(nlh, IFLA_MPLANE_QP_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_QP_CNP_RX, 3);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_QP_CNP_TX, 0);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_QP_RATE_CUTS, 3);
	mnl_attr_put_u64(nlh, IFLA_MPLANE_QP_TX_BYTES, 1ULL << 40);
	mnl_attr_nest_end(nlh, qp);
	mnl_attr_put_u32(nlh, 7, 1);		/* not a QP: skipped */
	qp = mnl_attr_nest_start(nlh, IFLA_MPLANE_QP);
	mnl_attr_put(nlh, IFLA_MPLANE_QP_PEER, 16, v6);
	mnl_attr_put_u32(nlh, IFLA_MPLANE_QP_QPN, 0xabcdef);
	mnl_attr_put(nlh, IFLA_MPLANE_QP_PEER + 0x40, 3, v4);	/* newer */
	mnl_attr_nest_end(nlh, qp);
	qp = mnl_attr_nest_start(nlh, IFLA_MPLANE_QP);
	mnl_attr_put(nlh, IFLA_MPLANE_QP_PEER, 5, v6);	/* neither: none */
	mnl_attr_nest_end(nlh, qp);
	mnl_attr_nest_end(nlh, qps);
	/* fill_info's last: a number after the nests. */
	mnl_attr_put_u32(nlh, IFLA_MPLANE_REORDER_US, 2000);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

static void test_parse_cc(TEST_ARGS)
{
	const struct mp_qp *q;

	assert_int_equal(mp_link_parse(cc_msg(), &lk), 0);
	assert_int_equal(lk.present, (1u << IFLA_MPLANE_POLICY) |
			 (1u << IFLA_MPLANE_CC) | (1u << IFLA_MPLANE_QPS) |
			 (1u << IFLA_MPLANE_REORDER_US));
	assert_int_equal(lk.val[IFLA_MPLANE_REORDER_US], 2000);
	/* Nests whose lengths look like numbers are not read as numbers. */
	assert_int_equal(lk.val[IFLA_MPLANE_CC], 0);
	assert_int_equal(lk.val[IFLA_MPLANE_QPS], 0);
	assert_int_equal(lk.cc_present, (1u << IFLA_MPLANE_CC_ALGO) |
			 (1u << IFLA_MPLANE_CC_CNP_INTERVAL_US) |
			 (1u << IFLA_MPLANE_CC_RATE_MAX_KBPS) |
			 (1u << IFLA_MPLANE_CC_QP_MAX) |
			 (1u << IFLA_MPLANE_CC_QP_COUNT) |
			 (1u << IFLA_MPLANE_CC_QP_EVICTIONS) |
			 (1u << IFLA_MPLANE_CC_CNP_UNKNOWN) |
			 (1u << IFLA_MPLANE_CC_BAD_BTH));
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_ALGO], MPLANE_CC_DCQCN);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_CNP_INTERVAL_US], 50);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_QP_MAX], 1024);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_QP_COUNT], 2);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_QP_EVICTIONS], 1ULL << 33);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_CNP_UNKNOWN], 3);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_BAD_BTH], 4);

	assert_int_equal(lk.nqps, 3);
	q = &lk.qps[0];
	assert_int_equal(q->present, (1u << IFLA_MPLANE_QP_PEER) |
			 (1u << IFLA_MPLANE_QP_QPN) |
			 (1u << IFLA_MPLANE_QP_RATE_KBPS) |
			 (1u << IFLA_MPLANE_QP_TARGET_KBPS) |
			 (1u << IFLA_MPLANE_QP_ALPHA) |
			 (1u << IFLA_MPLANE_QP_CNP_RX) |
			 (1u << IFLA_MPLANE_QP_CNP_TX) |
			 (1u << IFLA_MPLANE_QP_RATE_CUTS) |
			 (1u << IFLA_MPLANE_QP_TX_BYTES));
	assert_int_equal(q->peer.len, 4);
	assert_memory_equal(q->peer.bytes, v4, 4);
	assert_int_equal(q->val[IFLA_MPLANE_QP_QPN], 0x11);
	assert_int_equal(q->val[IFLA_MPLANE_QP_RATE_KBPS], 500000);
	assert_int_equal(q->val[IFLA_MPLANE_QP_TARGET_KBPS], 750000);
	assert_int_equal(q->val[IFLA_MPLANE_QP_ALPHA], 512);
	assert_int_equal(q->val[IFLA_MPLANE_QP_CNP_RX], 3);
	assert_int_equal(q->val[IFLA_MPLANE_QP_RATE_CUTS], 3);
	assert_int_equal(q->val[IFLA_MPLANE_QP_TX_BYTES], 1ULL << 40);
	q = &lk.qps[1];
	assert_int_equal(q->present, (1u << IFLA_MPLANE_QP_PEER) |
			 (1u << IFLA_MPLANE_QP_QPN));
	assert_int_equal(q->peer.len, 16);
	assert_memory_equal(q->peer.bytes, v6, 16);
	assert_int_equal(q->val[IFLA_MPLANE_QP_QPN], 0xabcdef);
	assert_int_equal(lk.qps[2].present, 0);
}

/* A kernel from before congestion control: neither nest, nothing shown. */
static void test_parse_no_cc(TEST_ARGS)
{
	assert_int_equal(mp_link_parse(device_msg(false), &lk), 0);
	assert_false(lk.present & (1u << IFLA_MPLANE_CC));
	assert_false(lk.present & (1u << IFLA_MPLANE_QPS));
	assert_int_equal(lk.cc_present, 0);
	assert_int_equal(lk.nqps, 0);
}

/* A bridge port: its slave data means the bridge's attributes. */
static void test_parse_other_master(TEST_ARGS)
{
	assert_int_equal(mp_link_parse(rail_msg("bridge"), &lk), 0);
	assert_string_equal(lk.slave_kind, "bridge");
	assert_false(mp_link_is_plane(&lk));
	assert_int_equal(lk.plane.present, 0);
	assert_int_equal(lk.plane.stats_present, 0);
}

static void test_parse_short(TEST_ARGS)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RTM_NEWLINK;
	assert_int_equal(mp_link_parse(nlh, &lk), -EINVAL);
}

static const struct nlattr *find(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

/* Settings as mp_settings_parse() (tested in test_names) makes them. */
static struct mp_settings settings;

static void set(unsigned int attr, unsigned int width, uint32_t val)
{
	settings.set |= 1u << attr;
	settings.width[attr] = width;
	settings.val[attr] = val;
}

static void set_peer(const uint8_t *addr, unsigned int len)
{
	struct mp_addr *a = &settings.peers[settings.npeers++];

	settings.set |= 1u << IFLA_MPLANE_PEERS;
	a->len = len;
	memcpy(a->bytes, addr, len);
}

/* What link set sends, read back as the kernel would read it. */
static void test_put_settings(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	const struct nlattr *info = NULL, *data, *a;

	memset(&settings, 0, sizeof(settings));
	set(IFLA_MPLANE_POLICY, 1, MPLANE_POLICY_RR);
	set(IFLA_MPLANE_PROBE_MISSES, 4, 4);
	set_peer(v4, 4);
	set_peer(v6, 16);
	assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	assert_non_null(info);
	assert_int_equal(mnl_attr_get_type(info), IFLA_LINKINFO);
	/* Strict kernels want nests flagged. */
	assert_true(info->nla_type & NLA_F_NESTED);
	assert_string_equal(mnl_attr_get_str(find(info, IFLA_INFO_KIND)), "mplane");
	assert_null(find(info, IFLA_INFO_SLAVE_KIND));
	data = find(info, IFLA_INFO_DATA);
	assert_non_null(data);
	assert_true(data->nla_type & NLA_F_NESTED);
	assert_int_equal(mnl_attr_get_payload_len(find(data, IFLA_MPLANE_POLICY)), 1);
	assert_int_equal(mnl_attr_get_payload_len(find(data, IFLA_MPLANE_PROBE_MISSES)), 4);
	assert_true(find(data, IFLA_MPLANE_PEERS)->nla_type & NLA_F_NESTED);
	assert_null(find(data, IFLA_MPLANE_FLOWLET_GAP_US));

	assert_int_equal(mp_link_parse(nlh, &lk), 0);
	assert_true(mp_link_is_mplane(&lk));
	assert_int_equal(lk.present, settings.set);
	assert_int_equal(lk.val[IFLA_MPLANE_POLICY], MPLANE_POLICY_RR);
	assert_int_equal(lk.val[IFLA_MPLANE_PROBE_MISSES], 4);
	assert_int_equal(lk.npeers, 2);
	assert_memory_equal(lk.peers, settings.peers, 2 * sizeof(lk.peers[0]));
}

/*
 * reorder-window: a u32 of IFLA_INFO_DATA itself, after the nests, read
 * back as fill_info sends it, 0 (off) as much as any other value.
 */
static void test_put_reorder(TEST_ARGS)
{
	static const uint32_t vals[] = { 2000, 0, MPLANE_REORDER_US_MAX };
	const struct nlattr *info, *data, *a;
	struct nlmsghdr *nlh;
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		nlh = newlink(0, 0);
		memset(&settings, 0, sizeof(settings));
		set(IFLA_MPLANE_REORDER_US, 4, vals[i]);
		assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
		info = NULL;
		mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
			info = a;
		data = find(info, IFLA_INFO_DATA);
		a = find(data, IFLA_MPLANE_REORDER_US);
		assert_non_null(a);
		assert_int_equal(mnl_attr_get_payload_len(a), 4);
		assert_int_equal(mnl_attr_get_u32(a), vals[i]);
		assert_null(find(data, IFLA_MPLANE_SAMPLE_INTERVAL_US));

		assert_int_equal(mp_link_parse(nlh, &lk), 0);
		assert_int_equal(lk.present, 1u << IFLA_MPLANE_REORDER_US);
		assert_int_equal(lk.val[IFLA_MPLANE_REORDER_US], vals[i]);
	}
}

/* Congestion control: a nest with the settings given, and only those. */
static void test_put_cc(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	const struct nlattr *info = NULL, *data, *cc, *a;
	unsigned int n = 0;

	memset(&settings, 0, sizeof(settings));
	set(IFLA_MPLANE_POLICY, 1, MPLANE_POLICY_RR);
	mp_settings_set_cc(&settings, IFLA_MPLANE_CC_ALGO, 1, MPLANE_CC_DCQCN);
	mp_settings_set_cc(&settings, IFLA_MPLANE_CC_RATE_MIN_KBPS, 4, 1000);
	mp_settings_set_cc(&settings, IFLA_MPLANE_CC_QP_MAX, 4, 64);
	assert_int_equal(settings.set, (1u << IFLA_MPLANE_POLICY) |
			 (1u << IFLA_MPLANE_CC));
	assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	data = find(info, IFLA_INFO_DATA);
	assert_non_null(find(data, IFLA_MPLANE_POLICY));
	cc = find(data, IFLA_MPLANE_CC);
	assert_non_null(cc);
	/* The kernel's policy is strict: NLA_F_NESTED it wants. */
	assert_true(cc->nla_type & NLA_F_NESTED);
	mnl_attr_for_each_nested(a, cc)
		n++;
	assert_int_equal(n, 3);
	assert_int_equal(mnl_attr_get_payload_len(find(cc, IFLA_MPLANE_CC_ALGO)), 1);
	assert_int_equal(mnl_attr_get_u8(find(cc, IFLA_MPLANE_CC_ALGO)),
			 MPLANE_CC_DCQCN);
	assert_int_equal(mnl_attr_get_payload_len(find(cc, IFLA_MPLANE_CC_RATE_MIN_KBPS)), 4);
	assert_int_equal(mnl_attr_get_u32(find(cc, IFLA_MPLANE_CC_QP_MAX)), 64);
	assert_null(find(data, IFLA_MPLANE_QPS));

	assert_int_equal(mp_link_parse(nlh, &lk), 0);
	assert_int_equal(lk.present, settings.set);
	assert_int_equal(lk.cc_present, settings.cc.set);
	assert_int_equal(lk.cc_val[IFLA_MPLANE_CC_RATE_MIN_KBPS], 1000);
}

/*
 * What ip's plugin appends inside the nest ip opened: the attributes
 * alone, which read back one by one (as ip hands them over) to what
 * the whole message gives.
 */
static void test_put_data_alone(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	unsigned int start = nlh->nlmsg_len, n = 0;
	const struct nlattr *a;
	static struct mp_link one;

	memset(&settings, 0, sizeof(settings));
	set(IFLA_MPLANE_POLICY, 1, MPLANE_POLICY_SPRAY);
	set(IFLA_MPLANE_FLOWLET_GAP_US, 4, 50);
	set_peer(v6, 16);
	mp_settings_set_cc(&settings, IFLA_MPLANE_CC_CNP_INTERVAL_US, 4, 60);
	assert_int_equal(mp_link_put_data(nlh, BUF_SIZE, &settings), 0);
	memset(&one, 0, sizeof(one));
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		assert_true((const char *)a >= (const char *)nlh + start);
		assert_int_not_equal(mnl_attr_get_type(a), IFLA_LINKINFO);
		mp_link_parse_device_attr(a, &one);
		n++;
	}
	assert_int_equal(n, 4);
	assert_int_equal(one.present, settings.set);
	assert_int_equal(one.val[IFLA_MPLANE_POLICY], MPLANE_POLICY_SPRAY);
	assert_int_equal(one.val[IFLA_MPLANE_FLOWLET_GAP_US], 50);
	assert_int_equal(one.npeers, 1);
	assert_int_equal(one.cc_val[IFLA_MPLANE_CC_CNP_INTERVAL_US], 60);
	/* Too small a buffer is said, not overrun. */
	nlh = newlink(0, 0);
	assert_int_equal(mp_link_put_data(nlh, nlh->nlmsg_len + 8, &settings),
			 -EMSGSIZE);
}

/* No congestion control setting: no nest, not even an empty one. */
static void test_put_no_cc(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	const struct nlattr *info = NULL, *a;

	memset(&settings, 0, sizeof(settings));
	set(IFLA_MPLANE_POLICY, 1, MPLANE_POLICY_RR);
	assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	assert_null(find(find(info, IFLA_INFO_DATA), IFLA_MPLANE_CC));
}

/* peers none: an empty nest, which clears. */
static void test_put_peers_none(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	const struct nlattr *info = NULL, *peers, *a;

	memset(&settings, 0, sizeof(settings));
	settings.set = 1u << IFLA_MPLANE_PEERS;
	assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	peers = find(find(info, IFLA_INFO_DATA), IFLA_MPLANE_PEERS);
	assert_non_null(peers);
	assert_int_equal(mnl_attr_get_payload_len(peers), 0);
	assert_int_equal(mp_link_parse(nlh, &lk), 0);
	assert_int_equal(lk.present, 1u << IFLA_MPLANE_PEERS);
	assert_int_equal(lk.npeers, 0);
}

/* link add without settings: the kind alone. */
static void test_put_no_settings(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	const struct nlattr *info = NULL, *a;

	memset(&settings, 0, sizeof(settings));
	assert_int_equal(mp_link_put_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	assert_non_null(find(info, IFLA_INFO_KIND));
	assert_null(find(info, IFLA_INFO_DATA));
}

/* Like iproute2, no IFLA_INFO_KIND: that would be the rail's own kind. */
static void test_put_plane_settings(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(7, 0);
	const struct nlattr *info = NULL, *data, *a;

	memset(&settings, 0, sizeof(settings));
	set(IFLA_MPLANE_PLANE_WEIGHT, 4, 40);
	set(IFLA_MPLANE_PLANE_ADMIN, 1, MPLANE_ADMIN_DOWN);
	assert_int_equal(mp_link_put_plane_settings(nlh, BUF_SIZE, &settings), 0);
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		info = a;
	assert_null(find(info, IFLA_INFO_KIND));
	assert_null(find(info, IFLA_INFO_DATA));
	assert_string_equal(mnl_attr_get_str(find(info, IFLA_INFO_SLAVE_KIND)),
			    "mplane");
	data = find(info, IFLA_INFO_SLAVE_DATA);
	assert_int_equal(mnl_attr_get_payload_len(find(data, IFLA_MPLANE_PLANE_ADMIN)), 1);
	assert_int_equal(mnl_attr_get_payload_len(find(data, IFLA_MPLANE_PLANE_WEIGHT)), 4);
	assert_null(find(data, IFLA_MPLANE_PLANE_ID));

	mnl_attr_put_u32(nlh, IFLA_MASTER, 5);
	assert_int_equal(mp_link_parse(nlh, &lk), 0);
	assert_true(mp_link_is_plane(&lk));
	assert_int_equal(lk.plane.present, settings.set);
	assert_int_equal(lk.plane.val[IFLA_MPLANE_PLANE_WEIGHT], 40);
	assert_int_equal(lk.plane.val[IFLA_MPLANE_PLANE_ADMIN], MPLANE_ADMIN_DOWN);
}

static void test_put_too_small(TEST_ARGS)
{
	struct nlmsghdr *nlh = newlink(0, 0);
	int i;

	memset(&settings, 0, sizeof(settings));
	for (i = 0; i < 4; i++)
		set_peer(v6, 16);
	assert_int_equal(mp_link_put_settings(nlh, nlh->nlmsg_len + 64, &settings),
			 -EMSGSIZE);
}

/* ----- acks ----- */

struct ack {
	int error;
	bool capped;
	bool tlvs;
	const char *msg;		/* NLMSGERR_ATTR_MSG */
	bool offs_first;		/* NLMSGERR_ATTR_OFFS before it */
	bool unterminated;
};

/* An ack of a 40-byte request (a header, ifinfomsg and one u64), the way
 * netlink_ack() lays it out. */
static struct nlmsghdr *ack_msg(const struct ack *a)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	char *payload;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = (a->capped ? NLM_F_CAPPED : 0) |
			   (a->tlvs ? NLM_F_ACK_TLVS : 0);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = a->error;
	e->msg.nlmsg_len = 40;
	e->msg.nlmsg_type = RTM_NEWLINK;
	if (!a->capped) {
		payload = mnl_nlmsg_put_extra_header(nlh, 40 - NLMSG_HDRLEN);
		memset(payload, 0xab, 40 - NLMSG_HDRLEN);
	}
	if (a->offs_first)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
	if (a->msg && a->unterminated)
		mnl_attr_put(nlh, NLMSGERR_ATTR_MSG, strlen(a->msg), a->msg);
	else if (a->msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, a->msg);
	return nlh;
}

static void check_ack(const struct ack *a, int want_err, const char *want_msg)
{
	const char *msg = "untouched";
	int error = 12345;

	assert_int_equal(mp_nlerr_parse(ack_msg(a), &error, &msg), 0);
	assert_int_equal(error, want_err);
	if (want_msg)
		assert_string_equal(msg, want_msg);
	else
		assert_null(msg);
}

static void test_ack_uncapped(TEST_ARGS)
{
	struct ack a = { .error = -ERANGE, .tlvs = true,
			 .msg = "mplane: probe interval must be 50 to 1000000 us" };

	check_ack(&a, -ERANGE, a.msg);
}

static void test_ack_capped(TEST_ARGS)
{
	struct ack a = { .error = -EINVAL, .capped = true, .tlvs = true,
			 .msg = "mplane: the plane index is read-only" };

	check_ack(&a, -EINVAL, a.msg);
}

static void test_ack_offs_first(TEST_ARGS)
{
	struct ack a = { .error = -EINVAL, .capped = true, .tlvs = true,
			 .msg = "bad", .offs_first = true };
	struct ack b = a;

	check_ack(&a, -EINVAL, "bad");
	b.capped = false;
	check_ack(&b, -EINVAL, "bad");
}

static void test_ack_without_text(TEST_ARGS)
{
	struct ack plain = { .error = -EOPNOTSUPP, .capped = true };
	struct ack offs_only = { .error = -EINVAL, .tlvs = true,
				 .offs_first = true };
	struct ack ok = { .error = 0, .capped = true };
	/* TLVs are only looked for when the flag says they are there. */
	struct ack unflagged = { .error = -EINVAL, .msg = "ignored" };
	struct ack unterminated = { .error = -EINVAL, .tlvs = true,
				    .msg = "abcd", .unterminated = true };

	check_ack(&plain, -EOPNOTSUPP, NULL);
	check_ack(&offs_only, -EINVAL, NULL);
	check_ack(&ok, 0, NULL);
	check_ack(&unflagged, -EINVAL, NULL);
	check_ack(&unterminated, -EINVAL, NULL);
}

/* A request said to be longer than the ack holds: the error, no text. */
static void test_ack_bad_length(TEST_ARGS)
{
	struct ack a = { .error = -EINVAL, .tlvs = true, .msg = "x" };
	struct nlmsghdr *nlh = ack_msg(&a);
	struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const char *msg;
	int error;

	e->msg.nlmsg_len = 4000;
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), 0);
	assert_int_equal(error, -EINVAL);
	assert_null(msg);

	e->msg.nlmsg_len = 3;
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), 0);
	assert_null(msg);

	nlh->nlmsg_len = NLMSG_HDRLEN + 4;
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), -EINVAL);
}

static void test_done(TEST_ARGS)
{
	struct nlmsghdr *nlh;
	const char *msg;
	int *err, error;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	/* Old kernels: no payload at all. */
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), 0);
	assert_int_equal(error, 0);
	assert_null(msg);

	err = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*err = -EMSGSIZE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "dump too big");
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), 0);
	assert_int_equal(error, -EMSGSIZE);
	assert_string_equal(msg, "dump too big");

	nlh->nlmsg_type = RTM_NEWLINK;
	assert_int_equal(mp_nlerr_parse(nlh, &error, &msg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_device),
		cmocka_unit_test(test_parse_device_data_first),
		cmocka_unit_test(test_parse_other_kind),
		cmocka_unit_test(test_parse_rail),
		cmocka_unit_test(test_parse_cc),
		cmocka_unit_test(test_parse_no_cc),
		cmocka_unit_test(test_parse_other_master),
		cmocka_unit_test(test_parse_short),
		cmocka_unit_test(test_put_settings),
		cmocka_unit_test(test_put_reorder),
		cmocka_unit_test(test_put_cc),
		cmocka_unit_test(test_put_no_cc),
		cmocka_unit_test(test_put_data_alone),
		cmocka_unit_test(test_put_peers_none),
		cmocka_unit_test(test_put_no_settings),
		cmocka_unit_test(test_put_plane_settings),
		cmocka_unit_test(test_put_too_small),
		cmocka_unit_test(test_ack_uncapped),
		cmocka_unit_test(test_ack_capped),
		cmocka_unit_test(test_ack_offs_first),
		cmocka_unit_test(test_ack_without_text),
		cmocka_unit_test(test_ack_bad_length),
		cmocka_unit_test(test_done),
	};

	return cmocka_run_group_tests_name("linkmsg", tests, NULL, NULL);
}
