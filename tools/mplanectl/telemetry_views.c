// SPDX-License-Identifier: GPL-2.0
/* Helpers of the telemetry views: see telemetry_views.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mp_capture.h"
#include "mp_cmd.h"
#include "mp_out.h"
#include "mp_print.h"
#include "telemetry_views.h"
#include "mplane_capture.h"

const unsigned int tv_q_ppm[TV_NQ] = { 500000, 900000, 990000, 999000 };
const char *const tv_q_name[TV_NQ] = { "p50", "p90", "p99", "p999" };

const struct tv_unit tv_unit_us = {
	.div = 1e3,
	.q = { "p50_us", "p90_us", "p99_us", "p999_us" },
	.max = "max_us", .mean = "mean_us",
};

const struct tv_unit tv_unit_bytes = {
	.div = 1,
	.q = { "p50_bytes", "p90_bytes", "p99_bytes", "p999_bytes" },
	.max = "max_bytes", .mean = "mean_bytes",
};

int tv_load(const char *path, struct mp_tm *tm,
	    struct mplane_capture_hdr *hdr)
{
	struct mplane_capture_frame fr;
	struct mp_capture_reader r;
	const void *payload;
	int err;

	err = mp_capture_open(&r, path);
	if (err) {
		mp_err("%s: %s", path, err == -EPROTO ?
		       "not an mplane capture (or of a newer version)" :
		       strerror(-err));
		return MP_EXIT_ERR;
	}
	*hdr = r.hdr;
	while ((err = mp_capture_next(&r, &fr, &payload)) > 0) {
		err = mp_tm_frame(tm, fr.kind, fr.source, payload, fr.len);
		if (err)
			break;
	}
	mp_capture_close(&r);
	mp_tm_finish(tm);
	if (err == -EBADMSG) {
		/* A recorder that was killed leaves a cut frame: what came
		 * before it is still worth showing. */
		mp_err("%s: cut short inside a frame; showing what precedes it",
		       path);
		return MP_EXIT_OK;
	}
	if (err) {
		mp_err("%s: %s", path, strerror(-err));
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

struct json_object *tv_hist_json(const struct mp_hist *h,
				 const struct tv_unit *u)
{
	struct json_object *o = json_object_new_object();
	unsigned int i;

	json_object_object_add(o, "count", json_object_new_uint64(h->count));
	for (i = 0; i < TV_NQ; i++)
		json_object_object_add(o, u->q[i], json_object_new_double(
			mp_hist_quantile_ppm(h, tv_q_ppm[i]) / u->div));
	json_object_object_add(o, u->max,
			       json_object_new_double(h->max / u->div));
	json_object_object_add(o, u->mean, json_object_new_double(
		h->count ? (double)h->sum / h->count / u->div : 0));
	return o;
}

/* @v in JSON's unit (divided by @div), as people read it in text. */
static void hist_value(const char *key, double v, double div, tv_fmt_fn fmt)
{
	char buf[24];

	mp_print_double(MP_PRINT_JSON, key, NULL, v / div);
	if (fmt)
		mp_print_str(MP_PRINT_TEXT, NULL, " %9s", fmt(v, buf, sizeof(buf)));
}

void tv_hist_print(const struct mp_hist *h, const struct tv_unit *u,
		   tv_fmt_fn fmt)
{
	unsigned int i;

	mp_print_u64(fmt ? MP_PRINT_ANY : MP_PRINT_JSON, "count",
		     " %8" PRIu64, h->count);
	for (i = 0; i < TV_NQ; i++)
		hist_value(u->q[i], mp_hist_quantile_ppm(h, tv_q_ppm[i]),
			   u->div, fmt);
	hist_value(u->max, h->max, u->div, fmt);
	mp_print_double(MP_PRINT_JSON, u->mean, NULL,
			h->count ? (double)h->sum / h->count / u->div : 0);
}

static const char *scaled(double v, const char *const *units,
			  unsigned int n, double step, char *buf, size_t size)
{
	unsigned int u = 0;

	while (u + 1 < n && v >= step) {
		v /= step;
		u++;
	}
	snprintf(buf, size, v < 10 && u ? "%.2f %s" : v < 100 && u ?
		 "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

const char *tv_bps(double bps, char *buf, size_t size)
{
	static const char *const u[] = { "bit/s", "kbit/s", "Mbit/s",
					 "Gbit/s", "Tbit/s" };

	if (bps < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	return scaled(bps, u, 5, 1000, buf, size);
}

const char *tv_bytes(double bytes, char *buf, size_t size)
{
	static const char *const u[] = { "B", "kB", "MB", "GB", "TB" };

	return scaled(bytes, u, 5, 1000, buf, size);
}

const char *tv_dur(double ns, char *buf, size_t size)
{
	static const char *const u[] = { "ns", "us", "ms", "s" };

	return scaled(ns, u, 4, 1000, buf, size);
}

void tv_print_bps(const char *key, const char *fmt, double bps)
{
	char buf[32];

	if (key && bps < 0)
		mp_print_null(MP_PRINT_JSON, key, NULL);
	else if (key)
		mp_print_double(MP_PRINT_JSON, key, NULL, bps);
	if (fmt)
		mp_print_str(MP_PRINT_TEXT, NULL, fmt,
			     tv_bps(bps, buf, sizeof(buf)));
}

int tv_opt_threshold(const char *opt, const char *arg, void *field)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(arg, &end);
	/* !(x > 1) rather than x <= 1: "nan" is no ratio either. */
	if (errno || end == arg || *end || !(x > 1) || x > 100)
		return mp_usage_err("bad %s '%s': want a ratio above 1, such as 1.25",
				    opt, arg);
	*(double *)field = x;
	return MP_EXIT_OK;
}
