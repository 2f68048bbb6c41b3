// SPDX-License-Identifier: GPL-2.0
/*
 * The report of 'collective run', as nccl-tests prints one: a header
 * that names the job, one row per size, the mean bus bandwidth; then
 * what the transport counted.  Text and JSON come from the same calls
 * (mp_print.h): the row's figures are the JSON object's members.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "mp_coll.h"
#include "mp_out.h"
#include "mp_print.h"
#include "collective_job.h"
#include "mplane_events.h"

void coll_stats_rtt_merge(struct coll_transport_stats *st,
			  const struct coll_transport_stats *from)
{
	if (!from->rtt_conns)
		return;
	if (from->rtt_min_ns &&
	    (!st->rtt_min_ns || from->rtt_min_ns < st->rtt_min_ns))
		st->rtt_min_ns = from->rtt_min_ns;
	if (!st->rtt_conns || from->srtt_min_ns < st->srtt_min_ns)
		st->srtt_min_ns = from->srtt_min_ns;
	if (from->srtt_max_ns > st->srtt_max_ns)
		st->srtt_max_ns = from->srtt_max_ns;
	st->srtt_sum_ns += from->srtt_sum_ns;
	st->rtt_conns += from->rtt_conns;
}

void coll_stats_rtt(struct coll_transport_stats *st, uint64_t rtt_min_ns,
		    uint64_t srtt_ns)
{
	const struct coll_transport_stats one = {
		.rtt_min_ns = rtt_min_ns,
		.srtt_min_ns = srtt_ns,
		.srtt_sum_ns = srtt_ns,
		.srtt_max_ns = srtt_ns,
		.rtt_conns = 1,
	};

	if (srtt_ns)
		coll_stats_rtt_merge(st, &one);
}

static void header(const struct coll_job *job)
{
	unsigned int i;

	mp_print_str(MP_PRINT_ANY, "op", "# collective %s",
		     mp_coll_op_name(job->op));
	mp_print_u64(MP_PRINT_ANY, "nranks", " over %" PRIu64 " ranks",
		     job->nranks);
	mp_print_open_array("hosts");
	for (i = 0; i < job->nranks; i++)
		mp_print_str(MP_PRINT_ANY, NULL, i ? ",%s" : " (%s",
			     job->host[i]);
	mp_print_close_array();
	mp_print_str(MP_PRINT_ANY, "transport", "), transport %s",
		     job->t->name);
	if (job->t == &coll_roce_transport)
		mp_print_u64(MP_PRINT_ANY, "window_pkts", " (a window of %" PRIu64 ")",
			     job->window);
	else
		mp_print_null(MP_PRINT_JSON, "window_pkts", NULL);
	mp_print_str(MP_PRINT_ANY, "fabric", ", fabric %s\n", job->prefix);
	mp_print_str(MP_PRINT_ANY, "type", "#   type %s", "float");
	mp_print_str(MP_PRINT_ANY, "redop", ", redop %s",
		     job->op == MPLANE_COLL_ALLREDUCE ||
		     job->op == MPLANE_COLL_REDUCE_SCATTER ? "sum" : "none");
	mp_print_u64(MP_PRINT_ANY, "warmup", ", %" PRIu64 " warm-up", job->warmup);
	if (job->duration_ns) {
		mp_print_null(MP_PRINT_JSON, "iters", NULL);
		mp_print_float(MP_PRINT_ANY, "duration_s",
			       " and %.1f s of timed iterations",
			       job->duration_ns / 1e9);
	} else {
		mp_print_u64(MP_PRINT_ANY, "iters", " and %" PRIu64 " timed iterations",
			     job->iters);
		mp_print_null(MP_PRINT_JSON, "duration_s", NULL);
	}
	mp_print_text(" per size, every one checked\n#\n");
	mp_print_text("# %11s %10s %6s %6s %10s %7s %7s %7s %9s %9s %9s %7s %7s\n",
		      "size", "count", "type", "redop", "time", "algbw", "busbw",
		      "#wrong", "p50", "p99", "max", "p01bw", "slowest");
	mp_print_text("# %11s %10s %6s %6s %10s %7s %7s %7s %9s %9s %9s %7s %7s\n",
		      "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)",
		      "", "(us)", "(us)", "(us)", "(GB/s)", "rank");
}

static void ranks(const struct coll_job *job, const double *rank_us)
{
	unsigned int r;

	mp_print_text("#   each rank's mean time (us):");
	mp_print_open_array("ranks");
	for (r = 0; r < job->nranks; r++) {
		mp_print_open_object(NULL);
		mp_print_u64(MP_PRINT_JSON, "rank", NULL, r);
		mp_print_str(MP_PRINT_ANY, "host", " %s", job->host[r]);
		mp_print_float(MP_PRINT_ANY, "time_us", " %.1f", rank_us[r]);
		mp_print_close_object();
	}
	mp_print_close_array();
	mp_print_text("\n");
}

/* One size's row: its busbw, or -1 when it has no timed iteration. */
static double row(const struct coll_job *job,
		  const struct coll_size_result *res)
{
	double rank_us[COLL_MAX_RANKS];
	struct mp_coll_summary s = {};
	bool timed;

	timed = res->iters && !mp_coll_summarise(job->op, job->nranks,
						 res->bytes, res->times_ns,
						 res->iters, rank_us, &s);
	mp_print_open_object(NULL);
	mp_print_u64(MP_PRINT_ANY, "size", "  %11" PRIu64, res->bytes);
	mp_print_u64(MP_PRINT_ANY, "count", " %10" PRIu64, res->bytes / sizeof(float));
	mp_print_text(" %6s %6s", "float",
		      job->op == MPLANE_COLL_ALLREDUCE ||
		      job->op == MPLANE_COLL_REDUCE_SCATTER ? "sum" : "none");
	mp_print_u64(MP_PRINT_JSON, "iters", NULL, s.iters);
	mp_print_float(MP_PRINT_ANY, "time_us", " %10.1f", s.time_us);
	mp_print_float(MP_PRINT_ANY, "algbw", " %7.2f", s.algbw);
	mp_print_float(MP_PRINT_ANY, "busbw", " %7.2f", s.busbw);
	mp_print_u64(MP_PRINT_ANY, "wrong", " %7" PRIu64, res->wrong);
	mp_print_bool(MP_PRINT_JSON, "verified", NULL, timed && !res->wrong);
	mp_print_float(MP_PRINT_ANY, "p50_us", " %9.1f", s.p50_us);
	mp_print_float(MP_PRINT_ANY, "p99_us", " %9.1f", s.p99_us);
	mp_print_float(MP_PRINT_ANY, "max_us", " %9.1f", s.max_us);
	mp_print_float(MP_PRINT_ANY, "p01_busbw", " %7.2f", s.p01_busbw);
	mp_print_u64(MP_PRINT_ANY, "slowest_rank", " %7" PRIu64, s.slowest_rank);
	mp_print_str(MP_PRINT_JSON, "slowest_host", NULL,
		     job->host[s.slowest_rank]);
	mp_print_text("\n");
	if (timed)
		ranks(job, rank_us);
	mp_print_close_object();
	return timed ? s.busbw : -1;
}

static void stats(const struct coll_job *job,
		  const struct coll_transport_stats *st)
{
	mp_print_open_object("transport_stats");
	mp_print_str(MP_PRINT_TEXT, NULL, "# %s, over all ranks:", job->t->name);
	mp_print_u64(MP_PRINT_ANY, "tx_packets", " %" PRIu64 " packets out", st->tx_packets);
	mp_print_u64(MP_PRINT_ANY, "rx_packets", ", %" PRIu64 " in", st->rx_packets);
	mp_print_u64(MP_PRINT_ANY, "tx_bytes", ", %" PRIu64 " bytes out", st->tx_bytes);
	mp_print_u64(MP_PRINT_ANY, "rx_bytes", ", %" PRIu64 " in", st->rx_bytes);
	mp_print_u64(MP_PRINT_ANY, "retransmits", ";\n#   %" PRIu64 " retransmits", st->retransmits);
	mp_print_u64(MP_PRINT_ANY, "timeouts", ", %" PRIu64 " timeouts", st->timeouts);
	mp_print_u64(MP_PRINT_ANY, "naks", ", %" PRIu64 " NAKs", st->naks);
	mp_print_u64(MP_PRINT_ANY, "held", ", %" PRIu64 " held past a gap", st->held);
	mp_print_u64(MP_PRINT_ANY, "dropped", ", %" PRIu64 " dropped\n", st->dropped);
	if (st->rtt_conns) {
		mp_print_u64(MP_PRINT_ANY, "rtt_min_us",
			     "#   round trips: the least %" PRIu64 " us",
			     st->rtt_min_ns / 1000);
		mp_print_u64(MP_PRINT_ANY, "rtt_conns",
			     "; smoothed, at the end, over %" PRIu64 " connections:",
			     st->rtt_conns);
		mp_print_u64(MP_PRINT_ANY, "srtt_min_us", " least %" PRIu64,
			     st->srtt_min_ns / 1000);
		mp_print_u64(MP_PRINT_ANY, "srtt_mean_us", ", mean %" PRIu64,
			     st->srtt_sum_ns / st->rtt_conns / 1000);
		mp_print_u64(MP_PRINT_ANY, "srtt_max_us", ", most %" PRIu64 " us\n",
			     st->srtt_max_ns / 1000);
	}
	mp_print_close_object();
}

void coll_report(const struct coll_job *job,
		 const struct coll_size_result *res,
		 const struct coll_transport_stats *st)
{
	unsigned int si, timed = 0;
	double bw, sum = 0;
	uint64_t wrong = 0;

	mp_print_start();
	header(job);
	mp_print_open_array("sizes");
	for (si = 0; si < job->nsizes; si++) {
		bw = row(job, &res[si]);
		wrong += res[si].wrong;
		if (bw >= 0) {
			sum += bw;
			timed++;
		}
	}
	mp_print_close_array();
	mp_print_u64(MP_PRINT_ANY, "wrong", "# Wrong elements       : %" PRIu64,
		     wrong);
	mp_print_bool(MP_PRINT_ANY, "verified", " (verified: %s)\n",
		      !wrong && timed == job->nsizes);
	mp_print_float(MP_PRINT_ANY, "avg_busbw", "# Avg bus bandwidth    : %.2f\n",
		       timed ? sum / timed : 0);
	mp_print_text("#\n");
	stats(job, st);
	mp_print_end();
}
