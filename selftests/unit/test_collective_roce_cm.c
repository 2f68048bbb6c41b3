// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/mplanectl/collective_roce_cm.c, the roce
 * transport's connection manager: which ICMP errors say that a peer went
 * away.  A REQ's says only that the peer had not bound yet, and it can
 * come back after the peer's REP, by another plane.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collective_roce.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define CM_AT		(ROCE_BTH_LEN + ROCE_DETH_LEN)

/* A CM datagram of @type, as tx_cm() lays it out, in @b. */
static size_t cm_datagram(unsigned char *b, uint8_t type)
{
	struct roce_cm m = { .type = type, .rank = 1, .nranks = 4, .isn = 7 };

	memset(b, 0, CM_AT);
	roce_cm_put(b + CM_AT, &m);
	return CM_AT + ROCE_CM_LEN + ROCE_ICRC_LEN;
}

static void test_req_error_is_stale(TEST_ARGS)
{
	unsigned char b[64];
	size_t len = cm_datagram(b, ROCE_CM_REQ);

	assert_true(roce_cm_error_stale(b, len));
	/* What the error queue gave back may stop after the CM message. */
	assert_true(roce_cm_error_stale(b, CM_AT + ROCE_CM_LEN));
}

static void test_other_errors_are_not(TEST_ARGS)
{
	unsigned char b[64];
	uint8_t type;

	for (type = ROCE_CM_REP; type <= ROCE_CM_DREP; type++)
		assert_false(roce_cm_error_stale(b, cm_datagram(b, type)));
	/* Data: no CM magic after the headers. */
	memset(b, 0xa5, sizeof(b));
	assert_false(roce_cm_error_stale(b, sizeof(b)));
	/* Cut short: not known to be a REQ. */
	cm_datagram(b, ROCE_CM_REQ);
	assert_false(roce_cm_error_stale(b, CM_AT + ROCE_CM_LEN - 1));
	assert_false(roce_cm_error_stale(b, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_error_is_stale),
		cmocka_unit_test(test_other_errors_are_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
