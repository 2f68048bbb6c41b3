/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A log-linear histogram of 64-bit values: exact below 128, then 64
 * buckets per power of two, so a bucket spans at most 1/64 (1.6 %) of its
 * values, over the whole range of uint64_t.  Used for delivery gaps
 * ('traffic recv'), queue depths and step times (the telemetry views).
 *
 * Pure integer C that needs nothing beyond <stdint.h> and <string.h>, so
 * that mplane.ko could keep one too; unit tested in
 * selftests/unit/test_hist.c.
 */
#ifndef MP_HIST_H
#define MP_HIST_H

#include <stdint.h>

#define MP_HIST_SUB_BITS	6
#define MP_HIST_BUCKETS		((65 - MP_HIST_SUB_BITS) << MP_HIST_SUB_BITS)

/* Zero it to start. */
struct mp_hist {
	uint64_t count;
	uint64_t max;		/* the largest value added; 0 when empty */
	uint64_t sum;		/* of every value added; wraps past 2^64 */
	uint64_t buckets[MP_HIST_BUCKETS];
};

unsigned int mp_hist_bucket(uint64_t v);

/* The lowest and the highest value that fall into bucket @b. */
uint64_t mp_hist_bucket_low(unsigned int b);
uint64_t mp_hist_bucket_high(unsigned int b);

void mp_hist_add(struct mp_hist *h, uint64_t v);

/* Add every value of @src to @dst, as if they had been added there. */
void mp_hist_merge(struct mp_hist *dst, const struct mp_hist *src);

/*
 * The value at quantile @ppm parts per million (1 .. 1000000): the
 * smallest v such that at least that share of the values are <= v, given
 * as the highest value of its bucket but never above the largest value
 * added.  So it is never below the exact quantile and at most 1/64 above
 * it.  0 when empty.
 */
uint64_t mp_hist_quantile_ppm(const struct mp_hist *h, uint32_t ppm);

#ifndef __KERNEL__
/* The same for @q in (0, 1]; not for the kernel, which has no floats. */
static inline uint64_t mp_hist_quantile(const struct mp_hist *h, double q)
{
	/* In ppm, so that 0.999 of 1000 values is a rank of exactly 999,
	 * which floating point might make 999.0000000000001. */
	return mp_hist_quantile_ppm(h, (uint32_t)(q * 1e6 + 0.5));
}
#endif

/*
 * Cumulative counts at the upper bounds @le[0..n) (ascending), as a
 * Prometheus histogram's _bucket{le=...} wants them: @out[i] counts the
 * values whose bucket's highest value is <= le[i].  That is exactly the
 * values <= le[i] when le[i] is a bucket's highest value (every 2^k - 1
 * is, and every value below 128); otherwise the values of the bucket
 * that straddles le[i] count at the next bound, as if each value were
 * the highest of its bucket, just as mp_hist_quantile() reports them.
 * The counts never decrease, and the +Inf bucket is h->count.
 */
void mp_hist_cumulative(const struct mp_hist *h, const uint64_t *le,
			unsigned int n, uint64_t *out);

#endif /* MP_HIST_H */
