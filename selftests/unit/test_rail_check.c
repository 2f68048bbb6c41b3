// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the enslave policy in kmod/rail_check.c, run in user
 * space:
 *
 *	cc -Ikmod -Iuapi selftests/unit/test_rail_check.c kmod/rail_check.c \
 *		-lcmocka
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "linux/mplane.h"
#include "rail_check.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

/* A veth in the same namespace with no master: the one good candidate. */
static struct mplane_rail_facts good_rail(void)
{
	struct mplane_rail_facts f = {
		.is_ethernet = true,
		.same_netns = true,
	};

	return f;
}

static void test_good_rail_ok(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_OK);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_OK), 0);
}

static void test_last_free_plane_ok(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.plane_count = MPLANE_MAX_PLANES - 1;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_OK);
}

/* Each reason alone, on an otherwise good rail, with its errno. */
static void test_self(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	/* The mplane device is an mplane device and not Ethernet, too. */
	f.is_self = true;
	f.is_mplane = true;
	f.is_ethernet = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_SELF);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_SELF), -EINVAL);
}

static void test_mplane(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.is_mplane = true;
	f.is_ethernet = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_MPLANE);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_MPLANE),
			 -EOPNOTSUPP);
}

static void test_loopback(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.is_loopback = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_LOOPBACK);
	/* lo is ARPHRD_LOOPBACK: the loopback reason still wins. */
	f.is_ethernet = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_LOOPBACK);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_LOOPBACK),
			 -EOPNOTSUPP);
}

static void test_not_ethernet(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.is_ethernet = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_NOT_ETHERNET);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_NOT_ETHERNET),
			 -EOPNOTSUPP);
}

static void test_aggregate(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.is_aggregate = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_AGGREGATE);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_AGGREGATE),
			 -EOPNOTSUPP);
}

/* A VXLAN, or a VLAN over one, whose underlay may lead back into mp0. */
static void test_tunnel(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.is_tunnel = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_TUNNEL);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_TUNNEL),
			 -EOPNOTSUPP);
}

static void test_other_netns(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.same_netns = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_OTHER_NETNS);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_OTHER_NETNS),
			 -EINVAL);
}

static void test_enslaved(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.has_master = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_ENSLAVED);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_ENSLAVED),
			 -EBUSY);
}

static void test_full(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.plane_count = MPLANE_MAX_PLANES;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_FULL);
	f.plane_count = MPLANE_MAX_PLANES + 1;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_FULL);
	assert_int_equal(mplane_rail_verdict_errno(MPLANE_RAIL_FULL),
			 -ENOSPC);
}

/*
 * With every reason present, removing the winning one must reveal the
 * next in the documented order.
 */
static void test_priority_order(TEST_ARGS)
{
	struct mplane_rail_facts f = {
		.is_self = true,
		.is_mplane = true,
		.is_loopback = true,
		.is_ethernet = false,
		.is_aggregate = true,
		.is_tunnel = true,
		.same_netns = false,
		.has_master = true,
		.plane_count = MPLANE_MAX_PLANES,
	};

	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_SELF);
	f.is_self = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_MPLANE);
	f.is_mplane = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_LOOPBACK);
	f.is_loopback = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_NOT_ETHERNET);
	f.is_ethernet = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_AGGREGATE);
	f.is_aggregate = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_TUNNEL);
	f.is_tunnel = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_OTHER_NETNS);
	f.same_netns = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_ENSLAVED);
	f.has_master = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_FULL);
	f.plane_count = 0;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_OK);
}

/* A full device still reports what is wrong with the rail itself. */
static void test_full_is_last(TEST_ARGS)
{
	struct mplane_rail_facts f = good_rail();

	f.plane_count = MPLANE_MAX_PLANES;
	f.has_master = true;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_ENSLAVED);
	f.has_master = false;
	f.is_ethernet = false;
	assert_int_equal(mplane_rail_check(&f), MPLANE_RAIL_NOT_ETHERNET);
}

static void test_every_reason_has_message(TEST_ARGS)
{
	int v;

	for (v = MPLANE_RAIL_OK; v < __MPLANE_RAIL_VERDICT_MAX; v++) {
		const char *msg = mplane_rail_verdict_msg(v);

		assert_non_null(msg);
		assert_true(strlen(msg) > 0);
		if (v != MPLANE_RAIL_OK)
			assert_true(mplane_rail_verdict_errno(v) < 0);
	}
}

/* The selftests grep for these words in iproute2's error output. */
static void test_message_words(TEST_ARGS)
{
	static const struct {
		enum mplane_rail_verdict verdict;
		const char *word;
	} words[] = {
		{ MPLANE_RAIL_SELF, "itself" },
		{ MPLANE_RAIL_MPLANE, "mplane device" },
		{ MPLANE_RAIL_LOOPBACK, "loopback" },
		{ MPLANE_RAIL_NOT_ETHERNET, "Ethernet" },
		{ MPLANE_RAIL_AGGREGATE, "bonds" },
		{ MPLANE_RAIL_TUNNEL, "tunnels" },
		{ MPLANE_RAIL_OTHER_NETNS, "namespace" },
		{ MPLANE_RAIL_ENSLAVED, "already" },
		{ MPLANE_RAIL_FULL, "planes" },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		assert_non_null(strstr(mplane_rail_verdict_msg(words[i].verdict),
				       words[i].word));
}

static void test_unknown_verdict(TEST_ARGS)
{
	const char *msg = mplane_rail_verdict_msg(__MPLANE_RAIL_VERDICT_MAX);

	assert_non_null(msg);
	assert_true(strlen(msg) > 0);
	assert_int_equal(mplane_rail_verdict_errno(__MPLANE_RAIL_VERDICT_MAX),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_rail_ok),
		cmocka_unit_test(test_last_free_plane_ok),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_mplane),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_not_ethernet),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_tunnel),
		cmocka_unit_test(test_other_netns),
		cmocka_unit_test(test_enslaved),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_full_is_last),
		cmocka_unit_test(test_every_reason_has_message),
		cmocka_unit_test(test_message_words),
		cmocka_unit_test(test_unknown_verdict),
	};

	/* The number of failed tests: non-zero fails make and CI. */
	return cmocka_run_group_tests_name("rail_check", tests, NULL, NULL);
}
