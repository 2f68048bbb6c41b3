// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_coll.c, the logic of 'mplanectl collective':
 * op names, busbw factors for 2, 4 and 8 ranks, size sweeps, the ring and
 * chain schedules simulated to the end (every chunk reduced from every
 * rank, every piece delivered once), the derangement, the check of every
 * operation's result against a naive model of the operation (and its
 * failure on one wrong element, a stale buffer and swapped chunks), the
 * sum, nearest-rank percentiles and the figures of one size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_coll.h"
#include "mplane_events.h"

#define TEST_ARGS void **state __attribute__((unused))

static const unsigned int sizes_n[] = { 2, 3, 4, 5, 8 };
#define N_SIZES	(sizeof(sizes_n) / sizeof(sizes_n[0]))

static void test_op_names(TEST_ARGS)
{
	int op;

	for (op = 0; op < __MPLANE_COLL_MAX; op++) {
		assert_non_null(mp_coll_op_names[op]);
		assert_int_equal(mp_coll_op_parse(mp_coll_op_names[op]), op);
		assert_string_equal(mp_coll_op_name(op), mp_coll_op_names[op]);
	}
	assert_null(mp_coll_op_names[__MPLANE_COLL_MAX]);
	assert_null(mp_coll_op_name(__MPLANE_COLL_MAX));
	assert_int_equal(mp_coll_op_parse("all_reduce"), -1);
	assert_string_equal(mp_coll_op_name(MPLANE_COLL_REDUCE_SCATTER),
			    "reduce_scatter");
}

/* nccl-tests' factors (doc/PERFORMANCE.md), and ours for the patterns. */
static void test_busbw_factors(TEST_ARGS)
{
	static const struct {
		unsigned int op, n;
		double f;
	} t[] = {
		{ MPLANE_COLL_ALLREDUCE, 2, 1.0 },
		{ MPLANE_COLL_ALLREDUCE, 4, 1.5 },
		{ MPLANE_COLL_ALLREDUCE, 8, 1.75 },
		{ MPLANE_COLL_ALLGATHER, 2, 0.5 },
		{ MPLANE_COLL_ALLGATHER, 4, 0.75 },
		{ MPLANE_COLL_ALLGATHER, 8, 0.875 },
		{ MPLANE_COLL_REDUCE_SCATTER, 2, 0.5 },
		{ MPLANE_COLL_REDUCE_SCATTER, 4, 0.75 },
		{ MPLANE_COLL_REDUCE_SCATTER, 8, 0.875 },
		{ MPLANE_COLL_ALLTOALL, 2, 0.5 },
		{ MPLANE_COLL_ALLTOALL, 4, 0.75 },
		{ MPLANE_COLL_ALLTOALL, 8, 0.875 },
		{ MPLANE_COLL_BROADCAST, 2, 1 },
		{ MPLANE_COLL_BROADCAST, 8, 1 },
		{ MPLANE_COLL_PERMUTATION, 4, 1 },
		{ MPLANE_COLL_PERMUTATION, 8, 1 },
		{ MPLANE_COLL_INCAST, 2, 1 },
		{ MPLANE_COLL_INCAST, 4, 3 },
		{ MPLANE_COLL_INCAST, 8, 7 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_float_equal(mp_coll_busbw_factor(t[i].op, t[i].n),
				   t[i].f, 1e-12);
}

static void test_sizes(TEST_ARGS)
{
	uint64_t s[16];

	assert_int_equal(mp_coll_round_size(1, 4), 16);
	assert_int_equal(mp_coll_round_size(1000, 8), 992);
	assert_int_equal(mp_coll_round_size(1 << 20, 8), 1 << 20);
	assert_int_equal(mp_coll_round_size(1 << 20, 3), (1 << 20) - 4);
	/* -b 1M -e 64M -f 2: seven sizes. */
	assert_int_equal(mp_coll_sizes(1 << 20, 64 << 20, 2, 4, s, 16), 7);
	assert_int_equal(s[0], 1 << 20);
	assert_int_equal(s[6], 64 << 20);
	/* Tiny sizes round to one unit and are not repeated. */
	assert_int_equal(mp_coll_sizes(1, 64, 2, 8, s, 16), 2);
	assert_int_equal(s[0], 32);
	assert_int_equal(s[1], 64);
	/* One size; MAX below the next step; and no wrap at the top. */
	assert_int_equal(mp_coll_sizes(4096, 4096, 2, 2, s, 16), 1);
	assert_int_equal(mp_coll_sizes(1 << 20, (3 << 20) - 1, 4, 2, s, 16), 1);
	assert_int_equal(mp_coll_sizes(1ULL << 62, UINT64_MAX, 2, 2, s, 16), 2);
	/* More than @cap: counted, not written past it. */
	assert_int_equal(mp_coll_sizes(8, 1 << 20, 2, 2, s, 4), 18);
}

/*
 * Ring reduce-scatter then allgather, simulated with a mask of the ranks
 * each rank's copy of each chunk sums: what rank r sends in step s is
 * what r + 1 receives, each step's send was complete when the step
 * began, and in the end every rank has every chunk from every rank.
 */
static void test_ring_schedule(TEST_ARGS)
{
	uint32_t have[8][8], next[8][8], all;
	unsigned int i, n, r, s, c, seen;

	for (i = 0; i < N_SIZES; i++) {
		n = sizes_n[i];
		all = (1u << n) - 1;
		for (r = 0; r < n; r++)
			for (c = 0; c < n; c++)
				have[r][c] = 1u << r;
		for (s = 0; s + 1 < n; s++) {
			memcpy(next, have, sizeof(have));
			for (r = 0; r < n; r++) {
				unsigned int to = (r + 1) % n;
				unsigned int sc = mp_coll_ring_rs_send(r, n, s);

				assert_int_equal(mp_coll_ring_rs_recv(to, n, s), sc);
				/* Added once: no contribution twice. */
				assert_int_equal(have[r][sc] & have[to][sc], 0);
				next[to][sc] |= have[r][sc];
			}
			memcpy(have, next, sizeof(have));
		}
		for (r = 0; r < n; r++)
			assert_int_equal(have[r][r], all);
		/* Allgather: rank r starts with chunk r, receives each
		 * other chunk exactly once. */
		for (r = 0; r < n; r++) {
			seen = 1u << r;
			for (s = 0; s + 1 < n; s++) {
				unsigned int from = (r + n - 1) % n;
				unsigned int rc = mp_coll_ring_ag_recv(r, n, s);

				assert_int_equal(mp_coll_ring_ag_send(from, n, s), rc);
				/* The sender has it by then. */
				assert_true(s == 0 ? rc == from :
					    rc == mp_coll_ring_ag_recv(from, n, s - 1));
				assert_int_equal(seen & (1u << rc), 0);
				seen |= 1u << rc;
			}
			assert_int_equal(seen, all);
		}
	}
}

/* Every piece reaches every rank once, one hop a step, sent by the rank
 * upstream in that step and received there in an earlier one (ranks
 * send before they receive, so a piece received in a step is not yet
 * there to send in it). */
static void test_chain_schedule(TEST_ARGS)
{
	static const unsigned int pieces[] = { 1, 2, 5, 16 };
	int got[8][16], sent[8][16], snd, rcv, up_snd, up_rcv;
	unsigned int i, j, n, p, r, k, steps;

	for (i = 0; i < N_SIZES; i++) {
		for (j = 0; j < 4; j++) {
			n = sizes_n[i];
			p = pieces[j];
			steps = mp_coll_chain_steps(n, p);
			memset(got, 0, sizeof(got));
			memset(sent, 0, sizeof(sent));
			for (k = 0; k < p; k++)
				got[0][k] = 1;
			for (k = 0; k < steps; k++) {
				for (r = 0; r < n; r++) {
					mp_coll_chain_step(r, n, p, k, &snd, &rcv);
					if (snd >= 0) {
						assert_true(got[r][snd]);
						sent[r][snd]++;
					}
					if (rcv < 0)
						continue;
					/* The upstream rank sends it now. */
					mp_coll_chain_step(r - 1, n, p, k, &up_snd, &up_rcv);
					assert_int_equal(up_snd, rcv);
					got[r][rcv]++;
				}
			}
			for (r = 0; r < n; r++)
				for (k = 0; k < p; k++) {
					assert_int_equal(got[r][k], 1);
					assert_int_equal(sent[r][k], r + 1 < n);
				}
		}
	}
}

static void test_permutation(TEST_ARGS)
{
	unsigned int n, r, seen;

	for (n = 2; n <= 9; n++) {
		seen = 0;
		for (r = 0; r < n; r++) {
			unsigned int d = mp_coll_perm_dst(r, n);

			assert_int_not_equal(d, r);
			assert_int_equal(mp_coll_perm_src(d, n), r);
			seen |= 1u << d;
		}
		assert_int_equal(seen, (1u << n) - 1);
	}
}

#define COUNT	120	/* elements: a multiple of 2, 3, 4, 5 and 8 */

/* The inputs of every rank, and its output by a naive model of @op. */
static void model(unsigned int op, unsigned int n, uint64_t seq,
		  float in[][COUNT], float out[][8 * COUNT])
{
	unsigned int r, q, c = COUNT / n;
	size_t i;

	for (r = 0; r < n; r++)
		mp_coll_fill(op, r, n, seq, COUNT, in[r]);
	memset(out, 0, 8 * sizeof(out[0]));
	for (r = 0; r < n; r++) {
		for (i = 0; i < COUNT; i++) {
			switch (op) {
			case MPLANE_COLL_ALLREDUCE:
				for (q = 0; q < n; q++)
					out[r][i] += in[q][i];
				break;
			case MPLANE_COLL_REDUCE_SCATTER:
				for (q = 0; i < c && q < n; q++)
					out[r][i] += in[q][r * c + i];
				break;
			case MPLANE_COLL_ALLGATHER:
				out[r][i] = in[i / c][i % c];
				break;
			case MPLANE_COLL_BROADCAST:
				out[r][i] = in[0][i];
				break;
			case MPLANE_COLL_ALLTOALL:
				out[r][i] = in[i / c][r * c + i % c];
				break;
			case MPLANE_COLL_PERMUTATION:
				out[r][i] = in[mp_coll_perm_src(r, n)][i];
				break;
			case MPLANE_COLL_INCAST:
				for (q = 1; !r && q < n; q++)
					out[0][(q - 1) * COUNT + i] = in[q][i];
				break;
			}
		}
	}
}

/*
 * Every operation on 2, 3, 4, 5 and 8 ranks: the model's outputs check,
 * and agree with mp_coll_expect(); one wrong element is one wrong; the
 * previous iteration's output, or two chunks swapped, do not check.
 */
static void test_values_check(TEST_ARGS)
{
	static float in[8][COUNT], out[8][8 * COUNT], old[8][8 * COUNT];
	unsigned int i, op, n, r, c;
	size_t len, k;

	for (op = 0; op < __MPLANE_COLL_MAX; op++) {
		for (i = 0; i < N_SIZES; i++) {
			n = sizes_n[i];
			c = COUNT / n;
			model(op, n, 6, in, old);
			model(op, n, 7, in, out);
			for (r = 0; r < n; r++) {
				len = mp_coll_out_count(op, r, n, COUNT);
				assert_int_equal(mp_coll_check(op, r, n, 7, COUNT,
							       out[r]), 0);
				for (k = 0; k < len; k++)
					assert_true(out[r][k] == mp_coll_expect(op, r, n, 7,
										COUNT, k));
				if (!len)
					continue;
				/* A stale buffer: almost every element is off. */
				assert_true(mp_coll_check(op, r, n, 7, COUNT,
							  old[r]) > len / 2);
				out[r][len / 2] += 1;
				assert_int_equal(mp_coll_check(op, r, n, 7, COUNT,
							       out[r]), 1);
				out[r][len / 2] -= 1;
				if (len < 2 * c)
					continue;
				/* Chunks 0 and 1 in each other's place. */
				memcpy(old[r], out[r], c * sizeof(float));
				memmove(out[r], out[r] + c, c * sizeof(float));
				memcpy(out[r] + c, old[r], c * sizeof(float));
				assert_true(mp_coll_check(op, r, n, 7, COUNT,
							  out[r]) > c / 2);
			}
		}
	}
}

/* Sums over the largest job stay exact: integers below 2^24. */
static void test_values_exact(TEST_ARGS)
{
	float sum = 0, v;
	unsigned int r;
	size_t i;

	for (i = 0; i < 1000; i++) {
		v = mp_coll_value(MP_COLL_MAX_RANKS - 1, 3, i);
		assert_true(v >= MP_COLL_MAX_RANKS && v < MP_COLL_MAX_RANKS + 64);
		assert_true(mp_coll_value(0, 3, i) >= 1);
	}
	for (r = 0; r < MP_COLL_MAX_RANKS; r++)
		sum += 63 + r + 1;
	assert_true(sum < (1 << 24));
	assert_true(sum == (float)(MP_COLL_MAX_RANKS * 63 +
				   MP_COLL_MAX_RANKS * (MP_COLL_MAX_RANKS + 1) / 2));
}

static void test_sum(TEST_ARGS)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 1000 };
	float a[1000], b[1000];
	unsigned int j;
	size_t i;

	for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
		for (i = 0; i < 1000; i++) {
			a[i] = i;
			b[i] = 2 * i;
		}
		mp_coll_sum(a, b, lens[j]);
		for (i = 0; i < 1000; i++)
			assert_true(a[i] == (i < lens[j] ? 3 * i : i));
	}
}

static void test_percentile(TEST_ARGS)
{
	double v[100];
	unsigned int i;

	assert_true(mp_coll_percentile(v, 0, 500000) == 0);
	/* 20 values, given backwards: p50 the 10th, p99 the 20th. */
	for (i = 0; i < 20; i++)
		v[i] = 20 - i;
	assert_true(mp_coll_percentile(v, 20, 500000) == 10);
	assert_true(mp_coll_percentile(v, 20, 990000) == 20);
	assert_true(mp_coll_percentile(v, 20, 10000) == 1);
	assert_true(mp_coll_percentile(v, 20, 0) == 1);
	assert_true(mp_coll_percentile(v, 20, 1000000) == 20);
	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	assert_true(mp_coll_percentile(v, 100, 990000) == 99);
	assert_true(mp_coll_percentile(v, 100, 10000) == 1);
	assert_true(mp_coll_percentile(v, 100, 20000) == 2);
	assert_true(mp_coll_percentile(v, 1, 990000) == 1);
}

/*
 * Two ranks, four iterations of 1 MB allreduce: an iteration takes its
 * slower rank's time, rank 1 is the slower on average, and the slowest
 * iteration (4 ms) is the p01 of bandwidth.
 */
static void test_summarise(TEST_ARGS)
{
	static const uint64_t t[] = {
		1000000, 2000000, 1000000, 4000000,	/* rank 0 */
		2000000, 1000000, 2000000, 3000000,	/* rank 1 */
	};
	struct mp_coll_summary s;
	double rank_us[2];

	assert_int_equal(mp_coll_summarise(MPLANE_COLL_ALLREDUCE, 2, 1000000,
					   t, 4, rank_us, &s), 0);
	assert_int_equal(s.iters, 4);
	/* Iterations: 2, 2, 2, 4 ms. */
	assert_float_equal(s.time_us, 2500, 1e-9);
	assert_float_equal(s.p50_us, 2000, 1e-9);
	assert_float_equal(s.p99_us, 4000, 1e-9);
	assert_float_equal(s.max_us, 4000, 1e-9);
	assert_float_equal(s.algbw, 0.4, 1e-12);
	assert_float_equal(s.busbw, 0.4, 1e-12);
	assert_float_equal(s.p01_busbw, 0.25, 1e-12);
	assert_float_equal(rank_us[0], 2000, 1e-9);
	assert_float_equal(rank_us[1], 2000, 1e-9);
	/* A tie goes to the first; rank 1 slower by one ns wins. */
	assert_int_equal(s.slowest_rank, 0);
	{
		uint64_t t2[8];

		memcpy(t2, t, sizeof(t2));
		t2[7]++;
		assert_int_equal(mp_coll_summarise(MPLANE_COLL_ALLGATHER, 2,
						   1000000, t2, 4, rank_us, &s), 0);
		assert_int_equal(s.slowest_rank, 1);
		assert_float_equal(s.busbw, s.algbw * 0.5, 1e-12);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_busbw_factors),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_ring_schedule),
		cmocka_unit_test(test_chain_schedule),
		cmocka_unit_test(test_permutation),
		cmocka_unit_test(test_values_check),
		cmocka_unit_test(test_values_exact),
		cmocka_unit_test(test_sum),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_summarise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
