/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the telemetry views (report, hist, export) share: loading a
 * capture into the model and showing its histograms and rates.
 */
#ifndef MPLANECTL_TELEMETRY_VIEWS_H
#define MPLANECTL_TELEMETRY_VIEWS_H

#include <stdio.h>
#include <json-c/json.h>

#include "mp_tm.h"
#include "mplane_capture.h"

/* Feed every frame of the capture @path to @tm, then finish it; @hdr
 * gets the file's header.  MP_EXIT_OK, or MP_EXIT_ERR (reported). */
int tv_load(const char *path, struct mp_tm *tm,
	    struct mplane_capture_hdr *hdr);

/* The percentiles the views show, in parts per million, and their
 * names in text. */
#define TV_NQ	4
extern const unsigned int tv_q_ppm[TV_NQ];	/* p50 p90 p99 p999 */
extern const char *const tv_q_name[TV_NQ];

/*
 * A histogram's unit in JSON: its values are the histogram's divided by
 * @div, and every key but "count" ends in the unit ("p99_us"), as every
 * key that holds a time or a size does.  json_keys.sh checks them.
 */
struct tv_unit {
	double div;
	const char *q[TV_NQ];		/* p50 p90 p99 p999 */
	const char *max, *mean;
};
extern const struct tv_unit tv_unit_us;	/* a time in ns, shown in us */
extern const struct tv_unit tv_unit_bytes;	/* bytes */

/* {count, p50_U, p90_U, p99_U, p999_U, max_U, mean_U} of @h in @u. */
struct json_object *tv_hist_json(const struct mp_hist *h,
				 const struct tv_unit *u);

/* A value formatted for people, into @buf. */
typedef const char *(*tv_fmt_fn)(double v, char *buf, size_t size);

/* tv_hist_json()'s members, through mp_print; text, when @fmt is given,
 * is " COUNT p50 p90 p99 p999 max" in columns of 8 and 9, each value
 * (undivided) through @fmt.  NULL: JSON only. */
void tv_hist_print(const struct mp_hist *h, const struct tv_unit *u,
		   tv_fmt_fn fmt);

/* "12.3 Gbit/s", "-" when negative (not known). */
const char *tv_bps(double bps, char *buf, size_t size);
/* "1.50 MB", "980 B". */
const char *tv_bytes(double bytes, char *buf, size_t size);
/* A duration in ns as "850 ns", "12.5 us", "3.20 ms", "1.50 s". */
const char *tv_dur(double ns, char *buf, size_t size);

/* A rate through mp_print: @key in JSON (NULL: none), a double, or null
 * when negative (not known); text tv_bps() of @bps through @fmt (one %s;
 * NULL: none). */
void tv_print_bps(const char *key, const char *fmt, double bps);

/* --threshold of the views, an MP_OPT_CUSTOM parser: a max/mean ratio
 * above 1 (and at most 100) into the double @field. */
int tv_opt_threshold(const char *opt, const char *arg, void *field);

#endif /* MPLANECTL_TELEMETRY_VIEWS_H */
