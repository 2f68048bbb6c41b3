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
		struct json_object *events;
		unsigned int n;
	} *tl;
	unsigned int ntl;
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
		t->events = json_object_new_array();
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

static struct json_object *event_json(const struct report *r,
				      const struct timeline *t,
				      const struct mp_event_item *it)
{
	const struct mplane_event *ev = &it->ev;
	struct json_object *o = json_object_new_object(), *vals;
	const char *type = mp_event_type_name(ev->hdr.type), *vn;
	int ent = mp_tm_lookup(&r->tm, it->source, &ev->hdr);
	const struct mp_tm_source *src;
	unsigned int i;

	json_object_object_add(o, "dt_us", json_object_new_double(
		((double)ev->hdr.ts_ns - (double)t->anchor) / 1e3));
	json_object_object_add(o, "t_ms", json_object_new_double(
		rel_ms(r, ev->hdr.ts_ns)));
	json_object_object_add(o, "type", json_object_new_string(
		type ? type : "unknown"));
	src = mp_tm_source(&r->tm, it->source);
	json_object_object_add(o, "source", json_object_new_string(
		src ? src->label : ""));
	if (ent >= 0)
		json_object_object_add(o, "entity", json_object_new_string(
			r->tm.ents[ent].name));
	if (ev->hdr.type == MPLANE_EV_FAULT)
		mp_fault_json(o, ev);
	vals = json_object_new_object();
	for (i = 0; i < 4; i++) {
		vn = mp_event_val_name(ev->hdr.type, i);
		if (vn)
			json_object_object_add(vals, vn,
				json_object_new_uint64(ev->val[i]));
	}
	json_object_object_add(o, "values", vals);
	return o;
}

static void timeline_cb(const struct mp_event_item *it, void *data)
{
	struct report *r = data;
	struct timeline *t;
	unsigned int i;

	for (i = 0; i < r->ntl; i++) {
		t = &r->tl[i];
		if (it->ev.hdr.ts_ns >= t->from && it->ev.hdr.ts_ns <= t->to) {
			json_object_array_add(t->events, event_json(r, t, it));
			t->n++;
			return;
		}
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
	return err == -EBADMSG ? 0 : err;
}

/* JSON */

static uint64_t anomalies(const struct mp_tm *tm)
{
	uint64_t n = 0;
	unsigned int t;

	for (t = 0; t < __MP_TM_AN_MAX; t++)
		n += tm->anom_count[t];
	return n;
}

/* What the capture held past the model's caps (mp_tm.h), or nothing. */
static void print_limits(const struct mp_tm *tm)
{
	if (!tm->ents_refused && !tm->names_refused &&
	    !tm->steppers_evicted && anomalies(tm) == tm->nanoms)
		return;
	printf("past the model's limits, not kept: %" PRIu64
	       " entities (of %u), %" PRIu64 " names (of %u), %" PRIu64
	       " anomalies (of %u listed), %" PRIu64
	       " processes and ranks timed (of %u)\n", tm->ents_refused,
	       MP_TM_ENTS_MAX, tm->names_refused, MP_TM_NAMES_MAX,
	       anomalies(tm) - tm->nanoms, MP_TM_ANOMS_MAX,
	       tm->steppers_evicted, MP_TM_STEPPERS_MAX);
}

static struct json_object *limits_json(const struct mp_tm *tm)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "entities_refused",
			       json_object_new_uint64(tm->ents_refused));
	json_object_object_add(o, "names_refused",
			       json_object_new_uint64(tm->names_refused));
	json_object_object_add(o, "anomalies_unlisted",
			       json_object_new_uint64(anomalies(tm) -
						      tm->nanoms));
	json_object_object_add(o, "qps_evicted",
			       json_object_new_uint64(tm->qps_evicted));
	json_object_object_add(o, "steppers_evicted",
			       json_object_new_uint64(tm->steppers_evicted));
	return o;
}

static struct json_object *sources_json(const struct report *r)
{
	struct json_object *arr = json_object_new_array(), *o;
	const struct mp_tm_source *s;
	unsigned int i;

	for (i = 0; i < r->tm.nsources; i++) {
		s = &r->tm.sources[i];
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int(s->id));
		json_object_object_add(o, "label",
				       json_object_new_string(s->label));
		json_object_object_add(o, "events",
				       json_object_new_uint64(s->events));
		json_object_object_add(o, "stats",
				       json_object_new_boolean(s->has_stats));
		json_object_object_add(o, "recorded",
				       json_object_new_uint64(s->stats.recorded));
		json_object_object_add(o, "produced",
				       json_object_new_uint64(s->stats.produced));
		json_object_object_add(o, "dropped",
				       json_object_new_uint64(s->stats.dropped));
		json_object_object_add(o, "in_flight",
				       json_object_new_uint64(s->stats.in_flight));
		json_object_array_add(arr, o);
	}
	return arr;
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

static struct json_object *entity_json(const struct report *r,
				       const struct mp_tm_entity *e)
{
	const struct mp_hist *queue = mp_tm_queue(&r->tm, e);
	struct json_object *o = json_object_new_object();
	static const struct mp_hist empty;

	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(o, "kind",
			       json_object_new_string(mp_tm_kind_name(e->kind)));
	json_object_object_add(o, "group", e->group < 0 ? NULL :
		json_object_new_string(r->tm.groups[e->group].name));
	json_object_object_add(o, e->kind == MP_TM_COUNTER ? "increase" :
			       "tx_bytes",
			       json_object_new_uint64(e->tx_bytes.total));
	json_object_object_add(o, "bw_bps",
			       tv_json_rate(mp_tm_bw(e, MP_TM_BW_MEAN)));
	json_object_object_add(o, "bw_before_bps",
			       tv_json_rate(mp_tm_bw(e, MP_TM_BW_BEFORE)));
	json_object_object_add(o, "bw_after_bps",
			       tv_json_rate(mp_tm_bw(e, MP_TM_BW_AFTER)));
	json_object_object_add(o, "queue_bytes",
			       tv_hist_json(queue ? queue : &empty, 1));
	json_object_object_add(o, "ecn_ce", json_object_new_uint64(e->ecn.total));
	json_object_object_add(o, "ecn_mark_events",
			       json_object_new_uint64(e->ecn_events));
	json_object_object_add(o, "cnp", json_object_new_uint64(e->cnp.total));
	json_object_object_add(o, "cnp_events",
			       json_object_new_uint64(e->cnp_events));
	json_object_object_add(o, "state",
			       json_object_new_string(mp_tm_state_name(e)));
	json_object_object_add(o, "state_changes",
			       json_object_new_uint64(e->state_changes));
	json_object_object_add(o, "max_gap_us", json_object_new_double(
		e->tx_bytes.max_gap_ns / 1e3));
	return o;
}

static struct json_object *symmetry_json(const struct report *r,
					 unsigned int g)
{
	struct json_object *o = json_object_new_object(), *slow;
	struct mp_tm_symmetry sym;
	unsigned int i;

	mp_tm_symmetry(&r->tm, g, MP_TM_BW_MEAN, &sym);
	json_object_object_add(o, "group",
			       json_object_new_string(r->tm.groups[g].name));
	json_object_object_add(o, "kind", json_object_new_string(
		mp_tm_kind_name(r->tm.groups[g].kind)));
	json_object_object_add(o, "members",
			       json_object_new_int(sym.members));
	json_object_object_add(o, "mean_bps",
			       json_object_new_double(sym.mean_bps));
	json_object_object_add(o, "max_mean",
			       json_object_new_double(sym.max_mean));
	json_object_object_add(o, "cv", json_object_new_double(sym.cv));
	json_object_object_add(o, "flagged",
			       json_object_new_boolean(sym.flagged));
	slow = json_object_new_array();
	for (i = 0; i < r->tm.nents; i++)
		if (r->tm.ents[i].group == (int)g &&
		    mp_tm_slow(&r->tm, &sym, &r->tm.ents[i], MP_TM_BW_MEAN))
			json_object_array_add(slow, json_object_new_string(
				r->tm.ents[i].name));
	json_object_object_add(o, "slow", slow);
	return o;
}

static struct json_object *anomalies_json(const struct report *r)
{
	struct json_object *arr = json_object_new_array(), *o;
	const struct mp_tm_anomaly *a;
	unsigned int i;

	char buf[96];

	for (i = 0; i < r->tm.nanoms; i++) {
		a = &r->tm.anoms[i];
		o = json_object_new_object();
		json_object_object_add(o, "t_ms", json_object_new_double(
			rel_ms(r, a->ts_ns)));
		json_object_object_add(o, "ts_ns",
				       json_object_new_uint64(a->ts_ns));
		json_object_object_add(o, "type", json_object_new_string(
			mp_tm_anomaly_name(a->type)));
		json_object_object_add(o, "entity", json_object_new_string(
			anomaly_at(r, a, buf, sizeof(buf))));
		json_object_object_add(o, "value",
				       json_object_new_uint64(a->value));
		if (a->type == MP_TM_AN_FAULT)
			mp_fault_json(o, &a->fault);
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *timelines_json(struct report *r)
{
	struct json_object *arr = json_object_new_array(), *o;
	struct timeline *t;
	unsigned int i;

	for (i = 0; i < r->ntl; i++) {
		t = &r->tl[i];
		o = json_object_new_object();
		json_object_object_add(o, "from_ms", json_object_new_double(
			rel_ms(r, t->from)));
		json_object_object_add(o, "to_ms", json_object_new_double(
			rel_ms(r, t->to)));
		json_object_object_add(o, "anomalies", json_object_new_array());
		json_object_array_add(json_object_object_get(o, "anomalies"),
				      json_object_new_int(t->first));
		if (t->last != t->first)
			json_object_array_add(json_object_object_get(o,
					      "anomalies"),
					      json_object_new_int(t->last));
		json_object_object_add(o, "events", json_object_get(t->events));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_json(struct report *r)
{
	struct json_object *o = json_object_new_object(), *arr;
	const struct mp_tm *tm = &r->tm;
	unsigned int i, n;

	json_object_object_add(o, "capture", json_object_new_string(r->path));
	json_object_object_add(o, "host", json_object_new_string(r->hdr.host));
	json_object_object_add(o, "start_real_ns",
			       json_object_new_uint64(r->hdr.start_real_ns));
	json_object_object_add(o, "duration_s", json_object_new_double(
		tm->last_ts > r->t0 ? (tm->last_ts - r->t0) / 1e9 : 0));
	json_object_object_add(o, "events", json_object_new_uint64(tm->events));
	json_object_object_add(o, "sources", sources_json(r));
	json_object_object_add(o, "dropped",
			       json_object_new_uint64(dropped(tm, &n)));
	json_object_object_add(o, "limits", limits_json(tm));
	arr = json_object_new_array();
	for (i = 0; i < tm->nents; i++)
		json_object_array_add(arr, entity_json(r, &tm->ents[i]));
	json_object_object_add(o, "entities", arr);
	arr = json_object_new_array();
	for (i = 0; i < tm->ngroups; i++)
		json_object_array_add(arr, symmetry_json(r, i));
	json_object_object_add(o, "symmetry", arr);
	json_object_object_add(o, "threshold",
			       json_object_new_double(tm->o.sym_threshold));
	json_object_object_add(o, "steps", tv_hist_json(&tm->steps, 1e3));
	json_object_object_add(o, "step_pids", json_object_new_int(tm->npids));
	json_object_object_add(o, "step_ranks", json_object_new_int(tm->nranks));
	json_object_object_add(o, "gaps", tv_hist_json(&tm->gaps, 1e3));
	json_object_object_add(o, "queue_bytes", tv_hist_json(&tm->queue, 1));
	json_object_object_add(o, "first_failure_ms", tm->fail_ts ?
		json_object_new_double(rel_ms(r, tm->fail_ts)) : NULL);
	json_object_object_add(o, "anomalies", anomalies_json(r));
	json_object_object_add(o, "timelines", timelines_json(r));
	mp_json_print(o);
}

/* Text */

static void print_header(const struct report *r)
{
	const struct mp_tm *tm = &r->tm;
	const struct mp_tm_source *s;
	unsigned int i, n;
	uint64_t lost;
	char d[32];

	printf("capture %s: host %s, %s, %" PRIu64 " events from %u sources\n",
	       r->path, r->hdr.host[0] ? r->hdr.host : "?",
	       tv_dur(tm->last_ts > r->t0 ? tm->last_ts - r->t0 : 0, d,
		      sizeof(d)), tm->events, tm->nsources);
	for (i = 0; i < tm->nsources; i++) {
		s = &tm->sources[i];
		if (!s->has_stats) {
			printf("  %-28s %10" PRIu64 " events (no counts)\n",
			       s->label, s->events);
			continue;
		}
		printf("  %-28s recorded %" PRIu64 ", produced %" PRIu64
		       ", dropped %" PRIu64 "%s\n", s->label,
		       (uint64_t)s->stats.recorded,
		       (uint64_t)s->stats.produced, (uint64_t)s->stats.dropped,
		       s->stats.dropped ? "   <== LOST EVENTS" : "");
	}
	lost = dropped(tm, &n);
	if (lost)
		printf("!!! %" PRIu64 " events were DROPPED by %u source%s: "
		       "the numbers below miss them !!!\n", lost, n,
		       n == 1 ? "" : "s");
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

static void print_entities(const struct report *r)
{
	bool *flagged = calloc(r->tm.ngroups + 1, sizeof(*flagged));
	unsigned int i, quiet = 0;
	char b[4][24], q[3][24];
	const struct mp_tm_entity *e;
	const struct mp_hist *queue;
	struct mp_tm_symmetry sym;
	bool any = false;

	for (i = 0; flagged && i < r->tm.ngroups; i++) {
		mp_tm_symmetry(&r->tm, i, MP_TM_BW_MEAN, &sym);
		flagged[i] = sym.flagged;
	}
	for (i = 0; i < r->tm.nents; i++) {
		e = &r->tm.ents[i];
		if (flagged && !worth_a_row(r, i, flagged)) {
			quiet += e->group >= 0;
			continue;
		}
		if (!any)
			printf("\n%-18s %9s %12s %12s %12s %8s %8s %8s %6s %5s %-6s %3s\n",
			       "NAME", "BYTES", "MEAN", "BEFORE",
			       "AFTER", "Q_P50", "Q_P99", "Q_MAX", "ECN",
			       "CNP", "STATE", "CHG");
		any = true;
		queue = mp_tm_queue(&r->tm, e);
		printf("%-18s %9s %12s %12s %12s %8s %8s %8s %6" PRIu64
		       " %5" PRIu64 " %-6s %3u\n", e->name,
		       tv_bytes(e->tx_bytes.total, b[0], 24),
		       tv_bps(mp_tm_bw(e, MP_TM_BW_MEAN), b[1], 24),
		       tv_bps(mp_tm_bw(e, MP_TM_BW_BEFORE), b[2], 24),
		       tv_bps(mp_tm_bw(e, MP_TM_BW_AFTER), b[3], 24),
		       queue ? tv_bytes(mp_hist_quantile(queue, 0.5),
					q[0], 24) : "-",
		       queue ? tv_bytes(mp_hist_quantile(queue, 0.99),
					q[1], 24) : "-",
		       queue ? tv_bytes(queue->max, q[2], 24) : "-",
		       e->ecn.total + e->ecn_events,
		       e->cnp.total + e->cnp_events, mp_tm_state_name(e),
		       e->state_changes);
	}
	if (quiet)
		printf("%s(%u more ports and rails, even and quiet: --all shows them)\n",
		       any ? "" : "\n", quiet);
	free(flagged);
}

static void print_symmetry(const struct report *r)
{
	struct mp_tm_symmetry sym;
	unsigned int g, i;
	const char *sep;

	if (r->tm.ngroups)
		printf("\nsymmetry (max/mean, CV; flagged above %.2f):\n",
		       r->tm.o.sym_threshold);
	for (g = 0; g < r->tm.ngroups; g++) {
		mp_tm_symmetry(&r->tm, g, MP_TM_BW_MEAN, &sym);
		printf("  %-22s %2u %-7s %5.2f %5.2f  %s", r->tm.groups[g].name,
		       sym.members, r->tm.groups[g].kind == MP_TM_PLANE ?
		       "planes" : r->tm.groups[g].kind == MP_TM_PORT ?
		       "ports" : "rails", sym.max_mean, sym.cv,
		       sym.flagged ? "FLAGGED" : "ok");
		sep = "  slow: ";
		for (i = 0; i < r->tm.nents; i++) {
			if (r->tm.ents[i].group != (int)g ||
			    !mp_tm_slow(&r->tm, &sym, &r->tm.ents[i],
					MP_TM_BW_MEAN))
				continue;
			printf("%s%s", sep, r->tm.ents[i].name);
			sep = ", ";
		}
		printf("\n");
	}
}

static void print_hist_line(const char *what, const struct mp_hist *h,
			    const char *extra)
{
	char p[3][24];

	if (!h->count)
		return;
	printf("%s: %" PRIu64 "%s, p50 %s, p99 %s, max %s\n", what, h->count,
	       extra, tv_dur(mp_hist_quantile(h, 0.5), p[0], 24),
	       tv_dur(mp_hist_quantile(h, 0.99), p[1], 24),
	       tv_dur(h->max, p[2], 24));
}

/* A value as a human reads it: plane states, reasons and rate causes by
 * name. */
static void print_value(const char *type, const char *key,
			struct json_object *v)
{
	static const char *const states[] = {
		"up", "down", "congested", "probing", "admin-down",
	};
	static const char *const reasons[] = {
		"none", "carrier", "holddown", "probe-miss", "ecn", "admin",
		"master-down",
	};
	uint64_t x = json_object_get_uint64(v);
	bool plane = !strcmp(type, "plane_state");
	int t = mp_event_type_parse(type);
	const char *label;
	unsigned int i;

	/* RATE_UPDATE's cause by name, its QPN in hex. */
	for (i = 0; t >= 0 && i < 4; i++) {
		if (!mp_event_val_name(t, i) || strcmp(mp_event_val_name(t, i), key))
			continue;
		label = mp_event_val_label(t, i, x);
		if (label) {
			printf(" %s=%s", key, label);
			return;
		}
		if (mp_event_val_hex(t, i)) {
			printf(" %s=0x%" PRIx64, key, x);
			return;
		}
	}

	if (plane && strstr(key, "state") && x < 5)
		printf(" %s=%s", key, states[x]);
	else if ((plane || !strcmp(type, "failover")) &&
		 !strcmp(key, "reason") && x < 7)
		printf(" %s=%s", key, reasons[x]);
	else if (!strcmp(key, "usable_mask"))
		printf(" %s=0x%" PRIx64, key, x);
	else
		printf(" %s=%" PRIu64, key, x);
}

static const char *get_str(struct json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

static void print_timeline(const struct report *r, const struct timeline *t)
{
	struct json_object *e, *vals, *fault;
	unsigned int i, n = json_object_array_length(t->events);

	printf("\ntimeline %+.3f .. %+.3f ms, us from the anomaly at %+.3f ms:\n",
	       rel_ms(r, t->from), rel_ms(r, t->to), rel_ms(r, t->anchor));
	for (i = 0; i < n && i < TEXT_EVENTS; i++) {
		e = json_object_array_get_idx(t->events, i);
		fault = json_object_object_get(e, "where");
		printf("  %+10.1f  %-14s %-18s", json_object_get_double(
			json_object_object_get(e, "dt_us")),
		       json_object_get_string(json_object_object_get(e, "type")),
		       json_object_get_string(json_object_object_get(e,
			fault ? "where" : json_object_object_get(e, "entity") ?
			"entity" : "source")));
		if (fault) {
			printf(" %s (%s, %s)\n", get_str(e, "what"),
			       get_str(e, "target"), get_str(e, "via"));
			continue;
		}
		vals = json_object_object_get(e, "values");
		json_object_object_foreach(vals, k, v)
			print_value(json_object_get_string(
				json_object_object_get(e, "type")), k, v);
		printf("\n");
	}
	if (n > TEXT_EVENTS)
		printf("  ... and %u more (all of them with --json)\n",
		       n - TEXT_EVENTS);
}

static void print_text(struct report *r)
{
	const struct mp_tm *tm = &r->tm;
	const struct mp_tm_anomaly *a;
	char extra[96], at[96];
	unsigned int i;

	print_header(r);
	print_entities(r);
	print_symmetry(r);
	printf("\n");
	snprintf(extra, sizeof(extra), " steps of %u process%s", tm->npids,
		 tm->npids == 1 ? "" : "es");
	if (tm->nranks)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 " and %u collective rank%s", tm->nranks,
			 tm->nranks == 1 ? "" : "s");
	print_hist_line("step time", &tm->steps, extra);
	print_hist_line("delivery gaps", &tm->gaps, "");
	if (tm->queue.count) {
		char p[2][24];

		printf("queue depth over every sample: p99 %s, max %s\n",
		       tv_bytes(mp_hist_quantile(&tm->queue, 0.99), p[0], 24),
		       tv_bytes(tm->queue.max, p[1], 24));
	}
	print_limits(tm);
	if (!tm->nanoms) {
		printf("no anomalies (failovers, links down, ECN storms, faults)\n");
		return;
	}
	if (anomalies(tm) > tm->nanoms)
		printf("anomalies: %" PRIu64 ", the first %u listed\n",
		       anomalies(tm), tm->nanoms);
	else
		printf("anomalies: %u\n", tm->nanoms);
	for (i = 0; i < tm->nanoms; i++) {
		a = &tm->anoms[i];
		printf("  %+10.3f ms  %-10s %s", rel_ms(r, a->ts_ns),
		       mp_tm_anomaly_name(a->type),
		       anomaly_at(r, a, at, sizeof(at)));
		if (a->type == MP_TM_AN_FAULT)
			printf(" %s", mp_fault_words(&a->fault, at, sizeof(at)));
		if (a->type == MP_TM_AN_ECN_STORM)
			printf("  %" PRIu64 " marks in 10 ms", a->value);
		if (a->type == MP_TM_AN_FAILOVER)
			printf("  usable planes 0x%" PRIx64, a->value);
		printf("\n");
	}
	for (i = 0; i < r->ntl; i++)
		print_timeline(r, &r->tl[i]);
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
	if (mp_json)
		print_json(&r);
	else
		print_text(&r);
	if (r.html && write_html(&r))
		ret = MP_EXIT_ERR;
out:
	for (i = 0; i < r.ntl; i++)
		json_object_put(r.tl[i].events);
	free(r.tl);
	mp_tm_free(&r.tm);
	return ret;
}
