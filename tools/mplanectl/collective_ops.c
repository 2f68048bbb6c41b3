// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of 'mplanectl collective', each a sequence of
 * coll_exchange() steps over the schedules of tools/lib/mp_coll.h:
 *  - allreduce: ring reduce-scatter, then ring allgather, in place;
 *  - reduce-scatter and allgather: one of those two rings;
 *  - broadcast: from rank 0 down the chain 0 -> 1 -> ... -> n-1, in
 *    slices, so every link carries a slice at every step;
 *  - alltoall: one exchange with every peer at once;
 *  - permutation: one send to r + n/2 and one receive from r - n/2;
 *  - incast: every rank sends to rank 0, which receives them all at once.
 * Rings move a chunk (S/n) a step in slices of COLL_SLICE bytes: a
 * reduction adds one slice while the next fills the socket buffers, and
 * its scratch space is one slice, whatever S is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_coll.h"
#include "mp_out.h"
#include "collective_job.h"
#include "mplane_events.h"

#define COLL_SLICE		(256 << 10)
#define SLICE_ELEMS		(COLL_SLICE / sizeof(float))
#define BARRIER_MAGIC		0x4d504252U	/* "MPBR" */

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Page-aligned, and touched now: no page faults in a timed iteration. */
static float *bufs_get(size_t elems)
{
	void *p;

	if (!elems)
		return NULL;
	if (posix_memalign(&p, 4096, elems * sizeof(float)))
		return NULL;
	memset(p, 0, elems * sizeof(float));
	return p;
}

int coll_bufs_alloc(struct coll_bufs *b, unsigned int op, unsigned int rank,
		    unsigned int nranks, size_t max_count)
{
	size_t out = 0;

	*b = (struct coll_bufs){};
	if (op == MPLANE_COLL_ALLTOALL || op == MPLANE_COLL_PERMUTATION ||
	    op == MPLANE_COLL_INCAST)
		out = mp_coll_out_count(op, rank, nranks, max_count);
	b->a = bufs_get(max_count);
	b->b = bufs_get(out);
	if (op == MPLANE_COLL_ALLREDUCE || op == MPLANE_COLL_REDUCE_SCATTER)
		b->scratch = bufs_get(min_sz(SLICE_ELEMS, max_count));
	if (!b->a || (out && !b->b) ||
	    (!b->scratch && (op == MPLANE_COLL_ALLREDUCE ||
			     op == MPLANE_COLL_REDUCE_SCATTER))) {
		coll_bufs_free(b);
		return -ENOMEM;
	}
	return 0;
}

void coll_bufs_free(struct coll_bufs *b)
{
	free(b->a);
	free(b->b);
	free(b->scratch);
	*b = (struct coll_bufs){};
}

float *coll_op_in(unsigned int op, const struct coll_bufs *b,
		  unsigned int rank, unsigned int nranks, size_t count)
{
	/* Allgather is in place: rank r's part is chunk r of the whole. */
	if (op == MPLANE_COLL_ALLGATHER)
		return b->a + rank * (count / nranks);
	return b->a;
}

const float *coll_op_out(unsigned int op, const struct coll_bufs *b,
			 unsigned int rank, unsigned int nranks, size_t count)
{
	switch (op) {
	case MPLANE_COLL_REDUCE_SCATTER:
		return b->a + rank * (count / nranks);
	case MPLANE_COLL_ALLTOALL:
	case MPLANE_COLL_PERMUTATION:
	case MPLANE_COLL_INCAST:
		return b->b;
	default:
		return b->a;
	}
}

/* One ring phase over chunks of @chunk elements, as a list of units:
 * unit u is slice u % per of step u / per. */
struct ring {
	struct coll_comm *c;
	float *buf, *scratch;
	size_t chunk, slice;
	unsigned int per, units;
	bool reduce;			/* reduce-scatter, else allgather */
};

static void unit_of(const struct ring *g, unsigned int u, bool tx,
		    size_t *at, size_t *len)
{
	unsigned int r = g->c->rank, n = g->c->nranks, step = u / g->per;
	size_t off = (u % g->per) * g->slice;
	unsigned int chunk;

	if (g->reduce)
		chunk = tx ? mp_coll_ring_rs_send(r, n, step) :
			     mp_coll_ring_rs_recv(r, n, step);
	else
		chunk = tx ? mp_coll_ring_ag_send(r, n, step) :
			     mp_coll_ring_ag_recv(r, n, step);
	*at = chunk * g->chunk + off;
	*len = min_sz(g->slice, g->chunk - off);
}

/*
 * Unit by unit, each exchange one slice out to r + 1 and one in from
 * r - 1.  No send runs ahead of its receive: a send may complete only
 * once the peer takes it (a transport with acknowledgements), and a
 * peer that is itself blocked sending ahead would never take it.
 */
static int ring_run(struct ring *g)
{
	unsigned int n = g->c->nranks, r = g->c->rank, u;
	struct coll_xfer tx, rx;
	size_t at, len;
	int err;

	for (u = 0; u < g->units; u++) {
		unit_of(g, u, true, &at, &len);
		tx = (struct coll_xfer){ (r + 1) % n, g->buf + at,
					 len * sizeof(float) };
		unit_of(g, u, false, &at, &len);
		rx = (struct coll_xfer){ (r + n - 1) % n,
					 g->reduce ? g->scratch : g->buf + at,
					 len * sizeof(float) };
		err = coll_exchange(g->c, &tx, 1, &rx, 1);
		if (err)
			return err;
		if (g->reduce)
			mp_coll_sum(g->buf + at, g->scratch, len);
	}
	return 0;
}

static int ring(struct coll_comm *c, float *buf, float *scratch,
		size_t count, bool reduce)
{
	struct ring g = {
		.c = c, .buf = buf, .scratch = scratch,
		.chunk = count / c->nranks, .reduce = reduce,
	};

	g.slice = min_sz(SLICE_ELEMS, g.chunk);
	g.per = (g.chunk + g.slice - 1) / g.slice;
	g.units = (c->nranks - 1) * g.per;
	return ring_run(&g);
}

/*
 * A chain of n ranks takes n - 2 steps more than it has pieces: pieces
 * of a quarter of S/n at most, so that the chain's fill and drain stay
 * small next to its run; but not below BCAST_MIN_SLICE, whose step
 * would cost more in poll() than on the wire.
 */
#define BCAST_MIN_SLICE		(16384 / sizeof(float))

static int broadcast(struct coll_comm *c, float *buf, size_t count)
{
	unsigned int r = c->rank, n = c->nranks, k, pieces, steps;
	size_t slice = min_sz(SLICE_ELEMS, count / (4 * n));
	struct coll_xfer tx = {}, rx = {};
	int snd, rcv, err;

	if (slice < BCAST_MIN_SLICE)
		slice = min_sz(BCAST_MIN_SLICE, count);
	pieces = (count + slice - 1) / slice;
	steps = mp_coll_chain_steps(n, pieces);
	for (k = 0; k < steps; k++) {
		mp_coll_chain_step(r, n, pieces, k, &snd, &rcv);
		if (snd >= 0)
			tx = (struct coll_xfer){ r + 1, buf + snd * slice,
				min_sz(slice, count - snd * slice) * sizeof(float) };
		if (rcv >= 0)
			rx = (struct coll_xfer){ r - 1, buf + rcv * slice,
				min_sz(slice, count - rcv * slice) * sizeof(float) };
		err = coll_exchange(c, &tx, snd >= 0, &rx, rcv >= 0);
		if (err)
			return err;
	}
	return 0;
}

/* Block q of @in to rank q, block q of @out from rank q, all at once. */
static int alltoall(struct coll_comm *c, const float *in, float *out,
		    size_t count)
{
	unsigned int r = c->rank, n = c->nranks, q, k = 0;
	struct coll_xfer tx[COLL_MAX_RANKS], rx[COLL_MAX_RANKS];
	size_t blk = count / n;

	memcpy(out + r * blk, in + r * blk, blk * sizeof(float));
	/* Each rank starts with its next neighbour: the peers' first
	 * bytes spread over the fabric instead of all to rank 0. */
	for (q = (r + 1) % n; q != r; q = (q + 1) % n, k++) {
		tx[k] = (struct coll_xfer){ q, (float *)in + q * blk,
					    blk * sizeof(float) };
		rx[k] = (struct coll_xfer){ q, out + q * blk,
					    blk * sizeof(float) };
	}
	return coll_exchange(c, tx, k, rx, k);
}

static int permutation(struct coll_comm *c, float *in, float *out,
		       size_t count)
{
	struct coll_xfer tx = { mp_coll_perm_dst(c->rank, c->nranks), in,
				count * sizeof(float) };
	struct coll_xfer rx = { mp_coll_perm_src(c->rank, c->nranks), out,
				count * sizeof(float) };

	return coll_exchange(c, &tx, 1, &rx, 1);
}

static int incast(struct coll_comm *c, float *in, float *out, size_t count)
{
	struct coll_xfer x[COLL_MAX_RANKS];
	unsigned int q;

	if (c->rank) {
		x[0] = (struct coll_xfer){ 0, in, count * sizeof(float) };
		return coll_exchange(c, x, 1, NULL, 0);
	}
	for (q = 1; q < c->nranks; q++)
		x[q - 1] = (struct coll_xfer){ q, out + (q - 1) * count,
					       count * sizeof(float) };
	return coll_exchange(c, NULL, 0, x, c->nranks - 1);
}

int coll_op_run(struct coll_comm *c, unsigned int op, struct coll_bufs *b,
		size_t count)
{
	int err;

	switch (op) {
	case MPLANE_COLL_ALLREDUCE:
		err = ring(c, b->a, b->scratch, count, true);
		return err ? err : ring(c, b->a, NULL, count, false);
	case MPLANE_COLL_REDUCE_SCATTER:
		return ring(c, b->a, b->scratch, count, true);
	case MPLANE_COLL_ALLGATHER:
		return ring(c, b->a, NULL, count, false);
	case MPLANE_COLL_BROADCAST:
		return broadcast(c, b->a, count);
	case MPLANE_COLL_ALLTOALL:
		return alltoall(c, b->a, b->b, count);
	case MPLANE_COLL_PERMUTATION:
		return permutation(c, b->a, b->b, count);
	case MPLANE_COLL_INCAST:
		return incast(c, b->a, b->b, count);
	}
	return -EINVAL;
}

struct barrier_msg {
	uint32_t magic;
	uint32_t stop;
	uint64_t seq;
};

static int barrier_check(unsigned int peer, const struct barrier_msg *m,
			 uint64_t seq)
{
	if (m->magic == BARRIER_MAGIC && m->seq == seq)
		return 0;
	mp_err("out of step with rank %u: at iteration %llu, it at %llu",
	       peer, (unsigned long long)seq, (unsigned long long)m->seq);
	return -EPROTO;
}

/*
 * A star: every rank tells rank 0 it is here and waits for rank 0's
 * word, which carries the stop.  Two one-way trips, whatever n is.
 */
int coll_barrier(struct coll_comm *c, uint64_t seq, bool *stop)
{
	struct barrier_msg me = { BARRIER_MAGIC, *stop, seq };
	struct barrier_msg in[COLL_MAX_RANKS];
	/* Zeroed: GCC cannot tell that n >= 2 fills it. */
	struct coll_xfer x[COLL_MAX_RANKS] = {};
	unsigned int q, n = c->nranks;
	int err;

	if (c->rank) {
		struct coll_xfer tx = { 0, &me, sizeof(me) };
		struct coll_xfer rx = { 0, &in[0], sizeof(in[0]) };

		err = coll_exchange(c, &tx, 1, &rx, 1);
		if (!err)
			err = barrier_check(0, &in[0], seq);
		*stop = !err && in[0].stop;
		return err;
	}
	for (q = 1; q < n; q++)
		x[q - 1] = (struct coll_xfer){ q, &in[q], sizeof(in[q]) };
	err = coll_exchange(c, NULL, 0, x, n - 1);
	for (q = 1; q < n && !err; q++)
		err = barrier_check(q, &in[q], seq);
	for (q = 1; q < n && !err; q++)
		x[q - 1] = (struct coll_xfer){ q, &me, sizeof(me) };
	return err ? err : coll_exchange(c, x, n - 1, NULL, 0);
}
