// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of a 'collective run' job, in its own child process: into its
 * host's namespace, connect to every other rank, then per size the
 * warm-up and the timed iterations.  Each iteration fills the input for
 * that iteration, meets every rank at a barrier, runs the operation
 * between two clock readings (and two timeline marks), checks every
 * element of the output and tells the parent.  A thread tells the
 * parent the rank lives, every COLL_BEAT_NS: a rank stopped or stuck
 * in the kernel goes silent, which the parent's watchdog sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/types.h>

#include "mp_cmd.h"
#include "mp_coll.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mp_user_event.h"
#include "mplanectl.h"
#include "collective_job.h"
#include "mplane_events.h"
#include "mplane_mark_proto.h"

struct rank_ctx {
	const struct coll_job *job;
	struct coll_comm c;
	struct coll_bufs bufs;
	int rec_fd;
	uint64_t seq;			/* iterations so far, warm-up too */
	uint64_t timed;			/* timed iterations so far */
};

static void rec_send(int fd, const struct coll_rec *r)
{
	/* A short or failed write means the parent is gone, and with it
	 * the job: the death signal ends this process too. */
	if (write(fd, r, sizeof(*r)) != sizeof(*r))
		_exit(MP_EXIT_ERR);
}

static void *beat(void *arg)
{
	struct coll_rec r = { .kind = COLL_REC_BEAT };
	struct timespec ts = { 0, COLL_BEAT_NS };
	int fd = (int)(long)arg;

	for (;;) {
		rec_send(fd, &r);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void mark(const struct rank_ctx *x, unsigned int kind, uint64_t bytes)
{
	struct mp_user_event_args ev = {
		.type = MPLANE_EV_COLLECTIVE, .flags = x->job->op,
		/* The job, so that the ranks of two jobs stay apart. */
		.ifindex = (uint32_t)x->job->id,
		.plane = MPLANE_EVENT_NO_PLANE,
		.val = { x->timed, x->c.rank, kind, bytes },
	};

	if (x->job->mark_fd >= 0)
		mark_user_event(x->job->mark_fd, &ev);
}

/* One iteration of size @si: 0, or -errno (reported).  *@stop: rank 0
 * said this iteration is not to run (the end of a --duration run). */
static int iteration(struct rank_ctx *x, unsigned int si, bool warm,
		     bool *stop)
{
	const struct coll_job *job = x->job;
	unsigned int op = job->op, r = x->c.rank, n = x->c.nranks;
	uint64_t bytes = job->sizes[si], t0, t1;
	size_t count = bytes / sizeof(float);
	struct coll_rec rec;
	int err;

	mp_coll_fill(op, r, n, x->seq, count,
		     coll_op_in(op, &x->bufs, r, n, count));
	err = coll_barrier(&x->c, x->seq, stop);
	if (err || *stop)
		return err;
	if (!warm)
		mark(x, MPLANE_MARK_STEP, bytes);
	t0 = mp_mono_ns();
	err = coll_op_run(&x->c, op, &x->bufs, count);
	t1 = mp_mono_ns();
	if (err)
		return err;
	if (!warm)
		mark(x, MPLANE_MARK_STEP_END, bytes);
	rec = (struct coll_rec){
		.kind = COLL_REC_ITER, .size_idx = si, .warm = warm,
		.time_ns = t1 - t0,
		.wrong = mp_coll_check(op, r, n, x->seq, count,
				       coll_op_out(op, &x->bufs, r, n, count)),
	};
	rec_send(x->rec_fd, &rec);
	x->seq++;
	x->timed += !warm;
	return 0;
}

/* Rank 0's word at each barrier of a --duration run: time is up. */
static bool time_up(const struct rank_ctx *x, uint64_t start)
{
	return x->c.rank == 0 && x->job->duration_ns &&
	       mp_mono_ns() - start >= x->job->duration_ns;
}

static int size_run(struct rank_ctx *x, unsigned int si)
{
	const struct coll_job *job = x->job;
	uint64_t it, start = 0;
	bool stop = false;
	int err = 0;

	for (it = 0; it < job->warmup && !err; it++)
		err = iteration(x, si, true, &stop);
	start = mp_mono_ns();
	for (it = 0; !err && !stop; it++) {
		if (!job->duration_ns && it == job->iters)
			break;
		/* At least one timed iteration, however short the time. */
		stop = it > 0 && time_up(x, start);
		err = iteration(x, si, false, &stop);
	}
	return err;
}

static int rank_start(struct rank_ctx *x, const struct coll_job *job,
		      unsigned int rank)
{
	char netns[64];
	pthread_t th;
	int err;

	snprintf(netns, sizeof(netns), "%s-%s", job->prefix, job->host[rank]);
	err = mp_netns_enter(netns);
	if (err) {
		mp_err("netns %s: %s", netns, strerror(-err));
		return err;
	}
	err = pthread_create(&th, NULL, beat, (void *)(long)x->rec_fd);
	if (err) {
		mp_err("heartbeat thread: %s", strerror(err));
		return -err;
	}
	x->c.rank = rank;
	x->c.nranks = job->nranks;
	memcpy(x->c.addr, job->addr, sizeof(job->addr));
	x->c.addrlen = job->addrlen;
	x->c.timeout_ns = job->timeout_ns;
	x->c.sndbuf = job->sndbuf;
	x->c.window = job->window;
	x->c.job = job->id;
	x->c.t = job->t;
	err = coll_bufs_alloc(&x->bufs, job->op, rank, job->nranks,
			      job->sizes[job->nsizes - 1] / sizeof(float));
	if (err) {
		mp_err("buffers of %llu bytes: %s",
		       (unsigned long long)job->sizes[job->nsizes - 1],
		       strerror(-err));
		return err;
	}
	return job->t->setup(&x->c);
}

void coll_rank_run(const struct coll_job *job, unsigned int rank, int rec_fd)
{
	struct rank_ctx *x = calloc(1, sizeof(*x));
	struct coll_rec done = { .kind = COLL_REC_DONE };
	bool stop = false;
	unsigned int si;
	int err;

	/* If the parent dies, so do its ranks: no job outlives its run. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != job->parent || !x)
		_exit(MP_EXIT_ERR);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	x->job = job;
	x->rec_fd = rec_fd;
	err = rank_start(x, job, rank);
	if (err)
		_exit(MP_EXIT_ERR);
	for (si = 0; si < job->nsizes && !err; si++)
		err = size_run(x, si);
	/* No rank closes while another still talks to it. */
	if (!err)
		err = coll_barrier(&x->c, x->seq, &stop);
	if (err)
		_exit(MP_EXIT_ERR);
	job->t->teardown(&x->c);
	done.stats = x->c.stats;
	rec_send(rec_fd, &done);
	_exit(MP_EXIT_OK);
}
