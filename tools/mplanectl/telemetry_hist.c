// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry hist [FILE]: log-linear histograms (mp_hist) of
 * queue depth, delivery gaps and step time, from a capture or from the
 * live feed for a while.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_cmd.h"
#include "mp_feed.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "mplanectl.h"
#include "telemetry.h"
#include "telemetry_views.h"
#include "mplane_capture.h"
#include "mplane_maps.h"

enum { W_QUEUE = 1, W_GAP = 2, W_STEP = 4 };

#define BAR_WIDTH	40

struct hist_args {
	const char *path;
	unsigned int what;
	uint64_t duration_ns;
	uint64_t poll_hz;	/* into feed.poll_hz once in range */
	struct mp_feed_opts feed;
	bool no_bars, json;
};

/* --what: a comma-separated list of queue, gap and step. */
static int parse_what(const char *opt, const char *arg, void *field)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int what = 0;
	int ret = MP_EXIT_OK;

	if (!copy) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "queue"))
			what |= W_QUEUE;
		else if (!strcmp(tok, "gap"))
			what |= W_GAP;
		else if (!strcmp(tok, "step"))
			what |= W_STEP;
		else
			ret = mp_usage_err("bad %s '%s': want queue, gap or step, comma-separated",
					   opt, tok);
	}
	free(copy);
	if (!ret && !what)
		ret = mp_usage_err("empty %s", opt);
	if (!ret)
		*(unsigned int *)field = what;
	return ret;
}

#define AT(member)	MP_OPT_AT(struct hist_args, member)
static const struct mp_opt hist_opts[] = {
	{ "what", 'w', MP_OPT_CUSTOM, AT(what), "LIST",
	  "some of queue,gap,step, comma-separated",
	  .parse = parse_what, .def = "queue,gap,step" },
	{ "duration", 'd', MP_OPT_SECONDS, AT(duration_ns), "S",
	  "live: how long to listen, in seconds", .def = "1" },
	{ "fabric", 'f', MP_OPT_STRING, AT(feed.fabric), "NAME",
	  .help = "live: only this fabric's switch rings" },
	{ "poll-hz", 'p', MP_OPT_UINT, AT(poll_hz), "N",
	  "live: poll netdev counters N times a second for delivery gaps, 0 for none",
	  .max = MP_FEED_POLL_HZ_MAX, .def = "0" },
	{ "no-bars", 'B', MP_OPT_FLAG, AT(no_bars), NULL,
	  .help = "leave out the bar charts" },
	{ "json", 'j', MP_OPT_FLAG, AT(json), NULL,
	  .help = "print JSON (as the global -j)" },
	{}
};
#undef AT

static const struct mp_opt_cmd hist_cmd = {
	.usage = "telemetry hist [OPTIONS] [FILE]",
	.about =
"Histograms with count, p50, p90, p99, p99.9 and max of:\n"
"  queue  queue depth in bytes, of every plane and port sample: overall\n"
"         and per plane or port;\n"
"  gap    delivery gaps: the time from one increase of a byte or packet\n"
"         counter (plane and port tx_bytes, polled netdev rx/tx) to the\n"
"         next, while it is active; a stall, such as a failover, is a\n"
"         long gap;\n"
"  step   step time: from one 'mark step' of a process to its next, and\n"
"         from the begin to the end of a 'collective run' iteration.\n"
"The histograms are log-linear: exact below 128, then 64 buckets per\n"
"power of two, so a percentile is at most 1/64 (1.6 %) above the exact\n"
"value.  The bars show the counts per power of two.  In JSON the\n"
"sections are queue, gaps and step_times, as in 'telemetry report'.\n"
"\n"
"With FILE, read a capture of 'telemetry record'; without, read the live\n"
"feed (every ring pinned under " MPLANE_BPF_PIN_ROOT ") for --duration.\n",
	.opts = hist_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry hist /tmp/run.mpcp\n"
"  mplanectl telemetry hist --what queue --duration 5 --fabric f1\n"
"  mplanectl -j telemetry hist --what step /tmp/run.mpcp | jq .step.p99_us\n",
};

/* Live */

static int to_model(void *data, unsigned int kind, unsigned int source,
		    const void *payload, size_t len)
{
	return mp_tm_frame(data, kind, source, payload, len);
}

static int listen_live(struct hist_args *a, struct mp_tm *tm)
{
	struct mp_feed *feed;
	uint64_t end;
	int err;

	err = mp_feed_open(&feed, &a->feed, to_model, tm);
	if (err) {
		mp_err("opening the live feed: %s (is anything recording "
		       "events under " MPLANE_BPF_PIN_ROOT "?)", strerror(-err));
		return MP_EXIT_ERR;
	}
	mp_run_stop_on_signals();
	end = mp_mono_ns() + a->duration_ns;
	while (!mp_run_stopping && mp_mono_ns() < end) {
		err = mp_feed_poll(feed, 100);
		if (err < 0 && err != -EINTR)
			break;
		err = 0;
		mp_tm_release(tm, mp_mono_ns());
	}
	if (err)
		mp_err("reading the live feed: %s", strerror(-err));
	err = mp_feed_finish(feed) ? : err;
	mp_tm_finish(tm);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

/* Output */

/* A row: its name (in JSON too when an entity's), and the values. */
static void print_line(const char *name, bool entity, const struct mp_hist *h,
		       const struct tv_unit *u, tv_fmt_fn fmt)
{
	mp_print_str(entity ? MP_PRINT_ANY : MP_PRINT_TEXT, "name", "  %-22s",
		     name);
	tv_hist_print(h, u, fmt);
	mp_print_text("\n");
}

/* Counts per power of two, the empty ones left out: text only. */
static void print_bars(const struct mp_hist *h, tv_fmt_fn fmt)
{
	uint64_t per[65] = {}, most = 0;
	unsigned int b, k, lo = 65, hi = 0, n;
	char x[24], y[24];

	for (b = 0; b < MP_HIST_BUCKETS; b++) {
		if (!h->buckets[b])
			continue;
		/* 0 alone, then [2^(k-1), 2^k) as k. */
		k = mp_hist_bucket_low(b) ? 64 - __builtin_clzll(
			mp_hist_bucket_low(b)) : 0;
		per[k] += h->buckets[b];
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (k = lo; k <= hi && lo <= 64; k++)
		most = per[k] > most ? per[k] : most;
	for (k = lo; k <= hi && lo <= 64; k++) {
		if (!per[k])
			continue;
		n = most ? (per[k] * BAR_WIDTH + most - 1) / most : 0;
		mp_print_text("    %9s .. %-9s %8" PRIu64 " %.*s\n",
			      fmt(k ? 1ULL << (k - 1) : 0, x, sizeof(x)),
			      fmt(k ? (k < 64 ? (1ULL << k) - 1 :
				       (double)UINT64_MAX) : 0, y, sizeof(y)),
			      per[k], n,
			      "########################################");
	}
}

static void print_head(const char *title)
{
	unsigned int i;

	mp_print_text("%s\n  %-22s %8s", title, "", "COUNT");
	for (i = 0; i < TV_NQ; i++)
		mp_print_text(" %9s", tv_q_name[i]);
	mp_print_text(" %9s\n", "max");
}

/* One histogram's section, @key in JSON and @title in text; queue depth
 * has its entities' rows after the overall one. */
static void print_section(const struct hist_args *a, const struct mp_tm *tm,
			  const char *key, const char *title,
			  const struct mp_hist *h)
{
	tv_fmt_fn fmt = h == &tm->queue ? tv_bytes : tv_dur;
	const struct tv_unit *u = h == &tm->queue ? &tv_unit_bytes :
				  &tv_unit_us;
	const struct mp_tm_entity *e;
	unsigned int i;

	mp_print_open_object(key);
	print_head(title);
	print_line("all", false, h, u, fmt);
	if (h == &tm->queue) {
		mp_print_open_array("entities");
		for (i = 0; i < tm->nents; i++) {
			e = &tm->ents[i];
			if (!e->queue.count)
				continue;
			mp_print_open_object(NULL);
			print_line(e->name, true, mp_tm_queue(tm, e), u, fmt);
			mp_print_close_object();
		}
		mp_print_close_array();
	}
	if (!a->no_bars)
		print_bars(h, fmt);
	mp_print_close_object();
}

static void print_hists(const struct hist_args *a, const struct mp_tm *tm)
{
	mp_print_start();
	if (a->what & W_QUEUE)
		print_section(a, tm, "queue", "queue depth", &tm->queue);
	if (a->what & W_GAP)
		print_section(a, tm, "gaps", "delivery gaps", &tm->gaps);
	if (a->what & W_STEP)
		print_section(a, tm, "step_times", "step time", &tm->steps);
	mp_print_end();
}

static int parse(int argc, char **argv, struct hist_args *a)
{
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&hist_cmd, argc, argv, a, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi + 1 < argc)
		return mp_usage_err("unexpected argument '%s'",
				    argv[res.argi + 1]);
	a->path = res.argi < argc ? argv[res.argi] : NULL;
	a->feed.poll_hz = a->poll_hz;
	if (a->json)
		mp_json = true;
	return MP_OPT_RUN;
}

int telemetry_hist_main(int argc, char **argv)
{
	struct hist_args a = {
		.what = W_QUEUE | W_GAP | W_STEP,
		.duration_ns = 1000000000ULL,
	};
	struct mplane_capture_hdr hdr;
	struct mp_tm tm;
	int ret;

	ret = parse(argc, argv, &a);
	if (ret != MP_OPT_RUN)
		return ret;
	if (mp_tm_init(&tm, NULL)) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	ret = a.path ? tv_load(a.path, &tm, &hdr) : listen_live(&a, &tm);
	if (!ret)
		print_hists(&a, &tm);
	mp_tm_free(&tm);
	return ret;
}
