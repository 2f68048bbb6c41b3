// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_names.c: the names of mplane's uapi values
 * and the keyword-value settings of 'mplanectl link add/set/plane'.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mp_names.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define ARGC(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* Every table names each value of its uapi enum, and reads it back. */
static void test_names_round_trip(TEST_ARGS)
{
	const struct mp_names *tables[] = {
		&mp_policy_names, &mp_gso_names, &mp_admin_names,
		&mp_state_names, &mp_reason_names, &mp_fault_action_names,
		&mp_fault_target_names, &mp_fault_via_names,
	};
	const unsigned int counts[] = {
		__MPLANE_POLICY_MAX, __MPLANE_GSO_MAX, __MPLANE_ADMIN_MAX,
		__MPLANE_PLANE_STATE_MAX, __MPLANE_REASON_MAX,
		__MPLANE_FAULT_MAX, __MPLANE_FAULT_TARGET_MAX,
		__MPLANE_FAULT_VIA_MAX,
	};
	unsigned int t, v;
	uint32_t back;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		assert_int_equal(tables[t]->count, counts[t]);
		for (v = 0; v < counts[t]; v++) {
			assert_non_null(mp_name(tables[t], v));
			assert_int_equal(mp_name_parse(tables[t],
						       mp_name(tables[t], v),
						       &back), 0);
			assert_int_equal(back, v);
		}
		/* A newer kernel's value has no name here. */
		assert_null(mp_name(tables[t], counts[t]));
		assert_null(mp_name(tables[t], 1000));
	}
}

/* Names are the uapi suffixes in lower case. */
static void test_names_spelling(TEST_ARGS)
{
	assert_string_equal(mp_name(&mp_policy_names, MPLANE_POLICY_RR), "rr");
	assert_string_equal(mp_name(&mp_gso_names, MPLANE_GSO_SEGMENT), "segment");
	assert_string_equal(mp_name(&mp_admin_names, MPLANE_ADMIN_DRAIN), "drain");
	assert_string_equal(mp_name(&mp_state_names, MPLANE_PLANE_ADMIN_DOWN),
			    "admin_down");
	assert_string_equal(mp_name(&mp_reason_names, MPLANE_REASON_PROBE_MISS),
			    "probe_miss");
	assert_string_equal(mp_name(&mp_reason_names, MPLANE_REASON_MASTER_DOWN),
			    "master_down");
	assert_string_equal(mp_name(&mp_operstate_names, 6), "up");
	assert_string_equal(mp_name(&mp_operstate_names, 3), "lowerlayerdown");
}

static void test_pstat_names(TEST_ARGS)
{
	static const char *const want[] = {
		NULL, "tx_packets", "tx_bytes", "rx_packets", "rx_bytes",
		"selections", "drop_no_route", "drop_xmit", "state_changes",
		"failovers", "ecn_ce", "cnp", "probes_sent", "probes_lost",
		NULL, "cnp_sent", "rate_cuts", "probes_refused",
		"probes_throttled", "reorder_held", "reorder_filled",
		"reorder_expired", "reorder_overflows",
	};
	unsigned int i;

	/* UNSPEC and PAD are not counters; PAD sits among them, and the
	 * counters of congestion control come after it. */
	assert_int_equal(IFLA_MPLANE_PSTAT_CNP_SENT, IFLA_MPLANE_PSTAT_PAD + 1);
	assert_int_equal(mp_pstat_names.count, IFLA_MPLANE_PSTAT_MAX + 1);
	assert_int_equal(mp_pstat_names.count, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < mp_pstat_names.count; i++) {
		if (want[i])
			assert_string_equal(mp_name(&mp_pstat_names, i), want[i]);
		else
			assert_null(mp_name(&mp_pstat_names, i));
	}
	assert_null(mp_name(&mp_pstat_names, IFLA_MPLANE_PSTAT_PAD));
	assert_string_equal(mp_name(&mp_pstat_names, IFLA_MPLANE_PSTAT_CNP_SENT),
			    "cnp_sent");
	assert_string_equal(mp_name(&mp_pstat_names, IFLA_MPLANE_PSTAT_RATE_CUTS),
			    "rate_cuts");
	assert_string_equal(mp_name(&mp_pstat_names,
				    IFLA_MPLANE_PSTAT_REORDER_HELD),
			    "reorder_held");
	assert_string_equal(mp_name(&mp_pstat_names,
				    IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS),
			    "reorder_overflows");
	assert_null(mp_name(&mp_pstat_names, __IFLA_MPLANE_PSTAT_MAX));
}

static void test_cc_names(TEST_ARGS)
{
	uint32_t v;

	assert_string_equal(mp_name(&mp_cc_names, MPLANE_CC_OFF), "off");
	assert_string_equal(mp_name(&mp_cc_names, MPLANE_CC_DCQCN), "dcqcn");
	assert_string_equal(mp_name(&mp_cc_names, MPLANE_CC_NOTIFY), "notify");
	assert_null(mp_name(&mp_cc_names, __MPLANE_CC_MAX));
	assert_int_equal(mp_name_parse(&mp_cc_names, "notify", &v), 0);
	assert_int_equal(v, MPLANE_CC_NOTIFY);
	assert_int_equal(mp_name_parse(&mp_cc_names, "dcqcn", &v), 0);
	assert_int_equal(v, MPLANE_CC_DCQCN);
}

static void test_name_parse_exact(TEST_ARGS)
{
	uint32_t v = 77;

	assert_int_equal(mp_name_parse(&mp_policy_names, "Flowlet", &v), -EINVAL);
	assert_int_equal(mp_name_parse(&mp_policy_names, "flow", &v), -EINVAL);
	assert_int_equal(mp_name_parse(&mp_policy_names, "flowlets", &v), -EINVAL);
	assert_int_equal(mp_name_parse(&mp_policy_names, "", &v), -EINVAL);
	assert_int_equal(v, 77);
	assert_int_equal(mp_name_parse(&mp_policy_names, "spray", &v), 0);
	assert_int_equal(v, MPLANE_POLICY_SPRAY);
}

static void test_names_join(TEST_ARGS)
{
	char buf[64], small[8];

	assert_string_equal(mp_names_join(&mp_policy_names, "|", buf, sizeof(buf)),
			    "flowlet|hash|rr|spray");
	assert_string_equal(mp_names_join(&mp_admin_names, ", ", buf, sizeof(buf)),
			    "up, drain, down");
	/* Cut, never overrun. */
	mp_names_join(&mp_policy_names, "|", small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_parse_u32(TEST_ARGS)
{
	uint32_t v = 5;

	assert_int_equal(mp_parse_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(mp_parse_u32("1000000", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(mp_parse_u32("007", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(mp_parse_u32("4294967295", &v), 0);
	assert_int_equal(v, UINT32_MAX);

	assert_int_equal(mp_parse_u32("4294967296", &v), -ERANGE);
	assert_int_equal(mp_parse_u32("99999999999999999999999", &v), -ERANGE);
	assert_int_equal(v, UINT32_MAX);

	assert_int_equal(mp_parse_u32("", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("-1", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("+1", &v), -EINVAL);
	assert_int_equal(mp_parse_u32(" 1", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("1 ", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("0x10", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("100us", &v), -EINVAL);
	assert_int_equal(mp_parse_u32("1e3", &v), -EINVAL);
}

static void test_addr(TEST_ARGS)
{
	static const uint8_t v4[4] = { 10, 0, 0, 2 };
	char buf[MP_ADDR_STRLEN];
	struct mp_addr a;

	assert_int_equal(mp_parse_addr("10.0.0.2", &a), 0);
	assert_int_equal(a.len, 4);
	assert_memory_equal(a.bytes, v4, 4);
	assert_string_equal(mp_addr_str(&a, buf, sizeof(buf)), "10.0.0.2");

	assert_int_equal(mp_parse_addr("fd00::2", &a), 0);
	assert_int_equal(a.len, 16);
	assert_int_equal(a.bytes[0], 0xfd);
	assert_int_equal(a.bytes[15], 2);
	assert_string_equal(mp_addr_str(&a, buf, sizeof(buf)), "fd00::2");

	assert_int_equal(mp_parse_addr("::ffff:10.0.0.2", &a), 0);
	assert_int_equal(a.len, 16);

	assert_int_equal(mp_parse_addr("10.0.0.256", &a), -EINVAL);
	assert_int_equal(mp_parse_addr("10.0.0", &a), -EINVAL);
	assert_int_equal(mp_parse_addr("host.example", &a), -EINVAL);
	assert_int_equal(mp_parse_addr("[fd00::2]", &a), -EINVAL);
	assert_int_equal(mp_parse_addr("", &a), -EINVAL);

	a.len = 5;
	assert_string_equal(mp_addr_str(&a, buf, sizeof(buf)), "?");
}

static int parse(const struct mp_setting *table, int argc, char **argv,
		 struct mp_settings *s, char *err)
{
	err[0] = '\0';
	return mp_settings_parse(table, argc, argv, s, err, 256);
}

static void test_settings_all(TEST_ARGS)
{
	char *argv[] = {
		"policy", "spray", "flowlet-gap", "50", "probe-interval", "500",
		"probe-misses", "5", "holddown", "200", "cong-threshold", "10",
		"cong-halflife", "2000", "gso", "segment",
		"peers", "10.0.0.2,fd00::2",
	};
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	assert_string_equal(err, "");
	assert_int_equal(s.set, (1u << IFLA_MPLANE_POLICY) |
			 (1u << IFLA_MPLANE_FLOWLET_GAP_US) |
			 (1u << IFLA_MPLANE_PROBE_INTERVAL_US) |
			 (1u << IFLA_MPLANE_PROBE_MISSES) |
			 (1u << IFLA_MPLANE_HOLDDOWN_MS) |
			 (1u << IFLA_MPLANE_CONG_THRESHOLD) |
			 (1u << IFLA_MPLANE_CONG_HALFLIFE_US) |
			 (1u << IFLA_MPLANE_GSO_MODE) |
			 (1u << IFLA_MPLANE_PEERS));
	/* u8 where the uapi says u8, u32 elsewhere. */
	assert_int_equal(s.width[IFLA_MPLANE_POLICY], 1);
	assert_int_equal(s.val[IFLA_MPLANE_POLICY], MPLANE_POLICY_SPRAY);
	assert_int_equal(s.width[IFLA_MPLANE_GSO_MODE], 1);
	assert_int_equal(s.val[IFLA_MPLANE_GSO_MODE], MPLANE_GSO_SEGMENT);
	assert_int_equal(s.width[IFLA_MPLANE_FLOWLET_GAP_US], 4);
	assert_int_equal(s.val[IFLA_MPLANE_FLOWLET_GAP_US], 50);
	assert_int_equal(s.val[IFLA_MPLANE_PROBE_INTERVAL_US], 500);
	assert_int_equal(s.val[IFLA_MPLANE_PROBE_MISSES], 5);
	assert_int_equal(s.val[IFLA_MPLANE_HOLDDOWN_MS], 200);
	assert_int_equal(s.val[IFLA_MPLANE_CONG_THRESHOLD], 10);
	assert_int_equal(s.val[IFLA_MPLANE_CONG_HALFLIFE_US], 2000);
	assert_int_equal(s.npeers, 2);
	assert_int_equal(s.peers[0].len, 4);
	assert_int_equal(s.peers[1].len, 16);
}

/* Every keyword of congestion control, as the example has them. */
static void test_settings_cc(TEST_ARGS)
{
	char *argv[] = {
		"cc", "dcqcn", "cnp-interval", "50", "rate-max", "20000",
		"rate-min", "1000", "rate-ai", "5000", "rate-hai", "50000",
		"time-reset", "300", "byte-reset", "32767", "threshold", "1",
		"alpha-g", "1019", "alpha-period", "1", "alpha-initial", "1023",
		"reduce-period", "4", "min-dec-fac", "50", "qp-max", "1024",
		"policy", "hash",
	};
	static const struct { unsigned int attr; uint32_t val; } want[] = {
		{ IFLA_MPLANE_CC_CNP_INTERVAL_US, 50 },
		{ IFLA_MPLANE_CC_RATE_MAX_KBPS, 20000 },
		{ IFLA_MPLANE_CC_RATE_MIN_KBPS, 1000 },
		{ IFLA_MPLANE_CC_RATE_AI_KBPS, 5000 },
		{ IFLA_MPLANE_CC_RATE_HAI_KBPS, 50000 },
		{ IFLA_MPLANE_CC_TIME_RESET_US, 300 },
		{ IFLA_MPLANE_CC_BYTE_RESET, 32767 },
		{ IFLA_MPLANE_CC_THRESHOLD, 1 },
		{ IFLA_MPLANE_CC_ALPHA_G, 1019 },
		{ IFLA_MPLANE_CC_ALPHA_PERIOD_US, 1 },
		{ IFLA_MPLANE_CC_ALPHA_INITIAL, 1023 },
		{ IFLA_MPLANE_CC_REDUCE_PERIOD_US, 4 },
		{ IFLA_MPLANE_CC_MIN_DEC_FAC, 50 },
		{ IFLA_MPLANE_CC_QP_MAX, 1024 },
	};
	static struct mp_settings s;
	uint32_t cc_set = 1u << IFLA_MPLANE_CC_ALGO;
	char err[256];
	unsigned int i;

	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	assert_string_equal(err, "");
	/* The nest is one attribute of IFLA_INFO_DATA, next to the others. */
	assert_int_equal(s.set, (1u << IFLA_MPLANE_CC) |
			 (1u << IFLA_MPLANE_POLICY));
	assert_int_equal(s.width[IFLA_MPLANE_CC], 0);
	assert_int_equal(s.cc.width[IFLA_MPLANE_CC_ALGO], 1);
	assert_int_equal(s.cc.val[IFLA_MPLANE_CC_ALGO], MPLANE_CC_DCQCN);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(s.cc.width[want[i].attr], 4);
		assert_int_equal(s.cc.val[want[i].attr], want[i].val);
		cc_set |= 1u << want[i].attr;
	}
	assert_int_equal(s.cc.set, cc_set);
	/* The read-only counters have no keyword. */
	assert_false(s.cc.set & ((1u << IFLA_MPLANE_CC_QP_COUNT) |
				 (1u << IFLA_MPLANE_CC_QP_EVICTIONS) |
				 (1u << IFLA_MPLANE_CC_CNP_UNKNOWN) |
				 (1u << IFLA_MPLANE_CC_BAD_BTH)));
}

/* Any one of them alone; and ranges are the kernel's here too. */
static void test_settings_cc_subset(TEST_ARGS)
{
	char *argv[] = { "rate-min", "1", "qp-max", "4294967295" };
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	assert_int_equal(s.set, 1u << IFLA_MPLANE_CC);
	assert_int_equal(s.cc.set, (1u << IFLA_MPLANE_CC_RATE_MIN_KBPS) |
			 (1u << IFLA_MPLANE_CC_QP_MAX));
	assert_int_equal(s.cc.val[IFLA_MPLANE_CC_RATE_MIN_KBPS], 1);
	assert_int_equal(s.cc.val[IFLA_MPLANE_CC_QP_MAX], UINT32_MAX);
}

/* Ranges are the kernel's: out-of-range numbers parse. */
static void test_settings_no_local_range(TEST_ARGS)
{
	char *argv[] = { "probe-interval", "1", "probe-misses", "100000" };
	char *plane[] = { "weight", "4294967295" };
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	assert_int_equal(s.val[IFLA_MPLANE_PROBE_INTERVAL_US], 1);
	assert_int_equal(s.val[IFLA_MPLANE_PROBE_MISSES], 100000);
	assert_int_equal(parse(mp_plane_settings, ARGC(plane), plane, &s, err), 0);
	assert_int_equal(s.val[IFLA_MPLANE_PLANE_WEIGHT], UINT32_MAX);
}

static void test_settings_empty(TEST_ARGS)
{
	static struct mp_settings s;
	char err[256];

	memset(&s, 0xff, sizeof(s));
	assert_int_equal(parse(mp_link_settings, 0, NULL, &s, err), 0);
	assert_int_equal(s.set, 0);
	assert_int_equal(s.npeers, 0);
}

/* "US|off": off is 0, which turns the sampler off. */
static void test_settings_off(TEST_ARGS)
{
	static char *words[] = { "sample-interval", "off" };
	static struct mp_settings s;
	char err[256];

	memset(&s, 0xff, sizeof(s));
	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), 0);
	assert_int_equal(s.set, 1u << IFLA_MPLANE_SAMPLE_INTERVAL_US);
	assert_int_equal(s.val[IFLA_MPLANE_SAMPLE_INTERVAL_US], 0);
	assert_int_equal(s.width[IFLA_MPLANE_SAMPLE_INTERVAL_US], 4);
	/* Only where the syntax says so. */
	words[0] = "flowlet-gap";
	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), -EINVAL);
	assert_string_equal(err, "bad flowlet-gap 'off': want a decimal integer");
	words[0] = "sample-interval";
}

/* reorder-window: "US|off" as sample-interval, but 0 is in its range. */
static void test_settings_reorder(TEST_ARGS)
{
	static char *words[] = { "reorder-window", "2000" };
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), 0);
	assert_string_equal(err, "");
	assert_int_equal(s.set, 1u << IFLA_MPLANE_REORDER_US);
	assert_int_equal(s.width[IFLA_MPLANE_REORDER_US], 4);
	assert_int_equal(s.val[IFLA_MPLANE_REORDER_US], 2000);

	words[1] = "off";
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), 0);
	assert_int_equal(s.set, 1u << IFLA_MPLANE_REORDER_US);
	assert_int_equal(s.val[IFLA_MPLANE_REORDER_US], 0);
	words[1] = "0";
	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), 0);
	assert_int_equal(s.val[IFLA_MPLANE_REORDER_US], 0);

	/* Above MPLANE_REORDER_US_MAX: the kernel refuses it, naming
	 * IFLA_MPLANE_REORDER_US and its range; here it is only a number. */
	words[1] = "100001";
	assert_int_equal(parse(mp_link_settings, 2, words, &s, err), 0);
	assert_int_equal(s.val[IFLA_MPLANE_REORDER_US], MPLANE_REORDER_US_MAX + 1);
	words[1] = "2000";
}

static void test_settings_peers_none(TEST_ARGS)
{
	char *argv[] = { "peers", "none" };
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	/* Given, and empty: the empty nest that clears the peers. */
	assert_int_equal(s.set, 1u << IFLA_MPLANE_PEERS);
	assert_int_equal(s.npeers, 0);
}

static void test_settings_peers_many(TEST_ARGS)
{
	static char list[MP_PEERS_MAX * 16 + 32];
	char *argv[] = { "peers", list };
	static struct mp_settings s;
	char err[256];
	size_t len = 0;
	int i;

	for (i = 0; i < MP_PEERS_MAX; i++)
		len += sprintf(list + len, "%s10.0.%d.%d", i ? "," : "",
			       i / 250, i % 250 + 1);
	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), 0);
	assert_int_equal(s.npeers, MP_PEERS_MAX);
	/* One more than a request holds is refused here. */
	strcat(list, ",10.9.9.9");
	assert_int_equal(parse(mp_link_settings, ARGC(argv), argv, &s, err), -EINVAL);
	assert_non_null(strstr(err, "more than"));
}

struct bad {
	const char *words[4];
	const char *msg;
};

static void test_settings_errors(TEST_ARGS)
{
	static const struct bad bad[] = {
		{ { "frobnicate", "1" }, "unknown setting 'frobnicate'" },
		{ { "policy" }, "'policy' needs a value" },
		{ { "policy", "rr", "policy", "hash" }, "'policy' given twice" },
		{ { "policy", "ecmp" },
		  "bad policy 'ecmp': want flowlet|hash|rr|spray" },
		{ { "gso", "partial" }, "bad gso 'partial': want whole|segment" },
		{ { "flowlet-gap", "100us" },
		  "bad flowlet-gap '100us': want a decimal integer" },
		{ { "holddown", "-1" }, "bad holddown '-1': want a decimal integer" },
		{ { "probe-misses", "4294967296" },
		  "bad probe-misses '4294967296': more than 4294967295" },
		{ { "peers", "10.0.0.1,,10.0.0.2" },
		  "bad peer '': want an IPv4 or IPv6 address, or none" },
		{ { "peers", "10.0.0.1," },
		  "bad peer '': want an IPv4 or IPv6 address, or none" },
		{ { "peers", "" },
		  "bad peer '': want an IPv4 or IPv6 address, or none" },
		{ { "peers", "10.0.0.1,none" },
		  "bad peer 'none': want an IPv4 or IPv6 address, or none" },
		{ { "peers", "peer.example" },
		  "bad peer 'peer.example': want an IPv4 or IPv6 address, or none" },
		{ { "sample-interval", "soon" },
		  "bad sample-interval 'soon': want a decimal integer or off" },
		{ { "reorder-window", "2ms" },
		  "bad reorder-window '2ms': want a decimal integer or off" },
		{ { "reorder-window", "-1" },
		  "bad reorder-window '-1': want a decimal integer or off" },
		{ { "reorder-window", "1", "reorder-window", "2" },
		  "'reorder-window' given twice" },
		/* Plane settings are not device settings. */
		{ { "weight", "1" }, "unknown setting 'weight'" },
	};
	static struct mp_settings s;
	char err[256];
	unsigned int i;
	int argc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (argc = 0; argc < 4 && bad[i].words[argc]; argc++)
			;
		assert_int_equal(parse(mp_link_settings, argc,
				       (char **)bad[i].words, &s, err), -EINVAL);
		assert_string_equal(err, bad[i].msg);
	}
}

static void test_settings_cc_errors(TEST_ARGS)
{
	static const struct bad bad[] = {
		{ { "cc", "cubic" }, "bad cc 'cubic': want off|dcqcn|notify" },
		{ { "rate-max", "fast" },
		  "bad rate-max 'fast': want a decimal integer" },
		{ { "rate-min", "1mbit" },
		  "bad rate-min '1mbit': want a decimal integer" },
		{ { "alpha-g", "0.99" },
		  "bad alpha-g '0.99': want a decimal integer" },
		{ { "qp-max", "4294967296" },
		  "bad qp-max '4294967296': more than 4294967295" },
		{ { "cc", "dcqcn", "cc", "off" }, "'cc' given twice" },
		{ { "rate-ai", "1", "rate-ai", "2" }, "'rate-ai' given twice" },
		{ { "threshold" }, "'threshold' needs a value" },
		/* Read-only: no keyword. */
		{ { "qp-count", "1" }, "unknown setting 'qp-count'" },
	};
	static struct mp_settings s;
	char err[256];
	unsigned int i;
	int argc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (argc = 0; argc < 4 && bad[i].words[argc]; argc++)
			;
		assert_int_equal(parse(mp_link_settings, argc,
				       (char **)bad[i].words, &s, err), -EINVAL);
		assert_string_equal(err, bad[i].msg);
	}
}

static void test_plane_settings(TEST_ARGS)
{
	char *argv[] = { "admin", "drain", "weight", "0" };
	char *bad[] = { "admin", "off" };
	char *dev[] = { "policy", "rr" };
	static struct mp_settings s;
	char err[256];

	assert_int_equal(parse(mp_plane_settings, ARGC(argv), argv, &s, err), 0);
	assert_int_equal(s.set, (1u << IFLA_MPLANE_PLANE_ADMIN) |
			 (1u << IFLA_MPLANE_PLANE_WEIGHT));
	assert_int_equal(s.width[IFLA_MPLANE_PLANE_ADMIN], 1);
	assert_int_equal(s.val[IFLA_MPLANE_PLANE_ADMIN], MPLANE_ADMIN_DRAIN);
	assert_int_equal(s.width[IFLA_MPLANE_PLANE_WEIGHT], 4);
	assert_int_equal(s.val[IFLA_MPLANE_PLANE_WEIGHT], 0);

	assert_int_equal(parse(mp_plane_settings, ARGC(bad), bad, &s, err), -EINVAL);
	assert_string_equal(err, "bad admin 'off': want up|drain|down");
	assert_int_equal(parse(mp_plane_settings, ARGC(dev), dev, &s, err), -EINVAL);
	assert_string_equal(err, "unknown setting 'policy'");
}

static const struct mp_setting *setting(const struct mp_setting *t,
					const char *keyword)
{
	for (; t->keyword; t++)
		if (!strcmp(t->keyword, keyword))
			return t;
	fail_msg("no setting %s", keyword);
	return NULL;
}

/* --help shows the uapi's ranges and defaults. */
static void test_setting_help(TEST_ARGS)
{
	char syntax[128], limits[128];

	mp_setting_help(setting(mp_link_settings, "policy"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "policy flowlet|hash|rr|spray");
	assert_string_equal(limits, "default flowlet");

	mp_setting_help(setting(mp_link_settings, "probe-interval"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "probe-interval US");
	assert_string_equal(limits, "50 to 1000000, default 1000");

	mp_setting_help(setting(mp_link_settings, "holddown"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(limits, "at most 60000, default 50");

	mp_setting_help(setting(mp_link_settings, "cong-threshold"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(limits, "default 64");

	mp_setting_help(setting(mp_link_settings, "peers"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "peers ADDR[,ADDR...]|none");
	assert_string_equal(limits, "at most 64");

	mp_setting_help(setting(mp_link_settings, "reorder-window"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "reorder-window US|off");
	assert_string_equal(limits, "at most 100000, default 0");

	mp_setting_help(setting(mp_plane_settings, "weight"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(limits, "at most 1000000, default 0");

	mp_setting_help(setting(mp_link_settings, "cc"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "cc off|dcqcn|notify");
	assert_string_equal(limits, "default off");

	mp_setting_help(setting(mp_link_settings, "rate-min"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "rate-min KBPS");
	assert_string_equal(limits, "10 to 400000000, default 1000");

	mp_setting_help(setting(mp_link_settings, "cnp-interval"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(syntax, "cnp-interval US");
	assert_string_equal(limits, "at most 1000000, default 50");

	mp_setting_help(setting(mp_link_settings, "qp-max"), syntax,
			sizeof(syntax), limits, sizeof(limits));
	assert_string_equal(limits, "16 to 65536, default 1024");
}

/* Each keyword of the nest has its default, the uapi's, and one attribute. */
static void test_cc_table(TEST_ARGS)
{
	static const struct { const char *kw; uint32_t def; } defs[] = {
		{ "cc", MPLANE_CC_OFF },
		{ "cnp-interval", MPLANE_CC_CNP_INTERVAL_US_DEFAULT },
		{ "rate-max", MPLANE_CC_RATE_MAX_KBPS_DEFAULT },
		{ "rate-min", MPLANE_CC_RATE_MIN_KBPS_DEFAULT },
		{ "rate-ai", MPLANE_CC_RATE_AI_KBPS_DEFAULT },
		{ "rate-hai", MPLANE_CC_RATE_HAI_KBPS_DEFAULT },
		{ "time-reset", MPLANE_CC_TIME_RESET_US_DEFAULT },
		{ "byte-reset", MPLANE_CC_BYTE_RESET_DEFAULT },
		{ "threshold", MPLANE_CC_THRESHOLD_DEFAULT },
		{ "alpha-g", MPLANE_CC_ALPHA_G_DEFAULT },
		{ "alpha-period", MPLANE_CC_ALPHA_PERIOD_US_DEFAULT },
		{ "alpha-initial", MPLANE_CC_ALPHA_INITIAL_DEFAULT },
		{ "reduce-period", MPLANE_CC_REDUCE_PERIOD_US_DEFAULT },
		{ "min-dec-fac", MPLANE_CC_MIN_DEC_FAC_DEFAULT },
		{ "qp-max", MPLANE_CC_QP_MAX_DEFAULT },
	};
	const struct mp_setting *st;
	uint32_t seen = 0;
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		st = setting(mp_link_settings, defs[i].kw);
		assert_int_equal(st->nest, IFLA_MPLANE_CC);
		assert_true(st->has_def);
		assert_int_equal(st->def, defs[i].def);
		assert_false(seen & (1u << st->attr));
		seen |= 1u << st->attr;
	}
	for (st = mp_link_settings; st->keyword; st++)
		n += st->nest == IFLA_MPLANE_CC;
	/* Every setting of the nest: all but the counters and PAD. */
	assert_int_equal(n, IFLA_MPLANE_CC_QP_COUNT - 1);
	assert_int_equal(n, sizeof(defs) / sizeof(defs[0]));
}

/* Every setting of IFLA_INFO_DATA itself has its JSON key, for link show. */
static void test_device_fields(TEST_ARGS)
{
	const struct mp_setting *st;
	const struct mp_field *f;

	for (st = mp_link_settings; st->keyword; st++) {
		if (st->nest || !st->width)
			continue;
		for (f = mp_device_fields; f->key; f++)
			if (f->attr == st->attr)
				break;
		if (!f->key)
			fail_msg("setting %s has no JSON key", st->keyword);
	}
	for (f = mp_device_fields; f->key; f++)
		if (f->attr == IFLA_MPLANE_REORDER_US)
			break;
	assert_non_null(f->key);
	assert_string_equal(f->key, "reorder_us");
	assert_null(f->names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_names_spelling),
		cmocka_unit_test(test_pstat_names),
		cmocka_unit_test(test_cc_names),
		cmocka_unit_test(test_name_parse_exact),
		cmocka_unit_test(test_names_join),
		cmocka_unit_test(test_parse_u32),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_settings_all),
		cmocka_unit_test(test_settings_no_local_range),
		cmocka_unit_test(test_settings_empty),
		cmocka_unit_test(test_settings_off),
		cmocka_unit_test(test_settings_reorder),
		cmocka_unit_test(test_settings_peers_none),
		cmocka_unit_test(test_settings_peers_many),
		cmocka_unit_test(test_settings_errors),
		cmocka_unit_test(test_settings_cc),
		cmocka_unit_test(test_settings_cc_subset),
		cmocka_unit_test(test_settings_cc_errors),
		cmocka_unit_test(test_cc_table),
		cmocka_unit_test(test_plane_settings),
		cmocka_unit_test(test_setting_help),
		cmocka_unit_test(test_device_fields),
	};

	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
