// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_hist_sparse.h"

/* The index of @bucket in @h, or where it would go to keep the order. */
static unsigned int bucket_index(const struct mp_hist_sparse *h,
				 uint32_t bucket)
{
	unsigned int lo = 0, hi = h->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->b[mid].bucket < bucket)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int bucket_insert(struct mp_hist_sparse *h, unsigned int at,
			 uint32_t bucket)
{
	struct mp_hist_sparse_bucket *b;
	unsigned int cap;

	if (h->n == h->cap) {
		cap = h->cap ? h->cap * 2 : 4;
		b = realloc(h->b, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		h->b = b;
		h->cap = cap;
	}
	memmove(&h->b[at + 1], &h->b[at], (h->n - at) * sizeof(*h->b));
	h->b[at].bucket = bucket;
	h->b[at].count = 0;
	h->n++;
	return 0;
}

int mp_hist_sparse_add(struct mp_hist_sparse *h, uint64_t v)
{
	uint32_t bucket = mp_hist_bucket(v);
	unsigned int at = bucket_index(h, bucket);

	if ((at == h->n || h->b[at].bucket != bucket) &&
	    bucket_insert(h, at, bucket))
		return -ENOMEM;
	h->b[at].count++;
	h->sum += v;
	if (!h->count++ || v > h->max)
		h->max = v;
	return 0;
}

void mp_hist_sparse_expand(const struct mp_hist_sparse *h,
			   struct mp_hist *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < h->n; i++)
		out->buckets[h->b[i].bucket] = h->b[i].count;
	out->count = h->count;
	out->max = h->max;
	out->sum = h->sum;
}

void mp_hist_sparse_free(struct mp_hist_sparse *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}
