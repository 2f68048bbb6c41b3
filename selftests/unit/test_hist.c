// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_hist.c, the log-linear histogram behind the
 * delivery gaps of 'traffic recv' and the telemetry views: bucket layout,
 * quantiles against a brute-force sort of random data, merge, and the
 * cumulative counts of Prometheus buckets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_hist.h"

/* cmocka passes a state pointer that these tests do not use. */
#define TEST_ARGS void **state __attribute__((unused))

#define US	1000ULL

/* Exact below 128, continuous buckets above, up to UINT64_MAX. */
static void test_hist_buckets(TEST_ARGS)
{
	uint64_t v;

	for (v = 0; v < 128; v++)
		assert_int_equal(mp_hist_bucket(v), v);
	assert_int_equal(mp_hist_bucket(128), 128);
	assert_int_equal(mp_hist_bucket(129), 128);
	assert_int_equal(mp_hist_bucket(130), 129);
	assert_int_equal(mp_hist_bucket(255), 191);
	assert_int_equal(mp_hist_bucket(256), 192);
	assert_int_equal(mp_hist_bucket(UINT64_MAX), MP_HIST_BUCKETS - 1);
	/* Monotonic, without holes, over powers of two and their neighbours. */
	for (v = 64; v < (1ULL << 62); v <<= 1) {
		assert_true(mp_hist_bucket(v - 1) <= mp_hist_bucket(v));
		assert_true(mp_hist_bucket(v) - mp_hist_bucket(v - 1) <= 1);
	}
}

/* Quantiles stay within a bucket's 1/64 of the exact value, never above
 * the largest value, and take the highest value of their bucket. */
static void test_hist_quantiles(TEST_ARGS)
{
	static struct mp_hist h;
	uint64_t v, q;

	assert_int_equal(mp_hist_quantile(&h, 0.5), 0);
	/* 1 .. 10000 us, in ns. */
	for (v = 1; v <= 10000; v++)
		mp_hist_add(&h, v * US);
	assert_int_equal(h.count, 10000);
	assert_int_equal(h.max, 10000 * US);
	q = mp_hist_quantile(&h, 0.5);
	assert_true(q >= 5000 * US && q <= 5000 * US + 5000 * US / 64);
	q = mp_hist_quantile(&h, 0.99);
	assert_true(q >= 9900 * US && q <= 9900 * US + 9900 * US / 64);
	assert_int_equal(mp_hist_quantile(&h, 1.0), 10000 * US);
	q = mp_hist_quantile(&h, 0.0001);
	assert_true(q >= 1 * US && q <= 1 * US + US / 64);
}

/* 999 gaps of 50 us and one of 900 us: p99 does not see it, and p99.9
 * does only once it is more than 1 in 1000. */
static void test_hist_tail(TEST_ARGS)
{
	static struct mp_hist h;
	int i;

	for (i = 0; i < 999; i++)
		mp_hist_add(&h, 50 * US);
	mp_hist_add(&h, 900 * US);
	assert_true(mp_hist_quantile(&h, 0.99) < 51 * US);
	assert_true(mp_hist_quantile(&h, 0.999) < 51 * US);
	assert_int_equal(mp_hist_quantile(&h, 1.0), 900 * US);
	mp_hist_add(&h, 900 * US);
	assert_int_equal(mp_hist_quantile(&h, 0.999), 900 * US);
}

/* Each bucket's range starts right after the previous one's. */
static void test_bucket_bounds(TEST_ARGS)
{
	unsigned int b;

	assert_int_equal(mp_hist_bucket_low(0), 0);
	for (b = 1; b < MP_HIST_BUCKETS; b++) {
		assert_int_equal(mp_hist_bucket_low(b),
				 mp_hist_bucket_high(b - 1) + 1);
		assert_int_equal(mp_hist_bucket(mp_hist_bucket_low(b)), b);
		assert_int_equal(mp_hist_bucket(mp_hist_bucket_high(b)), b);
	}
	assert_int_equal(mp_hist_bucket_high(MP_HIST_BUCKETS - 1), UINT64_MAX);
}

/* xorshift64*: repeatable random numbers, the same on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

enum dist { UNIFORM, LOG_UNIFORM, GEOMETRIC_TAIL, BIMODAL, SMALL, __DIST_MAX };

/* Without libm: shapes made of shifts and remainders. */
static uint64_t draw(enum dist d)
{
	uint64_t r = rnd();

	switch (d) {
	case UNIFORM:		/* queue depths up to 1 MB */
		return r % 1000000;
	case LOG_UNIFORM:	/* every order of magnitude alike */
		return rnd() >> (r % 64);
	case GEOMETRIC_TAIL:	/* gaps: mostly ~1 us, halving odds per doubling */
		return (1000 + r % 1000) << (__builtin_ctzll(rnd() | (1ULL << 40)));
	case BIMODAL:		/* steps of 10 ms, some stretched to 40 ms */
		return (r % 10 ? 10000000 : 40000000) + rnd() % 100000;
	default:		/* all in the exact range */
		return r % 200;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The exact quantile: the value at rank ceil(q * n), 1-based. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n,
			       uint32_t ppm)
{
	size_t rank = ((unsigned __int128)n * ppm + 999999) / 1000000;

	return sorted[rank ? rank - 1 : 0];
}

/* p50 .. p99.9 of several distributions: never below the exact value,
 * and above it by no more than the bucket resolution, 1/64. */
static void test_random_quantiles(TEST_ARGS)
{
	static const uint32_t ppms[] = { 500000, 900000, 990000, 999000,
					 1000000, 1 };
	static struct mp_hist h;
	const size_t sizes[] = { 1, 7, 1000, 100003 };
	uint64_t *v = malloc(100003 * sizeof(*v)), exact, got;
	unsigned int d, s, i;
	size_t k;

	assert_non_null(v);
	for (d = 0; d < __DIST_MAX; d++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			memset(&h, 0, sizeof(h));
			for (k = 0; k < sizes[s]; k++) {
				v[k] = draw(d);
				mp_hist_add(&h, v[k]);
			}
			qsort(v, sizes[s], sizeof(*v), cmp_u64);
			assert_int_equal(h.count, sizes[s]);
			assert_int_equal(h.max, v[sizes[s] - 1]);
			for (i = 0; i < sizeof(ppms) / sizeof(ppms[0]); i++) {
				exact = exact_quantile(v, sizes[s], ppms[i]);
				got = mp_hist_quantile_ppm(&h, ppms[i]);
				if (got < exact || got - exact > exact / 64) {
					fail_msg("dist %u n %zu ppm %u: %llu, exact %llu",
						 d, sizes[s], ppms[i],
						 (unsigned long long)got,
						 (unsigned long long)exact);
				}
			}
		}
	}
	free(v);
}

/* Merging two histograms is adding both halves to one. */
static void test_merge(TEST_ARGS)
{
	static struct mp_hist a, b, both;
	uint64_t x;
	int i;

	for (i = 0; i < 5000; i++) {
		x = draw(i % 2 ? GEOMETRIC_TAIL : UNIFORM);
		mp_hist_add(i % 3 ? &a : &b, x);
		mp_hist_add(&both, x);
	}
	mp_hist_merge(&a, &b);
	assert_int_equal(a.count, both.count);
	assert_int_equal(a.max, both.max);
	assert_int_equal(a.sum, both.sum);
	assert_memory_equal(a.buckets, both.buckets, sizeof(a.buckets));
	/* An empty source changes nothing; an empty target takes its max. */
	memset(&b, 0, sizeof(b));
	mp_hist_merge(&a, &b);
	assert_int_equal(a.count, both.count);
	mp_hist_merge(&b, &a);
	assert_int_equal(b.max, both.max);
}

/* Cumulative counts at le bounds: exact at bucket boundaries and in the
 * exact range, never decreasing, the whole count at the end. */
static void test_cumulative(TEST_ARGS)
{
	static const uint64_t le[] = { 0, 5, 127, 1023, 1024, 65535,
				       1000000, UINT64_MAX };
	static struct mp_hist h;
	uint64_t out[8], v[3000], exact;
	unsigned int i, k;

	for (k = 0; k < 3000; k++) {
		v[k] = k % 3 ? rnd() % 2000 : rnd() % 2000000;
		mp_hist_add(&h, v[k]);
	}
	mp_hist_cumulative(&h, le, 8, out);
	for (i = 0; i < 8; i++) {
		for (exact = 0, k = 0; k < 3000; k++)
			exact += v[k] <= le[i];
		if (i)
			assert_true(out[i] >= out[i - 1]);
		/* Never more than the exact count; exact at 2^k - 1. */
		assert_true(out[i] <= exact);
		if (le[i] != 1024 && le[i] != 1000000)
			assert_int_equal(out[i], exact);
	}
	assert_int_equal(out[7], h.count);
	/* 1024 starts a bucket [1024, 1039]: values in it count later. */
	for (exact = 0, k = 0; k < 3000; k++)
		exact += v[k] <= 1023;
	assert_int_equal(out[4], exact);
}

/* The sum, for Prometheus's _sum. */
static void test_sum(TEST_ARGS)
{
	static struct mp_hist h;

	mp_hist_add(&h, 3);
	mp_hist_add(&h, 1000000);
	assert_int_equal(h.sum, 1000003);
	assert_int_equal(mp_hist_quantile(&h, 0.5), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_quantiles),
		cmocka_unit_test(test_hist_tail),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_random_quantiles),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_cumulative),
		cmocka_unit_test(test_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
