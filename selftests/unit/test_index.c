// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_index.c: every index added is found along
 * its hash's way, also when all share one hash and across the table's
 * growth; the table stays at most half full; clear forgets them all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_index.h"

#define TEST_ARGS void **state __attribute__((unused))
#define N 5000

static uint32_t keys[N];

static unsigned int key_hash(unsigned int idx, const void *arg)
{
	unsigned int mask = *(const unsigned int *)arg;

	return (keys[idx] * 2654435761U) & mask;
}

static int find(const struct mp_index *x, uint32_t key, unsigned int mask)
{
	unsigned int probe = (key * 2654435761U) & mask;
	int i;

	while ((i = mp_index_next(x, &probe)) >= 0)
		if (keys[i] == key)
			return i;
	return -1;
}

static void fill_and_find(unsigned int mask)
{
	struct mp_index x = {};
	unsigned int i;

	for (i = 0; i < N; i++) {
		keys[i] = i * 7 + 3;
		assert_int_equal(mp_index_add(&x, key_hash(i, &mask), i,
					      key_hash, &mask), 0);
		assert_true(x.n * 2 <= x.size);
	}
	for (i = 0; i < N; i++)
		assert_int_equal(find(&x, keys[i], mask), i);
	assert_int_equal(find(&x, 2, mask), -1);
	mp_index_clear(&x);
	assert_int_equal(x.n, 0);
	assert_int_equal(find(&x, keys[0], mask), -1);
	mp_index_free(&x);
	assert_null(x.slot);
}

static void test_spread(TEST_ARGS)
{
	fill_and_find(~0U);
}

/* One hash for all: every way is the one long run, still found. */
static void test_one_hash(TEST_ARGS)
{
	fill_and_find(0);
}

static void test_empty(TEST_ARGS)
{
	struct mp_index x = {};
	unsigned int probe = 42;

	assert_int_equal(mp_index_next(&x, &probe), -1);
	mp_index_clear(&x);
	mp_index_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_one_hash),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
