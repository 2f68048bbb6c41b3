// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include "mp_hist.h"

#define SUB		MP_HIST_SUB_BITS
#define EXACT		(2U << SUB)	/* values below are their own bucket */

/*
 * Below 2^(SUB+1) a value is its own bucket.  Above, a value whose top bit
 * is bit b keeps its SUB+1 top bits, m in [2^SUB, 2^(SUB+1)), and drops the
 * shift = b - SUB bits below them: bucket shift * 2^SUB + m, which carries
 * on from the exact buckets without a hole.
 */
unsigned int mp_hist_bucket(uint64_t v)
{
	unsigned int shift;

	if (v < EXACT)
		return v;
	shift = 63 - __builtin_clzll(v) - SUB;
	return (shift << SUB) + (unsigned int)(v >> shift);
}

uint64_t mp_hist_bucket_low(unsigned int b)
{
	unsigned int shift;
	uint64_t m;

	if (b < EXACT)
		return b;
	shift = (b >> SUB) - 1;
	m = (b & ((1U << SUB) - 1)) | (1U << SUB);
	return m << shift;
}

uint64_t mp_hist_bucket_high(unsigned int b)
{
	unsigned int shift;
	uint64_t m;

	if (b < EXACT)
		return b;
	shift = (b >> SUB) - 1;
	m = (b & ((1U << SUB) - 1)) | (1U << SUB);
	/* For the top bucket (m + 1) << shift is 2^64: it wraps to 0, and
	 * the result to UINT64_MAX, as it should. */
	return ((m + 1) << shift) - 1;
}

void mp_hist_add(struct mp_hist *h, uint64_t v)
{
	h->buckets[mp_hist_bucket(v)]++;
	h->sum += v;
	if (!h->count++ || v > h->max)
		h->max = v;
}

void mp_hist_merge(struct mp_hist *dst, const struct mp_hist *src)
{
	unsigned int b;

	if (!src->count)
		return;
	for (b = 0; b < MP_HIST_BUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
}

uint64_t mp_hist_quantile_ppm(const struct mp_hist *h, uint32_t ppm)
{
	uint64_t rank, seen = 0, high;
	unsigned int b;

	if (!h->count)
		return 0;
	/* rank = ceil(ppm * count / 10^6), at least 1 and at most count. */
	rank = (uint64_t)(((unsigned __int128)h->count * ppm + 999999) /
			  1000000);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (b = 0; b < MP_HIST_BUCKETS - 1; b++) {
		seen += h->buckets[b];
		if (seen >= rank)
			break;
	}
	high = mp_hist_bucket_high(b);
	return high < h->max ? high : h->max;
}

void mp_hist_cumulative(const struct mp_hist *h, const uint64_t *le,
			unsigned int n, uint64_t *out)
{
	unsigned int b = 0, i;
	uint64_t seen = 0;

	for (i = 0; i < n; i++) {
		while (b < MP_HIST_BUCKETS && mp_hist_bucket_high(b) <= le[i])
			seen += h->buckets[b++];
		out[i] = seen;
	}
}
