/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A 'collective run' job, between its files: the plan the parent makes
 * and every rank inherits across fork() (collective_run.c), a rank's
 * life (collective_rank.c), the operations (collective_ops.c), what a
 * rank tells the parent over its pipe and the parent's watch
 * (collective_watch.c), and the report (collective_report.c).
 */
#ifndef MPLANECTL_COLLECTIVE_JOB_H
#define MPLANECTL_COLLECTIVE_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collective.h"
#include "mplane_events.h"

/* Sizes of one sweep: 1 byte to 1 GiB by a factor of 2 is 31. */
#define COLL_MAX_SIZES		64
/* A rank tells the parent it lives this often. */
#define COLL_BEAT_NS		100000000ULL

struct coll_job {
	unsigned int op;		/* enum mplane_coll_op */
	const struct coll_transport *t;
	unsigned int nranks;
	const char *prefix;		/* the fabric */
	char host[COLL_MAX_RANKS][32];	/* rank r runs on host[r] ("h3") */
	struct sockaddr_storage addr[COLL_MAX_RANKS];
	socklen_t addrlen;
	uint64_t sizes[COLL_MAX_SIZES];	/* bytes, ascending */
	unsigned int nsizes;
	uint64_t iters, warmup;
	uint64_t duration_ns;		/* 0: @iters timed iterations */
	uint64_t timeout_ns;
	uint64_t sndbuf;		/* bytes; 0: the transport's default */
	uint64_t window;		/* roce: packets in flight a QP; 0: default */
	int mark_fd;			/* the user-event program; -1: none */
	uint64_t id;
	pid_t parent;
};

/* What a rank writes to its pipe: whole records (below PIPE_BUF, so a
 * write is atomic and the heartbeat thread's never splits another). */
enum coll_rec_kind {
	COLL_REC_BEAT,			/* alive */
	COLL_REC_ITER,			/* an iteration done and checked */
	COLL_REC_DONE,			/* the job's end, with the stats */
};

struct coll_rec {
	uint32_t kind;
	uint32_t size_idx;		/* ITER: of job->sizes */
	uint32_t warm;			/* ITER: a warm-up iteration */
	uint32_t pad;
	uint64_t time_ns;		/* ITER: this rank's time of it */
	uint64_t wrong;			/* ITER: elements that did not check */
	struct coll_transport_stats stats;	/* DONE */
};

/* Rank @rank's whole life, in its child process: never returns. */
void coll_rank_run(const struct coll_job *job, unsigned int rank,
		   int rec_fd) __attribute__((noreturn));

/* A rank's buffers for sizes up to @max_count elements. */
struct coll_bufs {
	float *a;		/* the input, or the in-place buffer */
	float *b;		/* the output of out-of-place operations */
	float *scratch;		/* one slice, that a reduction adds from */
};

int coll_bufs_alloc(struct coll_bufs *b, unsigned int op, unsigned int rank,
		    unsigned int nranks, size_t max_count);
void coll_bufs_free(struct coll_bufs *b);

/* Where a rank's input of @count elements goes, and its output is. */
float *coll_op_in(unsigned int op, const struct coll_bufs *b,
		  unsigned int rank, unsigned int nranks, size_t count);
const float *coll_op_out(unsigned int op, const struct coll_bufs *b,
			 unsigned int rank, unsigned int nranks, size_t count);

/* One operation on @count elements: 0, or the transport's -errno. */
int coll_op_run(struct coll_comm *c, unsigned int op, struct coll_bufs *b,
		size_t count);

/*
 * Every rank waits for every other; iteration @seq's.  Rank 0's @stop
 * goes to all ranks (it ends a --duration run); 0, or -errno (-EPROTO,
 * reported, when a rank is at another iteration).
 */
int coll_barrier(struct coll_comm *c, uint64_t seq, bool *stop);

/* One size's results, as the parent gathered them. */
struct coll_size_result {
	uint64_t bytes;
	uint64_t iters;			/* timed, the same on every rank */
	uint64_t wrong;			/* warm-up and timed, all ranks */
	uint64_t *times_ns;		/* [rank * iters + it] */
};

/*
 * Fork the job's ranks and watch them to their end: MP_EXIT_OK with each
 * size's results in @res (free them with coll_results_free()) and the
 * transports' counts summed in @st; or MP_EXIT_ERR when a rank failed,
 * died or hung, reported, with every rank killed and reaped.
 */
int coll_watch(const struct coll_job *job, struct coll_size_result *res,
	       struct coll_transport_stats *st);
void coll_results_free(const struct coll_job *job,
		       struct coll_size_result *res);

/* Print the job's table, text or JSON; @stats summed over the ranks. */
void coll_report(const struct coll_job *job,
		 const struct coll_size_result *res,
		 const struct coll_transport_stats *stats);

#endif /* MPLANECTL_COLLECTIVE_JOB_H */
