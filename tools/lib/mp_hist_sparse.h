/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A histogram that keeps only the buckets it has used, for the telemetry
 * model's per-entity queue depths: a dense struct mp_hist is 30 KB, and a
 * capture can make an entity with every 64-byte frame.  This one costs
 * 16 bytes a bucket used, so the model's memory grows with its input, not
 * 470 times faster.  The views read it expanded into a dense histogram.
 */
#ifndef MP_HIST_SPARSE_H
#define MP_HIST_SPARSE_H

#include <stdint.h>

#include "mp_hist.h"

struct mp_hist_sparse_bucket {
	uint32_t bucket;		/* mp_hist_bucket() of its values */
	uint64_t count;
};

/* Zero it to start; mp_hist_sparse_free() when done. */
struct mp_hist_sparse {
	uint64_t count, max, sum;	/* as struct mp_hist's */
	unsigned int n, cap;
	struct mp_hist_sparse_bucket *b;	/* n of them, by bucket */
};

/* 0, or -ENOMEM with the value not added. */
int mp_hist_sparse_add(struct mp_hist_sparse *h, uint64_t v);

/* @out (overwritten) holds every value of @h, as if added there. */
void mp_hist_sparse_expand(const struct mp_hist_sparse *h,
			   struct mp_hist *out);

void mp_hist_sparse_free(struct mp_hist_sparse *h);

#endif /* MP_HIST_SPARSE_H */
