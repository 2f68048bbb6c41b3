// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_fabric.c: a fabric's state file as the
 * other tools load it, the keys added with mp0 and netem (and what a file
 * written before them means), and the address a workload uses to reach
 * a host.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "mp_fabric.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

/* A host's port r0 to p0l0, and the leaf's back; %s: more keys. */
#define HOST(h, mp0)							\
	"{\"name\": \"h" #h "\", \"netns\": \"t-h" #h "\", \"role\": \"host\","	\
	" \"plane\": -1, \"index\": " #h ","				\
	" \"mplane_ipv4\": \"10.99." #h ".1/32\","			\
	" \"mplane_ipv6\": \"fd99::" #h ":1/128\"" mp0 ","		\
	" \"ports\": [{\"ifname\": \"r0\", \"ifindex\": 2,"		\
	" \"mac\": \"02:00:01:0" #h ":00:00\", \"peer\": \"p0l0\","	\
	" \"peer_ifname\": \"h" #h "\", \"rate_bps\": 20000000,"	\
	" \"ipv4\": \"10.100." #h ".2/24\", \"ipv6\": \"fd10:0:" #h "::2/64\"}]}"

#define LEAF_PORT(h)							\
	"{\"ifname\": \"h" #h "\", \"ifindex\": 1" #h ","		\
	" \"mac\": \"02:00:02:00:00:0" #h "\", \"peer\": \"h" #h "\","	\
	" \"peer_ifname\": \"r0\", \"rate_bps\": 20000000,"		\
	" \"ipv4\": \"10.100." #h ".1/24\", \"ipv6\": \"fd10:0:" #h "::1/64\"," \
	" \"delay_us\": 1000, \"loss_pct\": 0.5}"

/* The counts as the first files named them, then as they are named now
 * (a count is NAME_count in every command's JSON). */
#define OLD_COUNTS							\
	"\"planes\": 1, \"leaves\": 1, \"spines\": 0, \"hosts\": 2"
#define COUNTS								\
	"\"plane_count\": 1, \"leaf_count\": 1, \"spine_count\": 0,"	\
	" \"host_count\": 2"

#define FABRIC_OF(counts, top, mp0_0, mp0_1)				\
	"{\"prefix\": \"t\", " counts ","					\
	" \"rate_bps\": 20000000" top ", \"nodes\": ["			\
	HOST(0, mp0_0) ", " HOST(1, mp0_1) ","				\
	" {\"name\": \"p0l0\", \"netns\": \"t-p0l0\", \"role\": \"leaf\","	\
	" \"plane\": 0, \"index\": 0, \"ports\": ["			\
	LEAF_PORT(0) ", " LEAF_PORT(1) "]}]}"
#define FABRIC(top, mp0_0, mp0_1) FABRIC_OF(COUNTS, top, mp0_0, mp0_1)

/* The state file as written before mp0, netem and per-role rates. */
static const char old_file[] = FABRIC_OF(OLD_COUNTS, "", "", "");

/* As written before the counts, mp0 and cc were renamed: a fabric built
 * by an older mplanectl is still shown and taken down. */
static const char old_names_file[] = FABRIC_OF(OLD_COUNTS,
	", \"mp0\": true, \"cc\": \"dcqcn\"",
	", \"mp0\": {\"ifname\": \"mp0\", \"ifindex\": 7, \"policy\": \"rr\"}",
	", \"mp0\": null");

static const char new_file[] = FABRIC(
	", \"host_rate_bps\": 40000000, \"uplink_rate_bps\": 10000000,"
	" \"delay_us\": 1000, \"loss_pct\": 0.5, \"has_mp0\": true,"
	" \"probe_interval_us\": 100000, \"cc_algo\": \"dcqcn\"",
	", \"mp0\": {\"ifname\": \"mp0\", \"ifindex\": 7, \"policy\": \"rr\"}",
	", \"mp0\": {\"ifname\": \"mp0\", \"ifindex\": 8, \"policy\": \"rr\"}");

static const char no_mp0_file[] = FABRIC(
	", \"has_mp0\": false, \"mp0_missing\": \"mplane.ko is not loaded\"",
	", \"mp0\": null", ", \"mp0\": null");

/* Each congestion control by its name, and one no mplanectl writes. */
static const char notify_file[] = FABRIC(", \"has_mp0\": true, \"cc_algo\": \"notify\"",
	", \"mp0\": {\"ifname\": \"mp0\", \"ifindex\": 7, \"policy\": \"spray\"}",
	", \"mp0\": {\"ifname\": \"mp0\", \"ifindex\": 8, \"policy\": \"spray\"}");
static const char bad_cc_file[] = FABRIC(", \"cc_algo\": \"reno\"", "", "");

static const char bad_mp0_file[] = FABRIC("", ", \"mp0\": 5", "");
static const char bad_has_mp0_file[] = FABRIC(", \"has_mp0\": 1", "", "");

static int load(const char *text, struct mp_fabric *f)
{
	char path[] = "/tmp/test_fabric.XXXXXX";
	int fd = mkstemp(path), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	err = mp_fabric_load_file(path, f);
	unlink(path);
	return err;
}

/* Host @host is reached at @want4 and @want6. */
static void assert_reached(const struct mp_fabric *f, unsigned int host,
			   const char *want4, const char *want6)
{
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	struct in_addr a4;

	assert_int_equal(mp_fabric_host_addr4(f, host, &a4), 0);
	assert_string_equal(inet_ntop(AF_INET, &a4, buf, sizeof(buf)), want4);
	assert_int_equal(mp_fabric_host_addr6(f, host, &a6), 0);
	assert_string_equal(inet_ntop(AF_INET6, &a6, buf, sizeof(buf)), want6);
}

/* An old file: every rate is rate_bps, no netem, no mp0. */
static void test_old_file(TEST_ARGS)
{
	char buf[INET_ADDRSTRLEN];
	struct mp_fabric f;

	assert_int_equal(load(old_file, &f), 0);
	assert_int_equal(f.host_rate_bps, 20000000);
	assert_int_equal(f.uplink_rate_bps, 20000000);
	assert_int_equal(f.delay_us, 0);
	assert_false(f.mp0);
	assert_false(f.nodes[0].mp0);
	assert_int_equal(f.nodes[0].ports[0].delay_us, 0);
	assert_string_equal(inet_ntop(AF_INET, &f.nodes[1].mplane4, buf,
				      sizeof(buf)), "10.99.1.1");
	/* Without mp0, a host is reached at its rail in plane 0. */
	assert_reached(&f, 1, "10.100.1.2", "fd10:0:1::2");
	mp_fabric_free(&f);
}

static void test_old_names(TEST_ARGS)
{
	struct mp_fabric f;

	assert_int_equal(load(old_names_file, &f), 0);
	assert_int_equal(f.planes, 1);
	assert_int_equal(f.leaves, 1);
	assert_int_equal(f.spines, 0);
	assert_int_equal(f.hosts, 2);
	assert_true(f.mp0);
	assert_int_equal(f.cc, MPLANE_CC_DCQCN);
	assert_int_equal(f.nodes[0].mp0_ifindex, 7);
	mp_fabric_free(&f);
}

static void test_mp0_and_netem(TEST_ARGS)
{
	struct mp_fabric f;
	struct in6_addr a6;
	struct in_addr a4;

	assert_int_equal(load(new_file, &f), 0);
	assert_int_equal(f.host_rate_bps, 40000000);
	assert_int_equal(f.uplink_rate_bps, 10000000);
	assert_int_equal(f.delay_us, 1000);
	assert_true(f.loss_pct == 0.5);
	assert_true(f.mp0);
	assert_int_equal(f.cc, MPLANE_CC_DCQCN);
	assert_int_equal(f.probe_interval_us, 100000);
	assert_true(f.nodes[1].mp0);
	assert_int_equal(f.nodes[1].mp0_ifindex, 8);
	assert_string_equal(f.nodes[1].mp0_policy, "rr");
	assert_int_equal(f.nodes[2].ports[1].delay_us, 1000);
	assert_true(f.nodes[2].ports[1].loss_pct == 0.5);
	/* With mp0, at its mplane address. */
	assert_reached(&f, 0, "10.99.0.1", "fd99::1");
	assert_reached(&f, 1, "10.99.1.1", "fd99::1:1");
	assert_int_equal(mp_fabric_host_addr4(&f, 2, &a4), -ENOENT);
	assert_int_equal(mp_fabric_host_addr6(&f, 2, &a6), -ENOENT);
	assert_ptr_equal(mp_fabric_host(&f, 1), &f.nodes[1]);
	assert_null(mp_fabric_host(&f, 2));
	mp_fabric_free(&f);
}

static void test_no_mp0(TEST_ARGS)
{
	struct mp_fabric f;

	assert_int_equal(load(no_mp0_file, &f), 0);
	assert_false(f.mp0);
	assert_string_equal(f.mp0_missing, "mplane.ko is not loaded");
	assert_false(f.nodes[0].mp0);
	assert_reached(&f, 0, "10.100.0.2", "fd10::2");
	mp_fabric_free(&f);
}

/* A host's mp0 that is neither an object nor null fails the load, as
 * a has_mp0 that is no boolean does. */
static void test_bad_mp0(TEST_ARGS)
{
	struct mp_fabric f;

	assert_int_equal(load(bad_mp0_file, &f), -EBADMSG);
	assert_null(f.nodes);
	assert_int_equal(load(bad_has_mp0_file, &f), -EBADMSG);
	assert_null(f.nodes);
}

static void test_cc_by_name(TEST_ARGS)
{
	struct mp_fabric f;

	assert_int_equal(load(notify_file, &f), 0);
	assert_int_equal(f.cc, MPLANE_CC_NOTIFY);
	mp_fabric_free(&f);
	assert_int_equal(load(bad_cc_file, &f), -EBADMSG);
	assert_null(f.nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_file),
		cmocka_unit_test(test_old_names),
		cmocka_unit_test(test_mp0_and_netem),
		cmocka_unit_test(test_no_mp0),
		cmocka_unit_test(test_bad_mp0),
		cmocka_unit_test(test_cc_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
