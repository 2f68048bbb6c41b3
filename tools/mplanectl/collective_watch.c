// SPDX-License-Identifier: GPL-2.0
/*
 * The parent's watch over a job's ranks ('collective run'): it forks
 * them, reads what each writes to its two pipes (records: iterations,
 * heartbeats, the end; and its messages), and reaps them.  A rank that
 * exits non-zero or by a signal, or goes silent for --timeout, ends the
 * job: every rank is killed and reaped, and one message names the rank
 * that failed first, a rank killed or silent before the ranks that
 * merely lost it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mp_cmd.h"
#include "mp_out.h"
#include "mp_run.h"
#include "collective_job.h"

/* Ranks that fail within this of the first are weighed with it. */
#define GRACE_NS	300000000ULL
/* Silent this long when another rank fails: the silent one is blamed. */
#define SILENT_NS	(10 * COLL_BEAT_NS)

/* The parent's view of one rank. */
struct rank_watch {
	pid_t pid;
	int rec_fd, err_fd;		/* -1 once at EOF */
	unsigned char rbuf[sizeof(struct coll_rec)];
	size_t rlen;
	char line[512], last[512];	/* the message being read, the last */
	size_t llen;
	uint64_t beat_ns;
	uint64_t failed_ns;		/* when its failure was seen */
	bool exited, done;
	int status;
	struct coll_transport_stats stats;
	uint64_t *times[COLL_MAX_SIZES];
	uint64_t ntimes[COLL_MAX_SIZES], cap[COLL_MAX_SIZES];
	uint64_t wrong[COLL_MAX_SIZES];
};

struct watch {
	const struct coll_job *job;
	struct rank_watch *r;
	uint64_t first_fail_ns;
	bool oom;
};

static void take_rec(struct watch *w, struct rank_watch *rw,
		     const struct coll_rec *rec)
{
	unsigned int si = rec->size_idx;
	uint64_t *t;

	if (rec->kind == COLL_REC_DONE) {
		rw->done = true;
		rw->stats = rec->stats;
	}
	if (rec->kind != COLL_REC_ITER || si >= w->job->nsizes)
		return;
	rw->wrong[si] += rec->wrong;
	if (rec->warm)
		return;
	if (rw->ntimes[si] == rw->cap[si]) {
		rw->cap[si] = rw->cap[si] ? 2 * rw->cap[si] : 64;
		t = realloc(rw->times[si], rw->cap[si] * sizeof(*t));
		if (!t) {
			w->oom = true;
			return;
		}
		rw->times[si] = t;
	}
	rw->times[si][rw->ntimes[si]++] = rec->time_ns;
}

/* Read what is there; at EOF the fd is closed. */
static void read_recs(struct watch *w, struct rank_watch *rw)
{
	unsigned char buf[64 * sizeof(struct coll_rec)];
	ssize_t n, i;

	while ((n = read(rw->rec_fd, buf, sizeof(buf))) > 0) {
		rw->beat_ns = mp_mono_ns();
		for (i = 0; i < n; i++) {
			rw->rbuf[rw->rlen++] = buf[i];
			if (rw->rlen < sizeof(rw->rbuf))
				continue;
			take_rec(w, rw, (const struct coll_rec *)rw->rbuf);
			rw->rlen = 0;
		}
	}
	if (!n || (errno != EAGAIN && errno != EINTR)) {
		close(rw->rec_fd);
		rw->rec_fd = -1;
	}
}

static void read_msgs(struct rank_watch *rw)
{
	char buf[1024];
	ssize_t n, i;

	while ((n = read(rw->err_fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (rw->llen + 1 < sizeof(rw->line))
					rw->line[rw->llen++] = buf[i];
				continue;
			}
			rw->line[rw->llen] = '\0';
			if (rw->llen)
				strcpy(rw->last, rw->line);
			rw->llen = 0;
		}
	}
	if (!n || (errno != EAGAIN && errno != EINTR)) {
		close(rw->err_fd);
		rw->err_fd = -1;
	}
}

static bool rank_failed(const struct rank_watch *rw)
{
	return rw->exited && (!WIFEXITED(rw->status) ||
			      WEXITSTATUS(rw->status) || !rw->done);
}

/* One round: wait up to one beat for output, read it, reap the dead. */
static void watch_round(struct watch *w)
{
	struct pollfd pfd[2 * COLL_MAX_RANKS];
	unsigned int i, n = 0, nr = w->job->nranks;
	struct rank_watch *rw;

	for (i = 0; i < nr; i++) {
		rw = &w->r[i];
		if (rw->rec_fd >= 0)
			pfd[n++] = (struct pollfd){ rw->rec_fd, POLLIN, 0 };
		if (rw->err_fd >= 0)
			pfd[n++] = (struct pollfd){ rw->err_fd, POLLIN, 0 };
	}
	poll(pfd, n, COLL_BEAT_NS / 1000000);
	for (i = 0; i < nr; i++) {
		rw = &w->r[i];
		if (rw->rec_fd >= 0)
			read_recs(w, rw);
		if (rw->err_fd >= 0)
			read_msgs(rw);
		if (rw->exited || waitpid(rw->pid, &rw->status, WNOHANG) != rw->pid)
			continue;
		rw->exited = true;
		/* Whatever it wrote before it went. */
		while (rw->rec_fd >= 0)
			read_recs(w, rw);
		while (rw->err_fd >= 0)
			read_msgs(rw);
		if (rank_failed(rw)) {
			rw->failed_ns = mp_mono_ns();
			if (!w->first_fail_ns)
				w->first_fail_ns = rw->failed_ns;
		}
	}
}

static bool rank_silent(const struct rank_watch *rw, uint64_t now,
			uint64_t for_ns)
{
	return !rw->exited && now - rw->beat_ns >= for_ns;
}

/* 'T' in /proc/PID/stat: stopped by a signal or a tracer. */
static bool rank_stopped(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'T' || p[2] == 't');
}

/* The rank to blame: killed by a signal, else silent, else the first
 * to fail (their peers fail after them, for want of them). */
static int culprit(const struct watch *w, uint64_t now, bool *silent)
{
	unsigned int i, nr = w->job->nranks;
	int first = -1;

	*silent = false;
	for (i = 0; i < nr; i++)
		if (w->r[i].exited && WIFSIGNALED(w->r[i].status))
			return i;
	for (i = 0; i < nr; i++)
		if (rank_silent(&w->r[i], now, SILENT_NS)) {
			*silent = true;
			return i;
		}
	for (i = 0; i < nr; i++)
		if (w->r[i].failed_ns && (first < 0 ||
		    w->r[i].failed_ns < w->r[first].failed_ns))
			first = i;
	return first;
}

/* "mplanectl: collective run: " off a rank's message. */
static const char *msg_text(const char *msg)
{
	char prefix[128];
	size_t len;

	len = snprintf(prefix, sizeof(prefix), "%s: %s: ", mp_progname,
		       mp_cmd_path());
	return strncmp(msg, prefix, len) ? msg : msg + len;
}

static void blame(const struct watch *w, int i, bool silent, uint64_t now)
{
	const struct rank_watch *rw = &w->r[i];
	const char *host = w->job->host[i];

	if (rw->exited && WIFSIGNALED(rw->status))
		mp_err("rank %d (%s) was killed by signal %d (%s)", i, host,
		       WTERMSIG(rw->status), strsignal(WTERMSIG(rw->status)));
	else if (silent)
		mp_err("rank %d (%s) did not answer for %.1f s%s", i, host,
		       (now - rw->beat_ns) / 1e9,
		       rank_stopped(rw->pid) ? " (its process is stopped)" :
					       " (stuck)");
	else if (rw->last[0])
		mp_err("rank %d (%s) failed: %s", i, host, msg_text(rw->last));
	else if (WIFEXITED(rw->status) && !WEXITSTATUS(rw->status))
		mp_err("rank %d (%s) ended without its results", i, host);
	else
		mp_err("rank %d (%s) failed with exit status %d", i, host,
		       WEXITSTATUS(rw->status));
}

static void kill_all(struct watch *w)
{
	unsigned int i;

	for (i = 0; i < w->job->nranks; i++)
		if (w->r[i].pid > 0 && !w->r[i].exited)
			kill(w->r[i].pid, SIGKILL);
	for (i = 0; i < w->job->nranks; i++) {
		if (w->r[i].pid > 0 && !w->r[i].exited)
			waitpid(w->r[i].pid, &w->r[i].status, 0);
		w->r[i].exited = true;
		if (w->r[i].rec_fd >= 0)
			close(w->r[i].rec_fd);
		if (w->r[i].err_fd >= 0)
			close(w->r[i].err_fd);
		w->r[i].rec_fd = w->r[i].err_fd = -1;
	}
}

static bool all_done(const struct watch *w)
{
	unsigned int i;

	for (i = 0; i < w->job->nranks; i++)
		if (!w->r[i].exited || !w->r[i].done)
			return false;
	return true;
}

/* Until every rank is done, or the job fails: MP_EXIT_OK or _ERR. */
static int watch_job(struct watch *w)
{
	uint64_t now;
	bool silent;
	int i;

	for (;;) {
		watch_round(w);
		now = mp_mono_ns();
		if (all_done(w))
			return MP_EXIT_OK;
		if (mp_run_stopping) {
			mp_err("interrupted: the job's ranks are stopped");
			break;
		}
		for (i = 0; i < (int)w->job->nranks && !w->first_fail_ns; i++)
			if (rank_silent(&w->r[i], now, w->job->timeout_ns))
				w->first_fail_ns = now;
		if (!w->first_fail_ns || now - w->first_fail_ns < GRACE_NS)
			continue;
		i = culprit(w, now, &silent);
		if (i >= 0)
			blame(w, i, silent, now);
		else
			mp_err("the job failed");
		break;
	}
	kill_all(w);
	return MP_EXIT_ERR;
}

static void child(const struct coll_job *job, struct watch *w,
		  unsigned int rank, int rec[2], int err[2])
{
	unsigned int i;

	/* The earlier ranks' pipes are the parent's, not ours. */
	for (i = 0; i < rank; i++) {
		close(w->r[i].rec_fd);
		close(w->r[i].err_fd);
	}
	close(rec[0]);
	close(err[0]);
	dup2(err[1], STDERR_FILENO);
	close(err[1]);
	coll_rank_run(job, rank, rec[1]);
}

static int fork_ranks(const struct coll_job *job, struct watch *w)
{
	int rec[2], err[2];
	unsigned int i;
	pid_t pid;

	fflush(NULL);
	for (i = 0; i < job->nranks; i++) {
		if (pipe2(rec, O_CLOEXEC))
			return -errno;
		if (pipe2(err, O_CLOEXEC)) {
			close(rec[0]);
			close(rec[1]);
			return -errno;
		}
		pid = fork();
		if (!pid)
			child(job, w, i, rec, err);
		close(rec[1]);
		close(err[1]);
		if (pid < 0) {
			close(rec[0]);
			close(err[0]);
			return -errno;
		}
		fcntl(rec[0], F_SETFL, O_NONBLOCK);
		fcntl(err[0], F_SETFL, O_NONBLOCK);
		w->r[i] = (struct rank_watch){
			.pid = pid, .rec_fd = rec[0], .err_fd = err[0],
			.beat_ns = mp_mono_ns(),
		};
	}
	return 0;
}

/* The ranks' times per size, and the stats summed. */
static int gather(const struct watch *w, struct coll_size_result *res,
		  struct coll_transport_stats *st)
{
	const struct coll_job *job = w->job;
	unsigned int si, r, nr = job->nranks;
	const struct coll_transport_stats *s;

	*st = (struct coll_transport_stats){};
	for (si = 0; si < job->nsizes; si++) {
		res[si] = (struct coll_size_result){ .bytes = job->sizes[si] };
		res[si].iters = UINT64_MAX;
		for (r = 0; r < nr; r++) {
			res[si].wrong += w->r[r].wrong[si];
			if (w->r[r].ntimes[si] < res[si].iters)
				res[si].iters = w->r[r].ntimes[si];
		}
		res[si].times_ns = calloc(nr * res[si].iters + 1,
					  sizeof(uint64_t));
		if (!res[si].times_ns)
			return -ENOMEM;
		for (r = 0; r < nr; r++)
			memcpy(res[si].times_ns + r * res[si].iters,
			       w->r[r].times[si],
			       res[si].iters * sizeof(uint64_t));
	}
	for (r = 0; r < nr; r++) {
		s = &w->r[r].stats;
		st->tx_packets += s->tx_packets;
		st->rx_packets += s->rx_packets;
		st->tx_bytes += s->tx_bytes;
		st->rx_bytes += s->rx_bytes;
		st->retransmits += s->retransmits;
		st->timeouts += s->timeouts;
		st->naks += s->naks;
		st->held += s->held;
		st->dropped += s->dropped;
		coll_stats_rtt_merge(st, s);
	}
	return 0;
}

static void watch_free(struct watch *w)
{
	unsigned int i, si;

	for (i = 0; i < w->job->nranks; i++)
		for (si = 0; si < COLL_MAX_SIZES; si++)
			free(w->r[i].times[si]);
	free(w->r);
}

int coll_watch(const struct coll_job *job, struct coll_size_result *res,
	       struct coll_transport_stats *st)
{
	struct watch w = { .job = job };
	int err, ret;

	w.r = calloc(job->nranks, sizeof(*w.r));
	if (!w.r) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	mp_run_stop_on_signals();
	err = fork_ranks(job, &w);
	if (err) {
		mp_err("starting the ranks: %s", strerror(-err));
		kill_all(&w);
		ret = MP_EXIT_ERR;
	} else {
		ret = watch_job(&w);
	}
	if (ret == MP_EXIT_OK && (w.oom || gather(&w, res, st))) {
		mp_err("out of memory for the results");
		ret = MP_EXIT_ERR;
	}
	watch_free(&w);
	return ret;
}

void coll_results_free(const struct coll_job *job,
		       struct coll_size_result *res)
{
	unsigned int si;

	for (si = 0; si < job->nsizes; si++) {
		free(res[si].times_ns);
		res[si].times_ns = NULL;
	}
}
