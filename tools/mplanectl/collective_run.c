// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl collective run: the command line and the job's plan.  It
 * reads the fabric's state file and gives one rank to each host of
 * --hosts, in that order, with the host's address; the ranks run
 * under the parent's watch (collective_watch.c), and their results go
 * to the report (collective_report.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "mp_cmd.h"
#include "mp_coll.h"
#include "mp_fabric.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mplanectl.h"
#include "fabric.h"
#include "collective_job.h"
#include "collective_roce.h"

#define MAX_BYTES	(1ULL << 30)
#define MAX_TIMEOUT_NS	(3600 * 1000000000ULL)
/* The roce transport's frames on the wire (Ethernet, IPv4, UDP, BTH,
 * payload, ICRC), a data packet's and an ACK's, and the links of the
 * fabric's longest path; the hosts' own time to answer (a TCG guest's
 * ping took about 1 ms across an idle fabric); the least window. */
#define COLL_WIRE_FRAME		(14 + 20 + 8 + ROCE_BTH_LEN + ROCE_MTU + ROCE_ICRC_LEN)
#define COLL_WIRE_ACK		(14 + 20 + 8 + ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_NAK_END_LEN + ROCE_ICRC_LEN)
#define COLL_PATH_LINKS		4ULL
#define COLL_WINDOW_HOST_US	1000ULL
#define COLL_WINDOW_MIN		4ULL

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
	char prefix[FABRIC_PREFIX_SIZE];
	struct host_sel hosts;
	int op;
	uint64_t minbytes, maxbytes, stepfactor, iters, warmup;
	int transport;
	uint64_t timeout_ns, duration_ns;
	bool no_marks;
	uint64_t port;
	int family;
	uint64_t sndbuf;
	uint64_t window;
};

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
	  .parse = fabric_prefix_opt, .def = MP_FABRIC_DEF_PREFIX },
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
	{ "sndbuf", 0, MP_OPT_BYTES, AT(sndbuf), "SIZE",
	  "roce: each rank's socket send buffer, as the kernel counts it (about 2.3K for a 1K packet): what it may have sent that still waits in its host, in mp0's pacing fq. DCQCN in mp0 stamps each packet with its QP's rate as it passes, so a rate cut acts once what was stamped before it has left: a short queue makes it act at once, as an RNIC has no host queue behind its rate limiter",
	  .min = COLL_SNDBUF_MIN, .max = COLL_SNDBUF_MAX,
	  .def = "20 ms at the host links' rate, at least 16K, on a fabric built with --cc dcqcn; else 4M" },
	{ "window", 0, MP_OPT_UINT, AT(window), "PKTS",
	  "roce: packets a QP may have sent and not had acked. What the path holds (its bandwidth-delay product) keeps the fabric's queues short, as IRN's BDP-based flow control does for RNICs on lossy fabrics; more only waits in the queues and, where flows meet, overflows them",
	  .min = 1, .max = ROCE_WINDOW,
	  .def = "the fabric's: its host links' bandwidth times its longest path's round trip, 11 at 10mbit on two planes" },
	{ "family", 0, MP_OPT_CHOICE, AT(family), "4|6",
	  "IPv4 or IPv6: the hosts' mp0 addresses, or their plane-0 rails' where they have no mp0",
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
	if (mp_opt_given(&run_cmd, res, "sndbuf") && !s->transport)
		return mp_usage_err("--sndbuf is the roce transport's: TCP keeps its own queue below the socket short (TCP small queues)");
	if (mp_opt_given(&run_cmd, res, "window") && !s->transport)
		return mp_usage_err("--window is the roce transport's: TCP's congestion window sets its own");
	if (s->duration_ns && mp_opt_given(&run_cmd, res, "iters"))
		return mp_usage_err("-n/--iters and --duration exclude each other: a timed run's iterations are what fits");
	return MP_EXIT_OK;
}

/* The address a workload reaches host @h at: its mp0's when it has one,
 * else its rail's in plane 0 (mp_fabric_host_addr4/6). */
static int coll_host_addr(const struct mp_fabric *f,
			  const struct mp_fabric_node *h, int family,
			  struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		*len = sizeof(*s6);
		return mp_fabric_host_addr6(f, h->index, &s6->sin6_addr);
	}
	s4->sin_family = AF_INET;
	*len = sizeof(*s4);
	return mp_fabric_host_addr4(f, h->index, &s4->sin_addr);
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
		if (coll_host_addr(f, node, s->family ? AF_INET6 : AF_INET, &ss,
				   &job->addrlen))
			return mp_usage_err("no address for host %s", node->name);
		/* sin6_port lies where sin_port does. */
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

/*
 * The roce transport's send buffer where --sndbuf does not say.  With
 * DCQCN in mp0 every packet is stamped with its QP's rate as mp0 sends
 * it, and waits in the rail's fq until then: a cut acts once what was
 * stamped before it is gone.  20 ms of the host link, in the kernel's
 * count (truesize: about 2.3 KiB for a 1 KiB packet, hence x 2), keeps
 * that wait within a few of the fabric's round trips; 16 KiB is the
 * least a 1-vCPU TCG guest's sender keeps busy with (4.5 KiB starved it:
 * selftests/kmod/cc_fabric.sh).  Without CC, the transport's default.
 */
static uint64_t auto_sndbuf(const struct mp_fabric *f)
{
	uint64_t rate = f->host_rate_bps ? f->host_rate_bps : f->rate_bps;
	uint64_t b = rate / 8 * COLL_SNDBUF_AUTO_MS / 1000 * 2;

	if (f->cc != MPLANE_CC_DCQCN)
		return 0;
	return b < COLL_SNDBUF_AUTO_MIN ? COLL_SNDBUF_AUTO_MIN :
	       b > COLL_SNDBUF_MAX ? COLL_SNDBUF_MAX : b;
}

/*
 * The roce transport's window where --window does not say: what a host's
 * links (every plane's) send in one round trip of the fabric's longest
 * path, host to leaf to spine to leaf to host, with nothing queued: a
 * full frame on each of its links, an ACK back on each, the links' own
 * delay both ways, and what the hosts take to answer
 * (COLL_WINDOW_HOST_US).  IRN's BDP-based flow control: more than this
 * only waits in the switches' queues, and where flows meet it is what
 * they drop.  At 10mbit on two planes it is 11 packets (Documentation/
 * collective.md has the figures by window).
 */
static unsigned int auto_window(const struct mp_fabric *f)
{
	uint64_t rate = f->host_rate_bps ? f->host_rate_bps : f->rate_bps;
	uint64_t planes = f->planes ? f->planes : 1;
	uint64_t frame_ns, ack_ns, rtt_ns, pkts;

	if (!rate)
		return ROCE_WINDOW;
	frame_ns = COLL_WIRE_FRAME * 8ULL * 1000000000ULL / rate;
	ack_ns = COLL_WIRE_ACK * 8ULL * 1000000000ULL / rate;
	rtt_ns = COLL_PATH_LINKS * (frame_ns + ack_ns + 2000ULL * f->delay_us) +
		 COLL_WINDOW_HOST_US * 1000ULL;
	pkts = (planes * rate / 8 * rtt_ns / 1000000000ULL +
		COLL_WIRE_FRAME - 1) / COLL_WIRE_FRAME;
	return pkts < COLL_WINDOW_MIN ? COLL_WINDOW_MIN :
	       pkts > ROCE_WINDOW ? ROCE_WINDOW : (unsigned int)pkts;
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
	if (err) {
		mp_fabric_free(&f);
		return err;
	}
	err = job_sizes(job, s);
	if (err) {
		mp_fabric_free(&f);
		return err;
	}
	job->op = s->op;
	job->t = s->transport ? &coll_roce_transport : &coll_tcp_transport;
	job->prefix = s->prefix;
	job->iters = s->iters;
	job->warmup = s->warmup;
	job->duration_ns = s->duration_ns;
	job->timeout_ns = s->timeout_ns;
	job->sndbuf = s->sndbuf ? s->sndbuf : auto_sndbuf(&f);
	job->window = s->window ? s->window : auto_window(&f);
	job->parent = getpid();
	/* The pid in the low half: what the timeline's events carry. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = mp_mono_ns();
	job->id = (uint64_t)rnd << 32 | (uint32_t)job->parent;
	mp_fabric_free(&f);
	return MP_EXIT_OK;
}

/* The table, then the verdict: wrong elements fail the run. */
static int report(const struct coll_job *job,
		  const struct coll_size_result *res,
		  const struct coll_transport_stats *st)
{
	unsigned int si, bad = 0;
	uint64_t wrong = 0;

	coll_report(job, res, st);
	for (si = 0; si < job->nsizes; si++) {
		wrong += res[si].wrong;
		bad += res[si].wrong > 0;
	}
	if (!wrong)
		return MP_EXIT_OK;
	mp_err("%llu elements did not check, at %u of %u sizes: the results are wrong",
	       (unsigned long long)wrong, bad, job->nsizes);
	return MP_EXIT_ERR;
}

static int run_job(const struct coll_job *job)
{
	struct coll_size_result res[COLL_MAX_SIZES] = {};
	struct coll_transport_stats st;
	int ret;

	ret = coll_watch(job, res, &st);
	if (ret == MP_EXIT_OK)
		ret = report(job, res, &st);
	coll_results_free(job, res);
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
