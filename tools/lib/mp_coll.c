// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_coll.h"
#include "mplane_events.h"

const char *const mp_coll_op_names[] = {
	[MPLANE_COLL_ALLREDUCE]		= "allreduce",
	[MPLANE_COLL_ALLGATHER]		= "allgather",
	[MPLANE_COLL_REDUCE_SCATTER]	= "reduce_scatter",
	[MPLANE_COLL_BROADCAST]		= "broadcast",
	[MPLANE_COLL_ALLTOALL]		= "alltoall",
	[MPLANE_COLL_PERMUTATION]	= "permutation",
	[MPLANE_COLL_INCAST]		= "incast",
	[__MPLANE_COLL_MAX]		= NULL,
};

const char *mp_coll_op_name(unsigned int op)
{
	return op < __MPLANE_COLL_MAX ? mp_coll_op_names[op] : NULL;
}

int mp_coll_op_parse(const char *name)
{
	int op;

	for (op = 0; op < __MPLANE_COLL_MAX; op++)
		if (!strcmp(name, mp_coll_op_names[op]))
			return op;
	return -1;
}

double mp_coll_busbw_factor(unsigned int op, unsigned int nranks)
{
	double n = nranks;

	switch (op) {
	case MPLANE_COLL_ALLREDUCE:
		return 2 * (n - 1) / n;
	case MPLANE_COLL_ALLGATHER:
	case MPLANE_COLL_REDUCE_SCATTER:
	case MPLANE_COLL_ALLTOALL:
		return (n - 1) / n;
	case MPLANE_COLL_INCAST:
		return n - 1;
	default:
		return 1;
	}
}

uint64_t mp_coll_round_size(uint64_t bytes, unsigned int nranks)
{
	uint64_t unit = 4ULL * nranks;

	return bytes < unit ? unit : bytes - bytes % unit;
}

unsigned int mp_coll_sizes(uint64_t min, uint64_t max, uint64_t factor,
			   unsigned int nranks, uint64_t *sizes,
			   unsigned int cap)
{
	uint64_t b, s, last = 0;
	unsigned int n = 0;

	for (b = min; b <= max; b *= factor) {
		s = mp_coll_round_size(b, nranks);
		if (s != last) {
			if (n < cap)
				sizes[n] = s;
			n++;
			last = s;
		}
		/* The next step would wrap: MAX is as far as a sweep goes. */
		if (factor < 2 || b > max / factor)
			break;
	}
	return n;
}

/* (a - b) mod n for b < 2n. */
static unsigned int ring_sub(unsigned int a, unsigned int b, unsigned int n)
{
	return (a + 2 * n - b) % n;
}

unsigned int mp_coll_ring_rs_send(unsigned int rank, unsigned int nranks,
				  unsigned int step)
{
	return ring_sub(rank, step + 1, nranks);
}

unsigned int mp_coll_ring_rs_recv(unsigned int rank, unsigned int nranks,
				  unsigned int step)
{
	return ring_sub(rank, step + 2, nranks);
}

unsigned int mp_coll_ring_ag_send(unsigned int rank, unsigned int nranks,
				  unsigned int step)
{
	return ring_sub(rank, step, nranks);
}

unsigned int mp_coll_ring_ag_recv(unsigned int rank, unsigned int nranks,
				  unsigned int step)
{
	return ring_sub(rank, step + 1, nranks);
}

unsigned int mp_coll_chain_steps(unsigned int nranks, unsigned int pieces)
{
	return pieces + nranks - 2;
}

void mp_coll_chain_step(unsigned int rank, unsigned int nranks,
			unsigned int pieces, unsigned int step, int *send,
			int *recv)
{
	long s = (long)step - rank, r = s + 1;

	*send = rank + 1 < nranks && s >= 0 && s < pieces ? (int)s : -1;
	*recv = rank > 0 && r >= 0 && r < pieces ? (int)r : -1;
}

unsigned int mp_coll_perm_dst(unsigned int rank, unsigned int nranks)
{
	return (rank + nranks / 2) % nranks;
}

unsigned int mp_coll_perm_src(unsigned int rank, unsigned int nranks)
{
	return (rank + nranks - nranks / 2) % nranks;
}

size_t mp_coll_in_count(unsigned int op, unsigned int rank,
			unsigned int nranks, size_t count)
{
	switch (op) {
	case MPLANE_COLL_ALLGATHER:
		return count / nranks;
	case MPLANE_COLL_BROADCAST:
		return rank ? 0 : count;
	case MPLANE_COLL_INCAST:
		return rank ? count : 0;
	default:
		return count;
	}
}

size_t mp_coll_out_count(unsigned int op, unsigned int rank,
			 unsigned int nranks, size_t count)
{
	switch (op) {
	case MPLANE_COLL_REDUCE_SCATTER:
		return count / nranks;
	case MPLANE_COLL_BROADCAST:
		return rank ? count : 0;
	case MPLANE_COLL_INCAST:
		return rank ? 0 : (nranks - 1) * count;
	default:
		return count;
	}
}

/* 0 .. 63 from the element and the iteration: murmur3's finaliser. */
static inline uint32_t coll_hash(uint32_t seq_mix, uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u ^ seq_mix;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x >> 26;
}

static uint32_t seq_mix(uint64_t seq)
{
	return (uint32_t)(seq * 0x2545f4914f6cdd1dULL >> 32);
}

float mp_coll_value(unsigned int rank, uint64_t seq, size_t i)
{
	return (float)(coll_hash(seq_mix(seq), i) + rank + 1);
}

/* dst[k] = mult * h(base + k) + add: what a range must hold. */
static void fill_range(float *dst, size_t n, uint64_t seq, size_t base,
		       uint32_t mult, uint32_t add)
{
	uint32_t m = seq_mix(seq);
	size_t k;

	for (k = 0; k < n; k++)
		dst[k] = (float)(mult * coll_hash(m, base + k) + add);
}

static uint64_t check_range(const float *out, size_t n, uint64_t seq,
			    size_t base, uint32_t mult, uint32_t add)
{
	uint32_t m = seq_mix(seq);
	uint64_t wrong = 0;
	size_t k;

	for (k = 0; k < n; k++)
		wrong += out[k] != (float)(mult * coll_hash(m, base + k) + add);
	return wrong;
}

void mp_coll_fill(unsigned int op, unsigned int rank, unsigned int nranks,
		  uint64_t seq, size_t count, float *in)
{
	size_t n = mp_coll_in_count(op, rank, nranks, count);

	/* Allgather's rank r brings chunk r of the whole; the others
	 * start from element 0 of theirs. */
	fill_range(in, n, seq, op == MPLANE_COLL_ALLGATHER ? rank * n : 0, 1,
		   rank + 1);
}

/*
 * An output is made of ranges (one per peer for allgather, alltoall and
 * incast), each of the form mult * h(base + k) + add; @i'th range of
 * @nr.  Sums: n * h + (1 + 2 + ... + n).
 */
struct coll_range {
	size_t at, len, base;
	uint32_t mult, add;
};

static unsigned int out_ranges(unsigned int op, unsigned int rank,
			       unsigned int n, size_t count, unsigned int i,
			       struct coll_range *r)
{
	size_t c = count / n;
	uint32_t sum_add = n * (n + 1) / 2;

	switch (op) {
	case MPLANE_COLL_ALLREDUCE:
		*r = (struct coll_range){ 0, count, 0, n, sum_add };
		return 1;
	case MPLANE_COLL_REDUCE_SCATTER:
		*r = (struct coll_range){ 0, c, rank * c, n, sum_add };
		return 1;
	case MPLANE_COLL_ALLGATHER:
		*r = (struct coll_range){ i * c, c, i * c, 1, i + 1 };
		return n;
	case MPLANE_COLL_BROADCAST:
		*r = (struct coll_range){ 0, rank ? count : 0, 0, 1, 1 };
		return 1;
	case MPLANE_COLL_ALLTOALL:
		*r = (struct coll_range){ i * c, c, rank * c, 1, i + 1 };
		return n;
	case MPLANE_COLL_PERMUTATION:
		*r = (struct coll_range){ 0, count, 0, 1,
					  mp_coll_perm_src(rank, n) + 1 };
		return 1;
	case MPLANE_COLL_INCAST:
		/* Rank 0's range i is from rank i + 1. */
		*r = (struct coll_range){ i * count, rank ? 0 : count, 0, 1,
					  i + 2 };
		return n - 1;
	}
	*r = (struct coll_range){};
	return 1;
}

uint64_t mp_coll_check(unsigned int op, unsigned int rank, unsigned int nranks,
		       uint64_t seq, size_t count, const float *out)
{
	unsigned int i = 0, nr;
	struct coll_range r;
	uint64_t wrong = 0;

	do {
		nr = out_ranges(op, rank, nranks, count, i, &r);
		wrong += check_range(out + r.at, r.len, seq, r.base, r.mult,
				     r.add);
	} while (++i < nr);
	return wrong;
}

/* From the definitions, element by element: what mp_coll_check() is
 * tested against. */
float mp_coll_expect(unsigned int op, unsigned int rank, unsigned int nranks,
		     uint64_t seq, size_t count, size_t i)
{
	size_t c = count / nranks;
	unsigned int q;
	float sum = 0;

	switch (op) {
	case MPLANE_COLL_ALLREDUCE:
	case MPLANE_COLL_REDUCE_SCATTER:
		if (op == MPLANE_COLL_REDUCE_SCATTER)
			i += rank * c;
		for (q = 0; q < nranks; q++)
			sum += mp_coll_value(q, seq, i);
		return sum;
	case MPLANE_COLL_ALLGATHER:
		return mp_coll_value(i / c, seq, i);
	case MPLANE_COLL_BROADCAST:
		return mp_coll_value(0, seq, i);
	case MPLANE_COLL_ALLTOALL:
		return mp_coll_value(i / c, seq, rank * c + i % c);
	case MPLANE_COLL_PERMUTATION:
		return mp_coll_value(mp_coll_perm_src(rank, nranks), seq, i);
	case MPLANE_COLL_INCAST:
		return mp_coll_value(i / count + 1, seq, i % count);
	}
	return -1;
}

/* Blocks of a fixed length: at -O2 GCC vectorises only loops whose
 * vector code needs no scalar remainder, and this one's has none. */
#define SUM_BLOCK	16

void mp_coll_sum(float *restrict dst, const float *restrict src, size_t n)
{
	size_t i = 0, k;

	for (; i + SUM_BLOCK <= n; i += SUM_BLOCK)
		for (k = 0; k < SUM_BLOCK; k++)
			dst[i + k] += src[i + k];
	for (; i < n; i++)
		dst[i] += src[i];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double mp_coll_percentile(double *v, size_t n, uint32_t ppm)
{
	size_t k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	/* In integers: 0.99 * 100 in floating point is 98.99999999999999. */
	k = ((uint64_t)n * ppm + 999999) / 1000000;
	return v[k ? k - 1 : 0];
}

int mp_coll_summarise(unsigned int op, unsigned int nranks, uint64_t bytes,
		      const uint64_t *times_ns, uint64_t iters,
		      double *rank_us, struct mp_coll_summary *s)
{
	double factor = mp_coll_busbw_factor(op, nranks), sum = 0, *t, *bw;
	uint64_t it, worst;
	unsigned int r;

	t = malloc(2 * iters * sizeof(*t));
	if (!t)
		return -ENOMEM;
	bw = t + iters;
	for (it = 0; it < iters; it++) {
		for (worst = 0, r = 0; r < nranks; r++)
			if (times_ns[r * iters + it] > worst)
				worst = times_ns[r * iters + it];
		/* At least 1 ns: bandwidth stays finite. */
		t[it] = worst ? worst : 1;
		sum += t[it];
		/* Bytes per ns are GB/s. */
		bw[it] = bytes / t[it] * factor;
	}
	*s = (struct mp_coll_summary){ .iters = iters };
	s->time_us = sum / iters / 1e3;
	s->algbw = bytes / (sum / iters);
	s->busbw = s->algbw * factor;
	s->p01_busbw = mp_coll_percentile(bw, iters, 10000);
	s->p50_us = mp_coll_percentile(t, iters, 500000) / 1e3;
	s->p99_us = mp_coll_percentile(t, iters, 990000) / 1e3;
	s->max_us = t[iters - 1] / 1e3;
	for (r = 0; r < nranks; r++) {
		for (sum = 0, it = 0; it < iters; it++)
			sum += times_ns[r * iters + it];
		rank_us[r] = sum / iters / 1e3;
		if (rank_us[r] > rank_us[s->slowest_rank])
			s->slowest_rank = r;
	}
	free(t);
	return 0;
}
