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
"value.  The bars show the counts per power of two.\n"
"\n"
"With FILE, read a capture of 'telemetry record'; without, read the live\n"
"feed (every ring pinned under " MPLANE_BPF_PIN_ROOT ") for --duration.\n",
	.opts = hist_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry hist /tmp/run.mpcp\n"
"  mplanectl telemetry hist --what queue --duration 5 --fabric f1\n"
"  mplanectl -j telemetry hist --what step /tmp/run.mpcp | jq .step.p99\n",
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

static void json_one(struct json_object *top, const char *key,
		     const struct mp_hist *h, double div, const char *unit)
{
	struct json_object *o = tv_hist_json(h, div);

	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(top, key, o);
}

static void print_json(const struct hist_args *a, const struct mp_tm *tm)
{
	struct json_object *top = json_object_new_object(), *arr, *o;
	const struct mp_tm_entity *e;
	unsigned int i;

	if (a->what & W_QUEUE) {
		json_one(top, "queue", &tm->queue, 1, "bytes");
		arr = json_object_new_array();
		for (i = 0; i < tm->nents; i++) {
			e = &tm->ents[i];
			if (!e->queue.count)
				continue;
			o = tv_hist_json(mp_tm_queue(tm, e), 1);
			json_object_object_add(o, "name",
					       json_object_new_string(e->name));
			json_object_array_add(arr, o);
		}
		json_object_object_add(json_object_object_get(top, "queue"),
				       "entities", arr);
	}
	if (a->what & W_GAP)
		json_one(top, "gap", &tm->gaps, 1e3, "us");
	if (a->what & W_STEP)
		json_one(top, "step", &tm->steps, 1e3, "us");
	mp_json_print(top);
}

typedef const char *(*fmt_fn)(double v, char *buf, size_t size);

static void print_line(const char *name, const struct mp_hist *h, fmt_fn fmt)
{
	char b[TV_NQ + 1][24];
	unsigned int i;

	printf("  %-22s %8" PRIu64, name, h->count);
	for (i = 0; i < TV_NQ; i++)
		printf(" %9s", fmt(mp_hist_quantile_ppm(h, tv_q_ppm[i]), b[i],
				   24));
	printf(" %9s\n", fmt(h->max, b[TV_NQ], 24));
}

/* Counts per power of two, the empty ones left out. */
static void print_bars(const struct mp_hist *h, fmt_fn fmt)
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
		printf("    %9s .. %-9s %8" PRIu64 " %.*s\n",
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

	printf("%s\n  %-22s %8s", title, "", "COUNT");
	for (i = 0; i < TV_NQ; i++)
		printf(" %9s", tv_q_name[i]);
	printf(" %9s\n", "max");
}

static void print_text(const struct hist_args *a, const struct mp_tm *tm)
{
	const struct mp_tm_entity *e;
	unsigned int i;

	if (a->what & W_QUEUE) {
		print_head("queue depth");
		print_line("all", &tm->queue, tv_bytes);
		for (i = 0; i < tm->nents; i++) {
			e = &tm->ents[i];
			if (e->queue.count)
				print_line(e->name, mp_tm_queue(tm, e),
					   tv_bytes);
		}
		if (!a->no_bars)
			print_bars(&tm->queue, tv_bytes);
	}
	if (a->what & W_GAP) {
		print_head("delivery gaps");
		print_line("all", &tm->gaps, tv_dur);
		if (!a->no_bars)
			print_bars(&tm->gaps, tv_dur);
	}
	if (a->what & W_STEP) {
		print_head("step time");
		print_line("all", &tm->steps, tv_dur);
		if (!a->no_bars)
			print_bars(&tm->steps, tv_dur);
	}
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
	if (!ret) {
		if (mp_json)
			print_json(&a, &tm);
		else
			print_text(&a, &tm);
	}
	mp_tm_free(&tm);
	return ret;
}
