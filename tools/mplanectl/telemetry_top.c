// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry top: the live feed through the telemetry model,
 * shown as a table per plane and per port that refreshes in place, then
 * the symmetry of each group with its slow members named.  Rates are
 * over the model's last complete window, so a refresh shows what the
 * fabric does now, not since the start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_feed.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "mp_tm.h"
#include "telemetry.h"
#include "telemetry_views.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_maps.h"

/* QP rows shown without --all: the slowest, as they are the throttled. */
#define TOP_QPS_SHOWN	16

struct top {
	struct mp_tm tm;
	pthread_mutex_t lock;	/* the pollers' thread feeds the model too */
	bool all;		/* idle ports too, and every QP */
	bool tty;
	bool from_file;		/* a capture's final state: ages from its end */
};

static int to_model(void *data, unsigned int kind, unsigned int source,
		    const void *payload, size_t len)
{
	struct top *t = data;
	int err;

	pthread_mutex_lock(&t->lock);
	err = mp_tm_frame(&t->tm, kind, source, payload, len);
	pthread_mutex_unlock(&t->lock);
	return err;
}

static bool entity_slow(const struct mp_tm *tm, const struct mp_tm_entity *e)
{
	struct mp_tm_symmetry sym;

	if (e->group < 0)
		return false;
	mp_tm_symmetry(tm, e->group, MP_TM_BW_WINDOW, &sym);
	return mp_tm_slow(tm, &sym, e, MP_TM_BW_WINDOW);
}

/*
 * A plane always shows; a port or rail once it carried something, or when
 * it is a slow member of its group: a port left idle next to a busy one
 * is what the symmetry table is about, so it must have a row to point at.
 */
static bool shown(const struct top *t, const struct mp_tm_entity *e)
{
	if (e->kind == MP_TM_COUNTER)
		return false;
	return t->all || e->kind == MP_TM_PLANE || e->tx_bytes.total ||
	       e->q_last || e->ecn_events || entity_slow(&t->tm, e);
}

/* A queue percentile (@ppm 0: the max) in text, "-" without samples. */
static void q_text(const struct mp_hist *h, uint32_t ppm)
{
	char buf[32];

	mp_print_str(MP_PRINT_TEXT, NULL, " %10s", !h || !h->count ? "-" :
		     tv_bytes(ppm ? mp_hist_quantile_ppm(h, ppm) : h->max,
			      buf, sizeof(buf)));
}

static void print_entity(const struct mp_tm *tm, const struct mp_tm_entity *e)
{
	const struct mp_hist *queue = mp_tm_queue(tm, e);
	bool slow = entity_slow(tm, e);

	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "name", "%-26s", e->name);
	mp_print_str(MP_PRINT_JSON, "kind", NULL, mp_tm_kind_name(e->kind));
	mp_print_str(MP_PRINT_ANY, "state", " %-10s", mp_tm_state_name(e));
	tv_print_bps("bps", " %12s", mp_tm_bw(e, MP_TM_BW_WINDOW));
	/* Text has three of the percentiles, people's units; JSON all. */
	q_text(queue, 500000);
	q_text(queue, 990000);
	q_text(queue, 0);
	if (e->queue.count) {
		mp_print_open_object("queue");
		tv_hist_print(queue, &tv_unit_bytes, NULL);
		mp_print_close_object();
	} else {
		mp_print_null(MP_PRINT_JSON, "queue", NULL);
	}
	mp_print_double(MP_PRINT_ANY, "ecn_per_s", " %9.0f", e->ecn.win_rate);
	mp_print_double(MP_PRINT_ANY, "cnp_per_s", " %9.0f", e->cnp.win_rate);
	mp_print_bool(MP_PRINT_JSON, "is_slow", NULL, slow);
	mp_print_text("%s\n", slow ? "  SLOW" : "");
	mp_print_close_object();
}

/* @g's members that are slow, as "a, b". */
static void slow_names(const struct mp_tm *tm, unsigned int g,
		       const struct mp_tm_symmetry *sym, char *buf,
		       size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < tm->nents && n < size; i++) {
		const struct mp_tm_entity *e = &tm->ents[i];

		if (e->group != (int)g ||
		    !mp_tm_slow(tm, sym, e, MP_TM_BW_WINDOW))
			continue;
		n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
			      e->name);
	}
}

/* The QPs in the order shown: slowest first, then by name. */
static const struct mp_tm *qp_sort_tm;

static int qp_cmp(const void *a, const void *b)
{
	const struct mp_tm_qp *x = &qp_sort_tm->qps[*(const unsigned int *)a];
	const struct mp_tm_qp *y = &qp_sort_tm->qps[*(const unsigned int *)b];

	if (x->rate_kbps != y->rate_kbps)
		return x->rate_kbps < y->rate_kbps ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The indexes of the QPs to show, in order: how many; NULL on no memory. */
static unsigned int *qp_order(const struct top *t, unsigned int *n)
{
	unsigned int *idx = malloc((t->tm.nqps ? t->tm.nqps : 1) *
				   sizeof(*idx)), i;

	*n = 0;
	if (!idx)
		return NULL;
	for (i = 0; i < t->tm.nqps; i++)
		idx[i] = i;
	qp_sort_tm = &t->tm;
	qsort(idx, t->tm.nqps, sizeof(*idx), qp_cmp);
	*n = t->all || t->tm.nqps < TOP_QPS_SHOWN ? t->tm.nqps : TOP_QPS_SHOWN;
	return idx;
}

/* Seconds since @q's last update: to now, or to a capture's end. */
static double qp_age_s(const struct top *t, const struct mp_tm_qp *q)
{
	uint64_t now = t->from_file ? t->tm.last_ts : mp_mono_ns();

	return now > q->last_ts ? (now - q->last_ts) / 1e9 : 0;
}

static const char *cause_text(uint64_t cause)
{
	const char *c = mp_rate_cause_name(cause);

	return c ? c : "?";
}

static void print_qp(const struct top *t, const struct mp_tm_qp *q)
{
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "name", "%-26s", q->name);
	mp_print_str(MP_PRINT_JSON, "node", NULL, q->node);
	mp_print_str(MP_PRINT_JSON, "dev", NULL, q->dev);
	mp_print_u64(MP_PRINT_JSON, "qpn", NULL, q->qpn);
	/* kbit/s in JSON, as the events carry them; bit/s scaled in text. */
	mp_print_u64(MP_PRINT_JSON, "rate_kbps", NULL, q->rate_kbps);
	tv_print_bps(NULL, " %12s", q->rate_kbps * 1000.0);
	mp_print_u64(MP_PRINT_JSON, "old_kbps", NULL, q->old_kbps);
	tv_print_bps(NULL, " %12s", q->old_kbps * 1000.0);
	mp_print_str(MP_PRINT_ANY, "cause", " %-14s", cause_text(q->cause));
	mp_print_u64(MP_PRINT_ANY, "cuts", " %7" PRIu64, q->cuts);
	mp_print_u64(MP_PRINT_ANY, "updates", " %8" PRIu64, q->updates);
	if (q->cut_plane == MPLANE_EVENT_NO_PLANE)
		mp_print_null(MP_PRINT_JSON, "cut_plane", NULL);
	else
		mp_print_u64(MP_PRINT_JSON, "cut_plane", NULL, q->cut_plane);
	mp_print_double(MP_PRINT_ANY, "age_s", " %7.3fs\n", qp_age_s(t, q));
	mp_print_close_object();
}

static void print_qps(const struct top *t)
{
	const struct mp_tm *tm = &t->tm;
	unsigned int *idx, n, i;
	enum mp_print_to to;

	idx = qp_order(t, &n);
	/* Text has no QP table until a QP was seen. */
	if (tm->nqps || tm->qps_evicted)
		mp_print_text("\n%-26s %12s %12s %-14s %7s %8s %8s\n", "QP",
			      "RATE", "OLD", "CAUSE", "CUTS", "UPDATES", "AGE");
	mp_print_open_array("qps");
	for (i = 0; idx && i < n; i++)
		print_qp(t, &tm->qps[idx[i]]);
	mp_print_close_array();
	free(idx);
	mp_print_u64(MP_PRINT_JSON, "qps_total", NULL, tm->nqps);
	if (n < tm->nqps)
		mp_print_text("... %u more QPs (--all lists them)\n",
			      tm->nqps - n);
	to = tm->qps_evicted ? MP_PRINT_ANY : MP_PRINT_JSON;
	mp_print_u64(to, "qps_evicted", "%" PRIu64 " QPs left the table",
		     tm->qps_evicted);
	if (tm->qps_evicted)
		mp_print_text(" of %u (the least recently updated)\n",
			      tm->o.qps_max);
}

/* Text: groups of two or more; JSON: every group. */
static void print_group(const struct mp_tm *tm, unsigned int g)
{
	enum mp_print_to to;
	struct mp_tm_symmetry sym;
	char slow[256];

	mp_tm_symmetry(tm, g, MP_TM_BW_WINDOW, &sym);
	to = sym.members < 2 ? MP_PRINT_JSON : MP_PRINT_ANY;
	mp_print_open_object(NULL);
	mp_print_str(to, "group", "%-26s", tm->groups[g].name);
	mp_print_u64(to, "members", " %7" PRIu64, sym.members);
	mp_print_double(to, "max_over_mean", " %8.2f", sym.max_mean);
	mp_print_double(to, "cv", " %6.2f", sym.cv);
	mp_print_bool(MP_PRINT_JSON, "flagged", NULL, sym.flagged);
	if (to == MP_PRINT_ANY) {
		slow_names(tm, g, &sym, slow, sizeof(slow));
		mp_print_text("  %s%s\n", sym.flagged ? "ASYMMETRIC " : "",
			      slow);
	}
	mp_print_close_object();
}

static void print_head(const struct top *t, double interval_s)
{
	const struct mp_tm *tm = &t->tm;

	if (t->tty)
		mp_print_text("\033[H\033[2J");
	mp_print_u64(MP_PRINT_JSON, "ts_ns", NULL, mp_mono_ns());
	mp_print_text("mplane telemetry: %u sources", tm->nsources);
	mp_print_u64(MP_PRINT_ANY, "event_count", ", %" PRIu64 " events",
		     tm->events);
	if (t->from_file)
		mp_print_text("; a capture's end, rates over its last %.1f s\n\n",
			      tm->o.window_ns / 1e9);
	else
		mp_print_text("; refresh every %.1f s, rates over the last %.1f s\n\n",
			      interval_s, tm->o.window_ns / 1e9);
}

/* A refresh: a screen of text, or with -j one JSON object on one line,
 * a stream for scripts. */
static void show(const struct top *t, double interval_s)
{
	const struct mp_tm *tm = &t->tm;
	unsigned int i;

	mp_print_start();
	print_head(t, interval_s);
	mp_print_text("%-26s %-10s %12s %10s %10s %10s %9s %9s\n",
		      "PLANE/PORT", "STATE", "BANDWIDTH", "Q P50", "Q P99",
		      "Q MAX", "ECN/S", "CNP/S");
	mp_print_open_array("entities");
	for (i = 0; i < tm->nents; i++)
		if (shown(t, &tm->ents[i]))
			print_entity(tm, &tm->ents[i]);
	mp_print_close_array();
	mp_print_text("\n%-26s %7s %8s %6s  %s\n", "SYMMETRY", "MEMBERS",
		      "MAX/MEAN", "CV", "SLOW");
	mp_print_open_array("symmetry");
	for (i = 0; i < tm->ngroups; i++)
		print_group(tm, i);
	mp_print_close_array();
	print_qps(t);
	mp_print_end();
}

struct top_args {
	const char *from;
	uint64_t interval_ns;
	uint64_t count;
	uint64_t poll_hz;	/* into feed.poll_hz once in range */
	bool all;
	struct mp_feed_opts feed;
	struct mp_tm_opts tm;
};

/* A refresh more often than 10 a second only redraws the same numbers. */
#define TOP_INTERVAL_MIN_NS	100000000ULL

/* --interval: seconds, at least 0.1. */
static int parse_interval(const char *opt, const char *arg, void *field)
{
	uint64_t ns;
	int ret = mp_arg_seconds(opt, arg, &ns);

	if (ret != MP_EXIT_OK)
		return ret;
	if (ns < TOP_INTERVAL_MIN_NS)
		return mp_usage_err("bad %s '%s': want at least 0.1 s", opt,
				    arg);
	*(uint64_t *)field = ns;
	return MP_EXIT_OK;
}

#define AT(member)	MP_OPT_AT(struct top_args, member)
static const struct mp_opt top_opts[] = {
	{ "interval", 'i', MP_OPT_CUSTOM, AT(interval_ns), "SEC",
	  "refresh every SEC seconds, at least 0.1",
	  .parse = parse_interval, .def = "1" },
	{ "count", 'c', MP_OPT_UINT, AT(count), "N",
	  "stop after N refreshes, N from 1; without it, at Ctrl-C", .min = 1 },
	{ "fabric", 'f', MP_OPT_STRING, AT(feed.fabric), "PREFIX",
	  .help = "of the fabrics' rings only those of PREFIX" },
	{ "poll-hz", 0, MP_OPT_UINT, AT(poll_hz), "N",
	  "poll link counters N times a second, 0 for none",
	  .max = MP_FEED_POLL_HZ_MAX, .def = "0" },
	{ "threshold", 0, MP_OPT_CUSTOM, AT(tm.sym_threshold), "X",
	  "max/mean that marks a group ASYMMETRIC",
	  .parse = tv_opt_threshold, .def = "1.25" },
	{ "all", 'a', MP_OPT_FLAG, AT(all), NULL,
	  .help = "list idle ports too (a slow one always shows), and every QP" },
	{ "from", 'F', MP_OPT_STRING, AT(from), "FILE",
	  .help = "show a capture's final state once (ages are to its last event)" },
	{}
};
#undef AT

static const struct mp_opt_cmd top_cmd = {
	.usage = "telemetry top [OPTIONS]",
	.about =
"A live table of every plane of the mplane devices and every switch port\n"
"that carries traffic, refreshed in place: state, bandwidth, queue depth\n"
"(p50, p99 and max of the samples so far), ECN-CE marks and CNPs per\n"
"second.  Bandwidth and rates are over the last complete second.\n"
"\n"
"Below it, the symmetry of each group of like members (the planes of one\n"
"mplane device, the ports of one switch, the rails of one host): max/mean\n"
"and the coefficient of variation of their bandwidth.  A group whose\n"
"max/mean passes --threshold is marked ASYMMETRIC, and its slow members\n"
"(the mean is more than --threshold times theirs) are named.\n"
"\n"
"Below that, each QP that mplane.ko's congestion control (DCQCN) changed\n"
"the rate of, from its RATE_UPDATE events: the rate now and before the\n"
"last update, that update's cause (cut by a CNP, fast recovery, additive\n"
"or hyper increase), the cuts and updates seen, and the time since the\n"
"last one; slowest first, the first 16 unless --all.  The table keeps\n"
"the 1024 QPs updated last and counts those it let go.\n"
"\n"
"The numbers come from the samplers: start them first ('mplanectl link\n"
"set mp0 sample-interval 1000', 'mplanectl telemetry attach',\n"
"'mplanectl telemetry sample --fabric P --interval 1ms').  top reads the\n"
"same rings as 'telemetry record': run one reader of a ring at a time.\n"
"\n"
"With -j, one JSON object per refresh, one per line.\n",
	.opts = top_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry top\n"
"  mplanectl -j telemetry top --count 5 --fabric mpf\n"
"  mplanectl telemetry top --from run.mpcp --all\n",
};

/* The feed's settings, from the command line's. */
static int parse(int argc, char **argv, struct top_args *a)
{
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&top_cmd, argc, argv, a, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	a->feed.poll_hz = a->poll_hz;
	return MP_OPT_RUN;
}


static int top_loop(struct top *t, struct mp_feed *feed,
		    const struct top_args *a)
{
	uint64_t next = mp_mono_ns() + a->interval_ns, shown_n = 0, now;
	int n;

	while (!mp_run_stopping) {
		now = mp_mono_ns();
		n = mp_feed_poll(feed, now < next ?
				 (int)((next - now) / 1000000) + 1 : 0);
		if (n < 0 && n != -EINTR)
			return n;
		now = mp_mono_ns();
		if (now < next)
			continue;
		next += a->interval_ns;
		pthread_mutex_lock(&t->lock);
		mp_tm_release(&t->tm, now);
		mp_tm_refresh(&t->tm);
		show(t, a->interval_ns / 1e9);
		pthread_mutex_unlock(&t->lock);
		if (a->count && ++shown_n >= a->count)
			break;
	}
	return 0;
}

int telemetry_top_main(int argc, char **argv)
{
	struct top_args a = { .interval_ns = 1000000000ULL };
	static struct top t;
	struct mp_feed *feed;
	int err;

	err = parse(argc, argv, &a);
	if (err != MP_OPT_RUN)
		return err;
	t.all = a.all;
	t.tty = isatty(STDOUT_FILENO);
	pthread_mutex_init(&t.lock, NULL);
	if (mp_tm_init(&t.tm, &a.tm)) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	if (a.from) {
		struct mplane_capture_hdr hdr;

		t.from_file = true;
		t.tty = false;
		err = tv_load(a.from, &t.tm, &hdr);
		if (!err)
			show(&t, 0);
		mp_tm_free(&t.tm);
		return err;
	}
	mp_run_stop_on_signals();
	err = mp_feed_open(&feed, &a.feed, to_model, &t);
	if (err) {
		mp_err(err == -ENOENT ?
		       "nothing to show: no event ring under " MPLANE_BPF_PIN_ROOT
		       " (see --help for the samplers to start)" :
		       "opening the sources: %s", strerror(-err));
		mp_tm_free(&t.tm);
		return MP_EXIT_ERR;
	}
	err = top_loop(&t, feed, &a);
	mp_feed_finish(feed);
	mp_tm_free(&t.tm);
	if (err)
		mp_err("reading the feed: %s", strerror(-err));
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
