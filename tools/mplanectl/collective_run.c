// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl collective run: the parent of a job.  It reads the fabric's
 * state file, gives one rank to each host of --hosts (in that order),
 * forks the ranks (collective_rank.c), and watches them: every rank
 * writes its iterations and a heartbeat to a pipe, and its messages to
 * another.  A rank that exits non-zero or by a signal, or goes silent
 * for --timeout, ends the job: every rank is killed and reaped, one
 * message names the rank that failed first (a rank killed, or silent,
 * before the ranks that merely lost it), and the exit status is 1.
 * Otherwise the results go to collective_report.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/wait.h>

#include "mp_cmd.h"
#include "mp_coll.h"
#include "mp_fabric.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mplanectl.h"
#include "fabric.h"
#include "collective_job.h"

#define MAX_BYTES	(1ULL << 30)
#define MAX_TIMEOUT_NS	(3600 * 1000000000ULL)
/* Ranks that fail within this of the first are weighed with it. */
#define GRACE_NS	300000000ULL
/* Silent this long when another rank fails: the silent one is blamed. */
#define SILENT_NS	(10 * COLL_BEAT_NS)

static const char *const transport_names[] = { "tcp", "roce", NULL };
static const char *const family_names[] = { "4", "6", NULL };

/* --hosts: a list of host numbers, or the first N; none: every host. */
struct host_sel {
	unsigned int n;
	unsigned int first;		/* "N": the first N hosts */
	unsigned int idx[COLL_MAX_RANKS];
	const char *arg;
};

struct run_settings {
	char prefix[32];
	struct host_sel hosts;
	int op;
	uint64_t minbytes, maxbytes, stepfactor, iters, warmup;
	int transport;
	uint64_t timeout_ns, duration_ns;
	bool no_marks;
	uint64_t port;
	int family;
};

static int prefix_parse(const char *opt, const char *arg, void *field)
{
	(void)opt;
	return fabric_prefix_arg(arg, field, 32);
}

static int hosts_bad(const char *opt, const char *arg, const char *why)
{
	return mp_usage_err("bad %s '%s': %s", opt, arg, why);
}

static int hosts_parse(const char *opt, const char *arg, void *field)
{
	struct host_sel *s = field;
	const char *p = arg;
	unsigned long v;
	unsigned int i;
	char *end;

	*s = (struct host_sel){ .arg = arg };
	if (*arg >= '0' && *arg <= '9') {
		v = strtoul(arg, &end, 10);
		if (*end || v < 2 || v > COLL_MAX_RANKS)
			return hosts_bad(opt, arg, "want a number of hosts from 2 to 256, or a list such as h0,h1,h3");
		s->first = v;
		return MP_EXIT_OK;
	}
	for (;;) {
		if (*p != 'h' || p[1] < '0' || p[1] > '9')
			return hosts_bad(opt, arg, "want host names such as h0,h1,h3, or a number of hosts");
		v = strtoul(p + 1, &end, 10);
		if (v >= FABRIC_MAX_HOSTS || (*end && *end != ','))
			return hosts_bad(opt, arg, "want host names such as h0,h1,h3, or a number of hosts");
		for (i = 0; i < s->n; i++)
			if (s->idx[i] == v)
				return mp_usage_err("bad %s '%s': h%lu twice",
						    opt, arg, v);
		if (s->n == COLL_MAX_RANKS)
			return hosts_bad(opt, arg, "more than 256 hosts");
		s->idx[s->n++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	return MP_EXIT_OK;
}

#define AT(m)	MP_OPT_AT(struct run_settings, m)

static const struct mp_opt run_opts[] = {
	{ "prefix", 'p', MP_OPT_CUSTOM, AT(prefix), "NAME",
	  "the fabric to run on, as 'fabric up --prefix' named it",
	  .parse = prefix_parse, .def = MP_FABRIC_DEF_PREFIX },
	{ "hosts", 'H', MP_OPT_CUSTOM, AT(hosts), "LIST",
	  "the job's hosts, rank 0 first: h0,h2,h5; or N, the first N hosts. Two jobs on hosts of their own run side by side",
	  .parse = hosts_parse, .def = "every host of the fabric" },
	{ "op", 'o', MP_OPT_CHOICE, AT(op), "OP",
	  "the operation (required); permutation and incast are background load patterns",
	  .choices = mp_coll_op_names },
	{ "minbytes", 'b', MP_OPT_BYTES, AT(minbytes), "SIZE",
	  "the smallest size: bytes of the whole buffer, as nccl-tests counts them (K, M, G are 2^10, 2^20, 2^30); every size is rounded down to a multiple of 4 x ranks bytes",
	  .min = 1, .max = MAX_BYTES, .def = "1M" },
	{ "maxbytes", 'e', MP_OPT_BYTES, AT(maxbytes), "SIZE",
	  "the largest size", .min = 1, .max = MAX_BYTES, .def = "64M" },
	{ "stepfactor", 'f', MP_OPT_UINT, AT(stepfactor), "F",
	  "each size is F times the one before", .min = 2, .max = 1024,
	  .def = "2" },
	{ "iters", 'n', MP_OPT_UINT, AT(iters), "N",
	  "timed iterations per size", .min = 1, .max = 1000000,
	  .def = "20" },
	{ "warmup", 'w', MP_OPT_UINT, AT(warmup), "N",
	  "iterations per size before the timed ones, checked but not timed",
	  .min = 0, .max = 1000000, .def = "5" },
	{ "transport", 't', MP_OPT_CHOICE, AT(transport), "NAME",
	  "tcp: a full mesh of TCP connections; roce: RoCEv2 framing over UDP",
	  .choices = transport_names, .def = "tcp" },
	{ "duration", 'd', MP_OPT_SECONDS, AT(duration_ns), "SECONDS",
	  .help = "instead of -n: run the largest size (-e) over and over for this long, as background load for another job" },
	{ "timeout", 0, MP_OPT_SECONDS, AT(timeout_ns), "SECONDS",
	  "a rank that moves no data, or does not answer, for this long ends the job",
	  .def = "10" },
	{ "port", 0, MP_OPT_UINT, AT(port), "PORT",
	  "the transport's port on every host; two jobs that share a host need two ports",
	  .min = 1, .max = 65535, .def = "18515 for tcp, 4791 for roce" },
	{ "family", 0, MP_OPT_CHOICE, AT(family), "4|6",
	  "IPv4 or IPv6 addresses of the hosts' plane-0 rails",
	  .choices = family_names, .def = "4" },
	{ "no-marks", 0, MP_OPT_FLAG, AT(no_marks), NULL,
	  .help = "put no iteration marks on the telemetry timeline" },
	{}
};

static const struct mp_opt_cmd run_cmd = {
	.usage = "collective run [--prefix NAME] [--hosts h0,h1,...] --op OP [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [--transport tcp|roce]",
	.about =
"Run a collective operation the way an NCCL job does, one rank per host of\n"
"a fabric built by 'mplanectl fabric up', each in its host's namespace,\n"
"and report it as nccl-tests does.  Every iteration starts at a barrier of\n"
"all ranks, and every element of every rank's result is checked against\n"
"what it must be for that iteration (float32 sums of small integers, so\n"
"sums are exact): a lost, reordered or stale byte shows as #wrong and the\n"
"exit status 1, never as bandwidth.\n"
"\n"
"Operations: allreduce (a ring: reduce-scatter, then allgather),\n"
"allgather, reduce_scatter and alltoall; broadcast from rank 0 down a\n"
"pipelined chain; permutation (rank r sends to rank r + n/2) and incast\n"
"(every rank to rank 0), the load patterns that make background traffic.\n"
"\n"
"Each row is one size:\n"
"  size     bytes of the whole buffer (allgather: of the result;\n"
"           reduce_scatter: of the input; incast: each sender's)\n"
"  count    elements (float32) of it\n"
"  time     mean completion time of the timed iterations, in us: an\n"
"           iteration takes as long as its slowest rank\n"
"  algbw    size / time, in GB/s (10^9 bytes/s)\n"
"  busbw    algbw x factor: what the busiest link carried, comparable to\n"
"           the link rate whatever the number of ranks n.  The factor is\n"
"           2(n-1)/n for allreduce; (n-1)/n for allgather, reduce_scatter\n"
"           and alltoall; 1 for broadcast and permutation; n-1 for incast\n"
"  #wrong   elements that did not check, warm-up included\n"
"  p50 p99 max  completion time percentiles over the iterations (us;\n"
"           nearest rank: p99 of 20 iterations is the slowest)\n"
"  p01bw    the 1st percentile of the iterations' busbw: the bad tail\n"
"  slowest  the rank with the highest mean time (each rank's own time,\n"
"           from the barrier to its last byte, is in the JSON's 'ranks')\n"
"The last line is the mean busbw over the sizes.  With -j: one JSON\n"
"object, each size with size, count, time_us, algbw, busbw (GB/s),\n"
"verified, p50_us, p99_us, max_us, p01_busbw, slowest_rank and ranks.\n"
"\n"
"Every timed iteration of every rank is a pair of 'collective' events on\n"
"the telemetry timeline (iteration, rank, kind step or step-end, bytes),\n"
"which 'telemetry report' counts as step times.  A rank that dies, fails\n"
"or hangs ends the job within --timeout: every rank is stopped, one line\n"
"names the rank and its host, and the exit status is 1.\n",
	.opts = run_opts,
	.footer =
"Examples:\n"
"  mplanectl fabric up --hosts 8 --rate 1gbit\n"
"  mplanectl collective run --op allreduce -b 1M -e 64M -f 2 -n 20 -w 5\n"
"  mplanectl -j collective run --op alltoall --hosts 4 -b 64K -e 1M | jq '.sizes[].busbw'\n"
"  # a victim and a background job side by side:\n"
"  mplanectl collective run --op incast --hosts h4,h5,h6,h7 -e 4M --duration 30 &\n"
"  mplanectl collective run --op allreduce --hosts h0,h1,h2,h3 -b 1M -e 16M\n",
};

static int settings_check(const struct run_settings *s,
			  const struct mp_opt_result *res)
{
	if (!mp_opt_given(&run_cmd, res, "op"))
		return mp_usage_err("missing --op: want one of allreduce, allgather, reduce_scatter, broadcast, alltoall, permutation, incast");
	if (s->minbytes > s->maxbytes)
		return mp_usage_err("bad -b/--minbytes %llu: more than -e/--maxbytes %llu",
				    (unsigned long long)s->minbytes,
				    (unsigned long long)s->maxbytes);
	if (!s->timeout_ns || s->timeout_ns > MAX_TIMEOUT_NS)
		return mp_usage_err("bad --timeout: want more than 0 and at most 3600 seconds");
	if (mp_opt_given(&run_cmd, res, "duration") &&
	    (!s->duration_ns || s->duration_ns > 1000 * MAX_TIMEOUT_NS))
		return mp_usage_err("bad --duration: want more than 0 seconds");
	if (s->duration_ns && mp_opt_given(&run_cmd, res, "iters"))
		return mp_usage_err("-n/--iters and --duration exclude each other: a timed run's iterations are what fits");
	return MP_EXIT_OK;
}

/*
 * The host's address a workload uses: its plane-0 rail's, 10.100.H.2
 * (fd10:0:H::2), as Documentation/fabric.md plans it.
 */
static int coll_host_addr(const struct mp_fabric_node *h, int family,
			  struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char buf[INET6_ADDRSTRLEN];

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		snprintf(buf, sizeof(buf), "fd10:0:%x::2", h->index);
		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(0x0a640002 | (h->index & 0xff) << 8);
	*len = sizeof(*s4);
	return 0;
}

static const struct mp_fabric_node *fabric_host(const struct mp_fabric *f,
						unsigned int idx)
{
	char name[16];

	snprintf(name, sizeof(name), "h%u", idx);
	return mp_fabric_node(f, name);
}

/* The job's hosts and their addresses from the fabric's state. */
static int job_hosts(struct coll_job *job, const struct run_settings *s,
		     const struct mp_fabric *f)
{
	const struct host_sel *h = &s->hosts;
	unsigned int i, n = h->n ? h->n : h->first ? h->first : f->hosts;
	const struct mp_fabric_node *node;
	struct sockaddr_storage ss;

	if (n < 2)
		return mp_usage_err("a job needs 2 hosts or more: fabric %s has %u",
				    f->prefix, f->hosts);
	if (n > COLL_MAX_RANKS || (h->first && h->first > f->hosts))
		return mp_usage_err("bad --hosts '%s': fabric %s has %u hosts",
				    h->arg, f->prefix, f->hosts);
	for (i = 0; i < n; i++) {
		node = fabric_host(f, h->n ? h->idx[i] : i);
		if (!node)
			return mp_usage_err("bad --hosts '%s': fabric %s has no host h%u (its hosts are h0 to h%u)",
					    h->arg, f->prefix, h->idx[i],
					    f->hosts - 1);
		snprintf(job->host[i], sizeof(job->host[i]), "%s", node->name);
		if (coll_host_addr(node, s->family ? AF_INET6 : AF_INET, &ss,
				   &job->addrlen))
			return mp_usage_err("no address for host %s", node->name);
		if (s->port)
			((struct sockaddr_in *)&ss)->sin_port = htons(s->port);
		job->addr[i] = ss;
	}
	job->nranks = n;
	return MP_EXIT_OK;
}

static int job_sizes(struct coll_job *job, const struct run_settings *s)
{
	uint64_t min = s->duration_ns ? s->maxbytes : s->minbytes;

	job->nsizes = mp_coll_sizes(min, s->maxbytes, s->stepfactor,
				    job->nranks, job->sizes, COLL_MAX_SIZES);
	if (job->nsizes > COLL_MAX_SIZES)
		return mp_usage_err("-b, -e and -f make %u sizes: %u at most",
				    job->nsizes, COLL_MAX_SIZES);
	return MP_EXIT_OK;
}

static void job_marks(struct coll_job *job, bool off)
{
	job->mark_fd = -1;
	if (off)
		return;
	job->mark_fd = mark_user_event_open();
	if (job->mark_fd < 0)
		mp_err("warning: no iteration marks on the timeline: loading the marks program: %s (--no-marks hides this)",
		       strerror(-job->mark_fd));
}

/* The job from the settings and the fabric: MP_EXIT_OK, or the status. */
static int job_plan(struct coll_job *job, const struct run_settings *s)
{
	struct mp_fabric f;
	uint32_t rnd = 0;
	int err;

	err = mp_fabric_load(s->prefix, &f);
	if (err == -ENOENT) {
		mp_err("no fabric %s: build it with 'mplanectl fabric up --prefix %s'",
		       s->prefix, s->prefix);
		return MP_EXIT_ERR;
	}
	if (err) {
		mp_err("fabric %s: %s", s->prefix, strerror(-err));
		return MP_EXIT_ERR;
	}
	err = job_hosts(job, s, &f);
	mp_fabric_free(&f);
	if (err)
		return err;
	err = job_sizes(job, s);
	if (err)
		return err;
	job->op = s->op;
	job->t = s->transport ? &coll_roce_transport : &coll_tcp_transport;
	job->prefix = s->prefix;
	job->iters = s->iters;
	job->warmup = s->warmup;
	job->duration_ns = s->duration_ns;
	job->timeout_ns = s->timeout_ns;
	job->parent = getpid();
	/* The pid in the low half: what the timeline's events carry. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = mp_mono_ns();
	job->id = (uint64_t)rnd << 32 | (uint32_t)job->parent;
	return MP_EXIT_OK;
}

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
		st->dropped += s->dropped;
	}
	return 0;
}

static int report(const struct watch *w)
{
	struct coll_size_result res[COLL_MAX_SIZES] = {};
	struct coll_transport_stats st;
	unsigned int si, bad = 0;
	uint64_t wrong = 0;
	int ret = MP_EXIT_OK;

	if (w->oom || gather(w, res, &st)) {
		mp_err("out of memory for the results");
		ret = MP_EXIT_ERR;
	} else {
		coll_report(w->job, res, &st);
	}
	for (si = 0; si < w->job->nsizes; si++) {
		wrong += res[si].wrong;
		bad += res[si].wrong > 0;
		free(res[si].times_ns);
	}
	if (ret == MP_EXIT_OK && wrong) {
		mp_err("%llu elements did not check, at %u of %u sizes: the results are wrong",
		       (unsigned long long)wrong, bad, w->job->nsizes);
		ret = MP_EXIT_ERR;
	}
	return ret;
}

static void watch_free(struct watch *w)
{
	unsigned int i, si;

	for (i = 0; i < w->job->nranks; i++)
		for (si = 0; si < COLL_MAX_SIZES; si++)
			free(w->r[i].times[si]);
	free(w->r);
}

static int run_job(const struct coll_job *job)
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
		if (ret == MP_EXIT_OK)
			ret = report(&w);
	}
	watch_free(&w);
	return ret;
}

int collective_run_main(int argc, char **argv)
{
	struct run_settings s = {
		.prefix = MP_FABRIC_DEF_PREFIX, .minbytes = 1 << 20,
		.maxbytes = 64 << 20, .stepfactor = 2, .iters = 20,
		.warmup = 5, .timeout_ns = 10000000000ULL,
	};
	static struct coll_job job;
	struct mp_opt_result res;
	int rc;

	rc = mp_opt_parse(&run_cmd, argc, argv, &s, &res);
	if (rc != MP_OPT_RUN)
		return rc;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	rc = settings_check(&s, &res);
	if (rc)
		return rc;
	rc = job_plan(&job, &s);
	if (rc)
		return rc;
	job_marks(&job, s.no_marks);
	rc = run_job(&job);
	if (job.mark_fd >= 0)
		close(job.mark_fd);
	return rc;
}
