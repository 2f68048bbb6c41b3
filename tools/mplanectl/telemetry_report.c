// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry report FILE: what a capture says, in one screen.
 * The capture goes through the model (mp_tm) once; then, to show the
 * events around each anomaly in timestamp order, the file is read again
 * and the events of those windows go through a reorder queue (mp_evq):
 * the model keeps numbers, not events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_capture.h"
#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_fault.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mplanectl.h"
#include "telemetry.h"
#include "telemetry_views.h"
#include "html.h"
#include "mplane_capture.h"
#include "mplane_events.h"

#define MS_NS		1000000ULL
#define TEXT_EVENTS	20	/* per timeline; --json has them all */

struct report {
	const char *path;
	struct mp_tm tm;
	struct mplane_capture_hdr hdr;
	uint64_t around_ns;
	bool samples;		/* periodic samples in the timelines too */
	bool all;		/* every port and rail in the text table */
	const char *html;	/* --html: the page's file, or NULL */
	uint64_t t0;		/* the capture's start: times are from here */
	/* Anomalies whose windows overlap share one timeline. */
	struct timeline {
		uint64_t from, to, anchor;
		unsigned int first, last;	/* anomalies */
		struct mp_event_item *ev;	/* in timestamp order */
		unsigned int n, cap;
	} *tl;
	unsigned int ntl;
	bool tl_nomem;		/* a timeline's events did not fit */
};

/* What the command line sets: parse() hands it to the report and model. */
struct report_args {
	uint64_t around_ms;
	bool samples, all, json;
	const char *html;
	struct mp_tm_opts tm;
};

#define AT(member)	MP_OPT_AT(struct report_args, member)
static const struct mp_opt report_opts[] = {
	{ "around", 'a', MP_OPT_UINT, AT(around_ms), "MS",
	  "timeline window on each side of an anomaly, in ms",
	  .max = 60000, .def = "5" },
	{ "threshold", 't', MP_OPT_CUSTOM, AT(tm.sym_threshold), "X",
	  "symmetry flag: max/mean above X, or a member below mean/X",
	  .parse = tv_opt_threshold, .def = "1.25" },
	{ "ecn-storm", 'e', MP_OPT_UINT, AT(tm.ecn_storm_per_s), "N",
	  "ECN storm: more than N CE marks a second over a 10 ms window",
	  .min = 100, .max = UINT32_MAX, .def = "100000" },
	{ "samples", 's', MP_OPT_FLAG, AT(samples), NULL,
	  .help = "put periodic samples and counters in timelines (and rate_update increases; cuts are in anyway)" },
	{ "all", 'A', MP_OPT_FLAG, AT(all), NULL,
	  .help = "every port and rail in the table, not only those with marks, changes, anomalies or uneven groups" },
	{ "json", 'j', MP_OPT_FLAG, AT(json), NULL,
	  .help = "print JSON (as the global -j)" },
	{ "html", 'H', MP_OPT_STRING, AT(html), "FILE",
	  .help = "also write the Fabric Symmetry Dashboard of the capture: one self-contained HTML file (inline SVG, nothing fetched) with each group's symmetry as bars, a paged timeline of queue depth, ECN marks, CNPs, step ends, faults and state changes, the step times and the anomalies" },
	{}
};
#undef AT

static const struct mp_opt_cmd report_cmd = {
	.usage = "telemetry report [OPTIONS] FILE",
	.about =
"Summarise a capture of 'mplanectl telemetry record -o FILE':\n"
"  - the header: host, duration and every source with what it recorded,\n"
"    produced and dropped (a lossy capture is called out loudly);\n"
"  - per plane and per port: bytes, mean bandwidth, bandwidth before and\n"
"    after the first failure, queue depth p50/p99/max, ECN CE marks, CNPs\n"
"    and state changes;\n"
"  - symmetry per group (the planes of a device, the ports of a switch,\n"
"    the rails of a host): max/mean and the coefficient of variation of\n"
"    the members' bandwidth, flagged above --threshold, slow members named;\n"
"  - step times (between consecutive 'mark step' of a process, and from\n"
"    the begin to the end of each 'collective run' iteration of a rank)\n"
"    and delivery gaps (between successive increases of a byte counter);\n"
"  - anomalies (failovers, planes or ports going down, ECN storms, and\n"
"    the faults 'fabric fault' made, as \"fault  p0l0:s1 down\": the\n"
"    cause next to its effects) and, for each, the events within\n"
"    --around ms of it in timestamp order, with times in us relative to\n"
"    the anomaly.\n"
"\n"
"Times are from the start of the recording.  With -j (global) or --json\n"
"everything is printed as one JSON document, timelines complete.\n",
	.opts = report_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry record -o /tmp/run.mpcp --duration 10\n"
"  mplanectl telemetry report /tmp/run.mpcp\n"
"  mplanectl -j telemetry report --around 2 /tmp/run.mpcp | jq .anomalies\n",
};

static double rel_ms(const struct report *r, uint64_t ts)
{
	return ((double)ts - (double)r->t0) / 1e6;
}

/* Timelines */

/*
 * Events that come on a clock rather than from something happening.  A
 * DCQCN rate increase is one: each limited QP has one per time-reset
 * (300 us by default); its cuts, which CNPs cause, stay in timelines.
 */
static bool periodic(const struct mplane_event *ev)
{
	unsigned int type = ev->hdr.type;

	return type == MPLANE_EV_PLANE_SAMPLE || type == MPLANE_EV_PORT_SAMPLE ||
	       type == MPLANE_EV_QUEUE_SAMPLE || type == MPLANE_EV_COUNTER ||
	       type == MPLANE_EV_PLANE_SELECT ||
	       (type == MPLANE_EV_RATE_UPDATE && ev->val[3] != MPLANE_RATE_CUT);
}

static int make_timelines(struct report *r)
{
	const struct mp_tm_anomaly *a;
	struct timeline *t = NULL;
	unsigned int i;

	r->tl = calloc(r->tm.nanoms ? r->tm.nanoms : 1, sizeof(*r->tl));
	if (!r->tl)
		return -ENOMEM;
	for (i = 0; i < r->tm.nanoms; i++) {
		a = &r->tm.anoms[i];
		if (t && a->ts_ns - r->around_ns <= t->to) {
			t->to = a->ts_ns + r->around_ns;
			t->last = i;
			continue;
		}
		t = &r->tl[r->ntl++];
		t->anchor = a->ts_ns;
		t->from = a->ts_ns > r->around_ns ? a->ts_ns - r->around_ns : 0;
		t->to = a->ts_ns + r->around_ns;
		t->first = t->last = i;
	}
	return 0;
}

/* What an anomaly happened to: its entity, or where a fault was made. */
static const char *anomaly_at(const struct report *r,
			      const struct mp_tm_anomaly *a, char *buf,
			      size_t size)
{
	if (a->type == MP_TM_AN_FAULT || a->entity < 0)
		return mp_fault_where(&a->fault, buf, size);
	return r->tm.ents[a->entity].name;
}

/* Kept for the output; a failed allocation is told after the read. */
static void timeline_cb(const struct mp_event_item *it, void *data)
{
	struct report *r = data;
	struct mp_event_item *ev;
	struct timeline *t;
	unsigned int i, cap;

	for (i = 0; i < r->ntl; i++) {
		t = &r->tl[i];
		if (it->ev.hdr.ts_ns < t->from || it->ev.hdr.ts_ns > t->to)
			continue;
		if (t->n == t->cap) {
			cap = t->cap ? 2 * t->cap : 64;
			ev = realloc(t->ev, cap * sizeof(*ev));
			if (!ev) {
				r->tl_nomem = true;
				return;
			}
			t->ev = ev;
			t->cap = cap;
		}
		t->ev[t->n++] = *it;
		return;
	}
}

static bool in_window(const struct report *r, uint64_t ts)
{
	unsigned int i;

	for (i = 0; i < r->ntl; i++)
		if (ts >= r->tl[i].from && ts <= r->tl[i].to)
			return true;
	return false;
}

/* Read the file again for the events of the timelines' windows. */
static int fill_timelines(struct report *r)
{
	struct mplane_capture_frame fr;
	struct mp_capture_reader rd;
	struct mp_evq q = {};
	struct mplane_event ev;
	const void *payload;
	int err;

	if (!r->ntl)
		return 0;
	err = mp_capture_open(&rd, r->path);
	if (err)
		return err;
	while ((err = mp_capture_next(&rd, &fr, &payload)) > 0) {
		if (fr.kind != MPLANE_CF_EVENT ||
		    mp_event_decode(payload, fr.len, &ev) ||
		    (periodic(&ev) && !r->samples) ||
		    !in_window(r, ev.hdr.ts_ns))
			continue;
		err = mp_evq_push(&q, &ev, fr.source);
		if (err)
			break;
	}
	mp_capture_close(&rd);
	mp_evq_release(&q, ~0ULL, timeline_cb, r);
	mp_evq_free(&q);
	if (r->tl_nomem)
		return -ENOMEM;
	return err == -EBADMSG ? 0 : err;
}

/* Output: text and JSON from the same mp_print calls */

static uint64_t anomalies(const struct mp_tm *tm)
{
	uint64_t n = 0;
	unsigned int t;

	for (t = 0; t < __MP_TM_AN_MAX; t++)
		n += tm->anom_count[t];
	return n;
}

static uint64_t dropped(const struct mp_tm *tm, unsigned int *nsrc)
{
	uint64_t sum = 0;
	unsigned int i;

	*nsrc = 0;
	for (i = 0; i < tm->nsources; i++) {
		sum += tm->sources[i].stats.dropped;
		*nsrc += !!tm->sources[i].stats.dropped;
	}
	return sum;
}

/* Text gives a ring's counts, or what came when it has none. */
static void print_source(const struct mp_tm_source *s)
{
	enum mp_print_to counts = s->has_stats ? MP_PRINT_ANY : MP_PRINT_JSON;

	mp_print_open_object(NULL);
	mp_print_u64(MP_PRINT_JSON, "id", NULL, s->id);
	mp_print_str(MP_PRINT_ANY, "label", "  %-28s", s->label);
	mp_print_u64(s->has_stats ? MP_PRINT_JSON : MP_PRINT_ANY, "event_count",
		     " %10" PRIu64 " events (no counts)", s->events);
	mp_print_bool(MP_PRINT_JSON, "has_stats", NULL, s->has_stats);
	mp_print_u64(counts, "recorded", " recorded %" PRIu64,
		     s->stats.recorded);
	mp_print_u64(counts, "produced", ", produced %" PRIu64,
		     s->stats.produced);
	mp_print_u64(counts, "dropped", ", dropped %" PRIu64, s->stats.dropped);
	mp_print_u64(MP_PRINT_JSON, "in_flight", NULL, s->stats.in_flight);
	if (s->has_stats && s->stats.dropped)
		mp_print_text("   <== LOST EVENTS");
	mp_print_text("\n");
	mp_print_close_object();
}

static void print_header(const struct report *r)
{
	const struct mp_tm *tm = &r->tm;
	uint64_t ns = tm->last_ts > r->t0 ? tm->last_ts - r->t0 : 0, lost;
	unsigned int i, n;
	char d[32];

	mp_print_str(MP_PRINT_ANY, "capture", "capture %s:", r->path);
	if (r->hdr.host[0]) {
		mp_print_str(MP_PRINT_ANY, "host", " host %s,", r->hdr.host);
	} else {
		mp_print_str(MP_PRINT_JSON, "host", NULL, r->hdr.host);
		mp_print_text(" host ?,");
	}
	mp_print_u64(MP_PRINT_JSON, "start_real_ns", NULL,
		     r->hdr.start_real_ns);
	mp_print_double(MP_PRINT_JSON, "duration_s", NULL, ns / 1e9);
	mp_print_text(" %s,", tv_dur(ns, d, sizeof(d)));
	mp_print_u64(MP_PRINT_ANY, "event_count", " %" PRIu64 " events",
		     tm->events);
	mp_print_text(" from %u sources\n", tm->nsources);
	mp_print_open_array("sources");
	for (i = 0; i < tm->nsources; i++)
		print_source(&tm->sources[i]);
	mp_print_close_array();
	lost = dropped(tm, &n);
	mp_print_u64(lost ? MP_PRINT_ANY : MP_PRINT_JSON, "dropped",
		     "!!! %" PRIu64 " events were DROPPED", lost);
	if (lost)
		mp_print_text(" by %u source%s: the numbers below miss them !!!\n",
			      n, n == 1 ? "" : "s");
}

/*
 * Whether the text table shows @e: every plane; a port or rail only when
 * it has something to say (its group is uneven, it saw ECN, CNPs, a state
 * change or an anomaly), so that a fabric's many quiet ports do not
 * drown the table.  Other polled counters never: they are in --json.
 */
static bool worth_a_row(const struct report *r, unsigned int i,
			const bool *flagged)
{
	const struct mp_tm_entity *e = &r->tm.ents[i];

	if (e->kind == MP_TM_PLANE || r->all)
		return e->kind != MP_TM_COUNTER || e->group >= 0;
	if (e->group < 0)
		return false;
	if (flagged[e->group] || e->ecn.total || e->ecn_events ||
	    e->cnp.total || e->cnp_events || e->state_changes)
		return true;
	return e->anomalies;
}

/* Text's queue columns: p50, p99 and max in bytes as people read them. */
static void queue_text(const struct mp_hist *queue)
{
	char q[3][24];

	if (!queue) {
		mp_print_text(" %8s %8s %8s", "-", "-", "-");
		return;
	}
	mp_print_text(" %8s %8s %8s",
		      tv_bytes(mp_hist_quantile(queue, 0.5), q[0], 24),
		      tv_bytes(mp_hist_quantile(queue, 0.99), q[1], 24),
		      tv_bytes(queue->max, q[2], 24));
}

/* Every entity is in JSON; in text, a row when @row. */
static void print_entity(const struct report *r, const struct mp_tm_entity *e,
			 bool row)
{
	enum mp_print_to to = row ? MP_PRINT_ANY : MP_PRINT_JSON;
	const struct mp_hist *queue = mp_tm_queue(&r->tm, e);
	const char *bps = row ? " %12s" : NULL;
	static const struct mp_hist empty;
	char b[24];

	mp_print_open_object(NULL);
	mp_print_str(to, "name", "%-18s", e->name);
	mp_print_str(MP_PRINT_JSON, "kind", NULL, mp_tm_kind_name(e->kind));
	if (e->group < 0)
		mp_print_null(MP_PRINT_JSON, "group", NULL);
	else
		mp_print_str(MP_PRINT_JSON, "group", NULL,
			     r->tm.groups[e->group].name);
	mp_print_u64(MP_PRINT_JSON, e->kind == MP_TM_COUNTER ? "increase" :
		     "tx_bytes", NULL, e->tx_bytes.total);
	if (row)
		mp_print_text(" %9s",
			      tv_bytes(e->tx_bytes.total, b, sizeof(b)));
	tv_print_bps("bw_bps", bps, mp_tm_bw(e, MP_TM_BW_MEAN));
	tv_print_bps("bw_before_bps", bps, mp_tm_bw(e, MP_TM_BW_BEFORE));
	tv_print_bps("bw_after_bps", bps, mp_tm_bw(e, MP_TM_BW_AFTER));
	mp_print_open_object("queue");
	tv_hist_print(queue ? queue : &empty, &tv_unit_bytes, NULL);
	mp_print_close_object();
	if (row)
		queue_text(queue);
	/* Text adds the counters' marks and the events' in one column. */
	mp_print_u64(MP_PRINT_JSON, "ecn_ce", NULL, e->ecn.total);
	mp_print_u64(MP_PRINT_JSON, "ecn_mark_events", NULL, e->ecn_events);
	mp_print_u64(MP_PRINT_JSON, "cnp", NULL, e->cnp.total);
	mp_print_u64(MP_PRINT_JSON, "cnp_events", NULL, e->cnp_events);
	if (row)
		mp_print_text(" %6" PRIu64 " %5" PRIu64,
			      e->ecn.total + e->ecn_events,
			      e->cnp.total + e->cnp_events);
	mp_print_str(to, "state", " %-6s", mp_tm_state_name(e));
	mp_print_u64(to, "state_changes", " %3" PRIu64, e->state_changes);
	mp_print_double(MP_PRINT_JSON, "max_gap_us", NULL,
			e->tx_bytes.max_gap_ns / 1e3);
	if (row)
		mp_print_text("\n");
	mp_print_close_object();
}

static void print_entities(const struct report *r)
{
	bool *flagged = calloc(r->tm.ngroups + 1, sizeof(*flagged));
	unsigned int i, quiet = 0;
	struct mp_tm_symmetry sym;
	bool row, any = false;

	for (i = 0; flagged && i < r->tm.ngroups; i++) {
		mp_tm_symmetry(&r->tm, i, MP_TM_BW_MEAN, &sym);
		flagged[i] = sym.flagged;
	}
	mp_print_open_array("entities");
	for (i = 0; i < r->tm.nents; i++) {
		row = !flagged || worth_a_row(r, i, flagged);
		if (!row)
			quiet += r->tm.ents[i].group >= 0;
		if (row && !any)
			mp_print_text("\n%-18s %9s %12s %12s %12s %8s %8s %8s %6s %5s %-6s %3s\n",
				      "NAME", "BYTES", "MEAN", "BEFORE",
				      "AFTER", "Q_P50", "Q_P99", "Q_MAX", "ECN",
				      "CNP", "STATE", "CHG");
		any |= row;
		print_entity(r, &r->tm.ents[i], row);
	}
	mp_print_close_array();
	if (quiet)
		mp_print_text("%s(%u more ports and rails, even and quiet: --all shows them)\n",
			      any ? "" : "\n", quiet);
	free(flagged);
}

static void print_group(const struct report *r, unsigned int g)
{
	enum mp_tm_kind kind = r->tm.groups[g].kind;
	struct mp_tm_symmetry sym;
	const char *sep = "  slow: ";
	unsigned int i;

	mp_tm_symmetry(&r->tm, g, MP_TM_BW_MEAN, &sym);
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "group", "  %-22s", r->tm.groups[g].name);
	mp_print_str(MP_PRINT_JSON, "kind", NULL, mp_tm_kind_name(kind));
	mp_print_u64(MP_PRINT_ANY, "members", " %2" PRIu64, sym.members);
	mp_print_text(" %-7s", kind == MP_TM_PLANE ? "planes" :
		      kind == MP_TM_PORT ? "ports" : "rails");
	mp_print_double(MP_PRINT_JSON, "mean_bps", NULL, sym.mean_bps);
	mp_print_double(MP_PRINT_ANY, "max_mean", " %5.2f", sym.max_mean);
	mp_print_double(MP_PRINT_ANY, "cv", " %5.2f", sym.cv);
	mp_print_bool(MP_PRINT_JSON, "flagged", NULL, sym.flagged);
	mp_print_text("  %s", sym.flagged ? "FLAGGED" : "ok");
	mp_print_open_array("slow");
	for (i = 0; i < r->tm.nents; i++) {
		if (r->tm.ents[i].group != (int)g ||
		    !mp_tm_slow(&r->tm, &sym, &r->tm.ents[i], MP_TM_BW_MEAN))
			continue;
		mp_print_text("%s", sep);
		mp_print_str(MP_PRINT_ANY, NULL, "%s", r->tm.ents[i].name);
		sep = ", ";
	}
	mp_print_close_array();
	mp_print_text("\n");
	mp_print_close_object();
}

static void print_symmetry(const struct report *r)
{
	enum mp_print_to to = r->tm.ngroups ? MP_PRINT_ANY : MP_PRINT_JSON;
	unsigned int g;

	mp_print_double(to, "threshold",
			"\nsymmetry (max/mean, CV; flagged above %.2f):\n",
			r->tm.o.sym_threshold);
	mp_print_open_array("symmetry");
	for (g = 0; g < r->tm.ngroups; g++)
		print_group(r, g);
	mp_print_close_array();
}

/* Text's line of a histogram of ns, if it has any: "WHAT: COUNT", what
 * @words print, then ", p50 .., p99 .., max ..". */
static void hist_line(const char *what, const struct mp_hist *h,
		      void (*words)(const struct mp_tm *),
		      const struct mp_tm *tm)
{
	char p[3][24];

	if (h->count)
		mp_print_text("%s: %" PRIu64, what, h->count);
	if (words)
		words(tm);
	if (h->count)
		mp_print_text(", p50 %s, p99 %s, max %s\n",
			      tv_dur(mp_hist_quantile(h, 0.5), p[0], 24),
			      tv_dur(mp_hist_quantile(h, 0.99), p[1], 24),
			      tv_dur(h->max, p[2], 24));
}

/* Whose the steps are, in the step time's line when there is one. */
static void step_words(const struct mp_tm *tm)
{
	bool line = tm->steps.count, ranks = line && tm->nranks;

	mp_print_u64(line ? MP_PRINT_ANY : MP_PRINT_JSON, "step_pids",
		     " steps of %" PRIu64 " process", tm->npids);
	if (line)
		mp_print_text("%s", tm->npids == 1 ? "" : "es");
	mp_print_u64(ranks ? MP_PRINT_ANY : MP_PRINT_JSON, "step_ranks",
		     " and %" PRIu64 " collective rank", tm->nranks);
	if (ranks)
		mp_print_text("%s", tm->nranks == 1 ? "" : "s");
}

static void print_queue(const struct mp_tm *tm)
{
	char p[2][24];

	mp_print_open_object("queue");
	tv_hist_print(&tm->queue, &tv_unit_bytes, NULL);
	mp_print_close_object();
	if (tm->queue.count)
		mp_print_text("queue depth over every sample: p99 %s, max %s\n",
			      tv_bytes(mp_hist_quantile(&tm->queue, 0.99),
				       p[0], 24),
			      tv_bytes(tm->queue.max, p[1], 24));
}

/* What the capture held past the model's caps (mp_tm.h): text only when
 * something was. */
static void print_limits(const struct mp_tm *tm)
{
	uint64_t unlisted = anomalies(tm) - tm->nanoms;
	bool text = tm->ents_refused || tm->names_refused ||
		    tm->steppers_evicted || unlisted;
	enum mp_print_to to = text ? MP_PRINT_ANY : MP_PRINT_JSON;

	mp_print_open_object("limits");
	mp_print_u64(to, "entities_refused",
		     "past the model's limits, not kept: %" PRIu64 " entities",
		     tm->ents_refused);
	if (text)
		mp_print_text(" (of %u)", MP_TM_ENTS_MAX);
	mp_print_u64(to, "names_refused", ", %" PRIu64 " names",
		     tm->names_refused);
	if (text)
		mp_print_text(" (of %u)", MP_TM_NAMES_MAX);
	mp_print_u64(to, "anomalies_unlisted", ", %" PRIu64 " anomalies",
		     unlisted);
	if (text)
		mp_print_text(" (of %u listed)", MP_TM_ANOMS_MAX);
	mp_print_u64(MP_PRINT_JSON, "qps_evicted", NULL, tm->qps_evicted);
	mp_print_u64(to, "steppers_evicted",
		     ", %" PRIu64 " processes and ranks timed",
		     tm->steppers_evicted);
	if (text)
		mp_print_text(" (of %u)\n", MP_TM_STEPPERS_MAX);
	mp_print_close_object();
}

static void print_anomaly(const struct report *r, const struct mp_tm_anomaly *a)
{
	char at[96];

	mp_print_open_object(NULL);
	mp_print_double(MP_PRINT_ANY, "t_ms", "  %+10.3f ms",
			rel_ms(r, a->ts_ns));
	mp_print_u64(MP_PRINT_JSON, "ts_ns", NULL, a->ts_ns);
	mp_print_str(MP_PRINT_ANY, "type", "  %-10s",
		     mp_tm_anomaly_name(a->type));
	mp_print_str(MP_PRINT_ANY, "entity", " %s",
		     anomaly_at(r, a, at, sizeof(at)));
	/* Text says the value of the two it means something to. */
	if (a->type == MP_TM_AN_ECN_STORM)
		mp_print_u64(MP_PRINT_ANY, "value",
			     "  %" PRIu64 " marks in 10 ms", a->value);
	else if (a->type == MP_TM_AN_FAILOVER)
		mp_print_u64(MP_PRINT_ANY, "value",
			     "  usable planes 0x%" PRIx64, a->value);
	else
		mp_print_u64(MP_PRINT_JSON, "value", NULL, a->value);
	/* The entity column is where the fault was made already. */
	if (a->type == MP_TM_AN_FAULT)
		mp_fault_print(&a->fault, MP_PRINT_ANY, NULL);
	mp_print_text("\n");
	mp_print_close_object();
}

static void print_anomalies(const struct report *r)
{
	const struct mp_tm *tm = &r->tm;
	unsigned int i;

	if (!tm->nanoms)
		mp_print_text("no anomalies (failovers, links down, ECN storms, faults)\n");
	else if (anomalies(tm) > tm->nanoms)
		mp_print_text("anomalies: %" PRIu64 ", the first %u listed\n",
			      anomalies(tm), tm->nanoms);
	else
		mp_print_text("anomalies: %u\n", tm->nanoms);
	mp_print_open_array("anomalies");
	for (i = 0; i < tm->nanoms; i++)
		print_anomaly(r, &tm->anoms[i]);
	mp_print_close_array();
}

/* JSON has the numbers, and the names of enums; text (when @to says)
 * " KEY=" their words. */
static void print_values(const struct mplane_event *ev, enum mp_print_to to)
{
	unsigned int i;

	mp_print_open_object("values");
	for (i = 0; i < 4; i++)
		mp_event_print_val(ev, i, to);
	mp_print_close_object();
}

/* An event of a timeline: JSON has each; text the first TEXT_EVENTS. */
static void print_tl_event(const struct report *r, const struct timeline *t,
			   const struct mp_event_item *it, enum mp_print_to to)
{
	const struct mplane_event *ev = &it->ev;
	const char *type = mp_event_type_name(ev->hdr.type);
	int ent = mp_tm_lookup(&r->tm, it->source, &ev->hdr);
	const struct mp_tm_source *src = mp_tm_source(&r->tm, it->source);
	bool fault = ev->hdr.type == MPLANE_EV_FAULT;

	mp_print_open_object(NULL);
	mp_print_double(to, "dt_us", "  %+10.1f",
			((double)ev->hdr.ts_ns - (double)t->anchor) / 1e3);
	mp_print_double(MP_PRINT_JSON, "t_ms", NULL, rel_ms(r, ev->hdr.ts_ns));
	mp_print_str(to, "type", "  %-14s", type ? type : "unknown");
	/* Text's third column: where a fault was made, else the entity,
	 * else the source. */
	mp_print_str(!fault && ent < 0 ? to : MP_PRINT_JSON, "source",
		     " %-18s", src ? src->label : "");
	if (ent >= 0)
		mp_print_str(fault ? MP_PRINT_JSON : to, "entity", " %-18s",
			     r->tm.ents[ent].name);
	if (fault)
		mp_fault_print(ev, to, " %-18s");
	print_values(ev, fault ? MP_PRINT_JSON : to);
	if (to == MP_PRINT_ANY)
		mp_print_text("\n");
	mp_print_close_object();
}

static void print_timeline(const struct report *r, const struct timeline *t)
{
	unsigned int i;

	mp_print_open_object(NULL);
	mp_print_double(MP_PRINT_ANY, "from_ms", "\ntimeline %+.3f",
			rel_ms(r, t->from));
	mp_print_double(MP_PRINT_ANY, "to_ms", " .. %+.3f ms",
			rel_ms(r, t->to));
	mp_print_text(", us from the anomaly at %+.3f ms:\n",
		      rel_ms(r, t->anchor));
	mp_print_open_array("anomalies");
	mp_print_u64(MP_PRINT_JSON, NULL, NULL, t->first);
	if (t->last != t->first)
		mp_print_u64(MP_PRINT_JSON, NULL, NULL, t->last);
	mp_print_close_array();
	mp_print_open_array("events");
	for (i = 0; i < t->n; i++)
		print_tl_event(r, t, &t->ev[i], i < TEXT_EVENTS ?
			       MP_PRINT_ANY : MP_PRINT_JSON);
	mp_print_close_array();
	if (t->n > TEXT_EVENTS)
		mp_print_text("  ... and %u more (all of them with --json)\n",
			      t->n - TEXT_EVENTS);
	mp_print_close_object();
}

static void print_report(const struct report *r)
{
	const struct mp_tm *tm = &r->tm;
	unsigned int i;

	mp_print_start();
	print_header(r);
	print_entities(r);
	print_symmetry(r);
	mp_print_text("\n");
	/* Each histogram in JSON (in us), then text's line of it. */
	mp_print_open_object("step_times");
	tv_hist_print(&tm->steps, &tv_unit_us, NULL);
	mp_print_close_object();
	hist_line("step time", &tm->steps, step_words, tm);
	mp_print_open_object("gaps");
	tv_hist_print(&tm->gaps, &tv_unit_us, NULL);
	mp_print_close_object();
	hist_line("delivery gaps", &tm->gaps, NULL, tm);
	print_queue(tm);
	print_limits(tm);
	if (tm->fail_ts)
		mp_print_double(MP_PRINT_JSON, "first_failure_ms", NULL,
				rel_ms(r, tm->fail_ts));
	else
		mp_print_null(MP_PRINT_JSON, "first_failure_ms", NULL);
	print_anomalies(r);
	mp_print_open_array("timelines");
	for (i = 0; i < r->ntl; i++)
		print_timeline(r, &r->tl[i]);
	mp_print_close_array();
	mp_print_end();
}

/* The page of --html: the capture's sections, and its anomalies. */
static int write_html(const struct report *r)
{
	FILE *f = fopen(r->html, "w");
	char at[96];
	unsigned int i;
	int err;

	if (!f) {
		mp_err("--html %s: %s", r->html, strerror(errno));
		return -1;
	}
	html_head(f, "mplane telemetry report");
	fputs("<h1>Fabric Symmetry Dashboard: telemetry</h1>\n", f);
	err = telemetry_html_sections(f, r->path, NULL);
	fputs("<h3>Anomalies</h3>\n<table id=\"anomalies\"><tr><th>t (ms)</th><th>what</th><th>where</th></tr>\n", f);
	for (i = 0; i < r->tm.nanoms; i++) {
		fprintf(f, "<tr><td class=\"n\">%.3f</td><td>%s</td><td>",
			rel_ms(r, r->tm.anoms[i].ts_ns),
			mp_tm_anomaly_name(r->tm.anoms[i].type));
		html_esc(f, anomaly_at(r, &r->tm.anoms[i], at, sizeof(at)));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	html_tail(f);
	if (fclose(f) || err) {
		if (!err)
			mp_err("--html %s: %s", r->html, strerror(errno));
		return -1;
	}
	return 0;
}

/* The report's and the model's settings, from the command line's. */
static int parse(int argc, char **argv, struct report *r,
		 struct mp_tm_opts *o)
{
	struct report_args a = { .around_ms = 5 };
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&report_cmd, argc, argv, &a, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	/* optind is res.argi: the one operand, or what is missing. */
	r->path = mp_single_arg(argc, argv, "capture FILE");
	if (!r->path)
		return MP_EXIT_USAGE;
	r->around_ns = a.around_ms * MS_NS;
	r->samples = a.samples;
	r->all = a.all;
	r->html = a.html;
	*o = a.tm;
	if (a.json)
		mp_json = true;
	return MP_OPT_RUN;
}

int telemetry_report_main(int argc, char **argv)
{
	struct report r = {};
	struct mp_tm_opts o;
	unsigned int i;
	int ret, err;

	ret = parse(argc, argv, &r, &o);
	if (ret != MP_OPT_RUN)
		return ret;
	if (mp_tm_init(&r.tm, &o)) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	ret = tv_load(r.path, &r.tm, &r.hdr);
	if (ret)
		goto out;
	r.t0 = r.hdr.start_mono_ns && r.hdr.start_mono_ns <= r.tm.first_ts ?
	       r.hdr.start_mono_ns : r.tm.first_ts;
	err = make_timelines(&r);
	if (!err)
		err = fill_timelines(&r);
	if (err) {
		mp_err("%s: %s", r.path, strerror(-err));
		ret = MP_EXIT_ERR;
		goto out;
	}
	print_report(&r);
	if (r.html && write_html(&r))
		ret = MP_EXIT_ERR;
out:
	for (i = 0; i < r.ntl; i++)
		free(r.tl[i].ev);
	free(r.tl);
	mp_tm_free(&r.tm);
	return ret;
}
