// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_hist_sparse.c: the same values added to a
 * sparse and to a dense histogram give the same histogram once expanded,
 * and the sparse one holds only the buckets it used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_hist_sparse.h"

/* unit.mk builds a test from its own file and mp_hist_sparse.c alone. */
#include "mp_hist.c"

#define TEST_ARGS void **state __attribute__((unused))

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Values over the whole range, in random order: the same as dense. */
static void test_sparse_is_dense(TEST_ARGS)
{
	static struct mp_hist dense, expanded;
	struct mp_hist_sparse h = {};
	unsigned int i, shift;
	uint64_t v;

	for (i = 0; i < 20000; i++) {
		shift = rnd() % 64;
		v = rnd() >> shift;
		mp_hist_add(&dense, v);
		assert_int_equal(mp_hist_sparse_add(&h, v), 0);
	}
	mp_hist_sparse_expand(&h, &expanded);
	assert_int_equal(expanded.count, dense.count);
	assert_int_equal(expanded.max, dense.max);
	assert_int_equal(expanded.sum, dense.sum);
	assert_memory_equal(expanded.buckets, dense.buckets,
			    sizeof(dense.buckets));
	for (i = 1; i < h.n; i++)
		assert_true(h.b[i - 1].bucket < h.b[i].bucket);
	mp_hist_sparse_free(&h);
	assert_null(h.b);
	assert_int_equal(h.count, 0);
}

/* A queue that sits between 10 and 20 KB uses a few dozen buckets. */
static void test_sparse_is_small(TEST_ARGS)
{
	static struct mp_hist expanded;
	struct mp_hist_sparse h = {};
	unsigned int i;

	for (i = 0; i < 100000; i++)
		assert_int_equal(mp_hist_sparse_add(&h, 10240 + rnd() % 10240),
				 0);
	/* [10240, 20480) spans 64 buckets of 2^13..2^14 and 32 of the next
	 * power of two below, at 1/64 of their values each. */
	assert_true(h.n <= 3 * MP_HIST_BUCKETS / 100);
	assert_int_equal(h.count, 100000);
	mp_hist_sparse_expand(&h, &expanded);
	assert_true(mp_hist_quantile(&expanded, 0.5) >= 15000);
	assert_true(mp_hist_quantile(&expanded, 0.5) <= 16000);
	mp_hist_sparse_free(&h);
}

/* An empty one expands to an empty histogram, over whatever was there. */
static void test_sparse_empty(TEST_ARGS)
{
	static struct mp_hist out;
	struct mp_hist_sparse h = {};

	mp_hist_add(&out, 5);
	mp_hist_sparse_expand(&h, &out);
	assert_int_equal(out.count, 0);
	assert_int_equal(out.buckets[5], 0);
	assert_int_equal(mp_hist_quantile(&out, 0.99), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_is_dense),
		cmocka_unit_test(test_sparse_is_small),
		cmocka_unit_test(test_sparse_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
