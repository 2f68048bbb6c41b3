/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The pure logic of 'mplanectl collective' (Documentation/collective.md):
 * operation names, the bus-bandwidth factor of each operation, the ring
 * and chain schedules, the values every rank starts with and those each
 * element must end with, the sum that reduces, and the figures of one
 * size (percentiles, bandwidths, the slowest rank).  No I/O; unit tested
 * in selftests/unit/test_coll.c.
 *
 * A size S is the bytes of the whole buffer, as nccl-tests counts it:
 * allreduce and broadcast move S per rank; allgather ends with S on every
 * rank (S/n from each); reduce-scatter starts with S and ends with S/n;
 * alltoall starts and ends with S, S/n to and from each peer;
 * permutation sends S and receives S; incast sends S from every rank but
 * rank 0 to rank 0.  Elements are float32; S is a multiple of 4n bytes.
 */
#ifndef MP_COLL_H
#define MP_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"

/* As COLL_MAX_RANKS: values and sums stay exact in float32 up to it. */
#define MP_COLL_MAX_RANKS	256

/* Operation names by enum mplane_coll_op, NULL ended (an option's
 * choices): "allreduce", "allgather", "reduce_scatter", ... */
extern const char *const mp_coll_op_names[];

/* The name of @op, or NULL; and back (-1 for an unknown name). */
const char *mp_coll_op_name(unsigned int op);
int mp_coll_op_parse(const char *name);

/*
 * busbw = algbw * factor: the bytes the busiest link of the operation's
 * algorithm carries, over S, so that busbw compares with the link rate
 * whatever the number of ranks.  Allreduce 2(n-1)/n; allgather,
 * reduce-scatter and alltoall (n-1)/n; broadcast and permutation 1;
 * incast n-1 (rank 0's link receives S from each of the n-1 others).
 */
double mp_coll_busbw_factor(unsigned int op, unsigned int nranks);

/* @bytes down to a multiple of 4 * @nranks, and at least that. */
uint64_t mp_coll_round_size(uint64_t bytes, unsigned int nranks);

/*
 * The sizes of a sweep, as nccl-tests' -b MIN -e MAX -f FACTOR: MIN,
 * MIN * FACTOR, ... up to MAX, each rounded (mp_coll_round_size) and
 * none twice.  Writes at most @cap into @sizes; returns how many there
 * are (which may be more than @cap).
 */
unsigned int mp_coll_sizes(uint64_t min, uint64_t max, uint64_t factor,
			   unsigned int nranks, uint64_t *sizes,
			   unsigned int cap);

/*
 * The ring: rank r sends to r + 1 and receives from r - 1, in n - 1
 * steps of one chunk (S/n) each.  Reduce-scatter: in step s rank r sends
 * chunk r - s - 1 and receives (and adds) chunk r - s - 2, so that after
 * the last step it holds chunk r, summed over all ranks.  Allgather:
 * rank r starts with chunk r, sends chunk r - s and receives chunk
 * r - s - 1.  All modulo n.
 */
unsigned int mp_coll_ring_rs_send(unsigned int rank, unsigned int nranks,
				  unsigned int step);
unsigned int mp_coll_ring_rs_recv(unsigned int rank, unsigned int nranks,
				  unsigned int step);
unsigned int mp_coll_ring_ag_send(unsigned int rank, unsigned int nranks,
				  unsigned int step);
unsigned int mp_coll_ring_ag_recv(unsigned int rank, unsigned int nranks,
				  unsigned int step);

/*
 * Broadcast from rank 0 as a pipelined chain 0 -> 1 -> ... -> n-1 of
 * @pieces pieces, in mp_coll_chain_steps() steps: in step k rank r
 * receives piece k - r + 1 from r - 1 and sends piece k - r to r + 1,
 * each -1 when there is none, so a piece moves one hop a step.
 */
unsigned int mp_coll_chain_steps(unsigned int nranks, unsigned int pieces);
void mp_coll_chain_step(unsigned int rank, unsigned int nranks,
			unsigned int pieces, unsigned int step, int *send,
			int *recv);

/* Permutation: rank r sends to r + n/2 and receives from r - n/2 (mod
 * n), a derangement for every n >= 2 that crosses the fabric's middle. */
unsigned int mp_coll_perm_dst(unsigned int rank, unsigned int nranks);
unsigned int mp_coll_perm_src(unsigned int rank, unsigned int nranks);

/*
 * Elements (of @count = S/4) that rank @rank starts with (its input) and
 * ends with (its output, 0 when it has nothing to check: the root of a
 * broadcast, the senders of an incast).  In-place operations count the
 * same buffer twice.
 */
size_t mp_coll_in_count(unsigned int op, unsigned int rank,
			unsigned int nranks, size_t count);
size_t mp_coll_out_count(unsigned int op, unsigned int rank,
			 unsigned int nranks, size_t count);

/*
 * The value rank @rank starts element @i of its full buffer with, in the
 * job's iteration @seq: h(i, seq) + rank + 1, h a hash in [0, 64).  It
 * is never 0, so a missing contribution changes every sum; it depends on
 * the element, so a chunk in the wrong place does not check; and on the
 * iteration, so a buffer left from an earlier one does not either.  Sums
 * over 256 ranks stay below 2^24, exact in float32.
 */
float mp_coll_value(unsigned int rank, uint64_t seq, size_t i);

/* Fill rank @rank's input (mp_coll_in_count elements) for iteration @seq. */
void mp_coll_fill(unsigned int op, unsigned int rank, unsigned int nranks,
		  uint64_t seq, size_t count, float *in);

/* What element @i of rank @rank's output must be after iteration @seq. */
float mp_coll_expect(unsigned int op, unsigned int rank, unsigned int nranks,
		     uint64_t seq, size_t count, size_t i);

/* How many elements of @out (mp_coll_out_count of them) are wrong. */
uint64_t mp_coll_check(unsigned int op, unsigned int rank, unsigned int nranks,
		       uint64_t seq, size_t count, const float *out);

/* dst[i] += src[i]: the reduction, in blocks the compiler vectorises. */
void mp_coll_sum(float *restrict dst, const float *restrict src, size_t n);

/*
 * The nearest-rank percentile of @v (sorted in place): the smallest
 * value with at least @ppm parts per million of the values at or below
 * it, i.e. the ceil(n * ppm / 1e6)-th smallest (the first for ppm 0).
 * p50 of 20 values is the 10th, p99 the 20th, p01 the 1st.  0 when empty.
 */
double mp_coll_percentile(double *v, size_t n, uint32_t ppm);

/* The figures of one size, as 'collective run' reports them. */
struct mp_coll_summary {
	uint64_t iters;
	double time_us;		/* mean iteration time */
	double p50_us, p99_us, max_us;
	double algbw, busbw;	/* GB/s (10^9 bytes/s), from time_us */
	double p01_busbw;	/* p01 of the iterations' busbw */
	unsigned int slowest_rank;	/* the highest mean time */
};

/*
 * From @times_ns[rank * iters + it], each rank's own time of iteration
 * it: an iteration's time is its slowest rank's (the ranks leave a
 * barrier together, so that is when the collective completed); each
 * rank's mean goes to @rank_us[rank].  0, or -ENOMEM; @iters >= 1.
 */
int mp_coll_summarise(unsigned int op, unsigned int nranks, uint64_t bytes,
		      const uint64_t *times_ns, uint64_t iters,
		      double *rank_us, struct mp_coll_summary *s);

#endif /* MP_COLL_H */
