// SPDX-License-Identifier: GPL-2.0
/*
 * A capture as sections of an HTML page: the Fabric Symmetry Dashboard's
 * telemetry half, for 'telemetry report --html' and each policy of
 * 'accept --html'.
 *
 * The model (mp_tm) gives the groups' symmetry, the planes' and ports'
 * figures, the anomalies and the step times; the timeline needs events
 * in time, which the model does not keep, so the capture is read a
 * second time and every event lands in a bin: the deepest queue any
 * sample saw, ECN marks, CNPs and step ends per bin, and the faults and
 * state changes as marks of their own.  The timeline is paged, a fixed
 * number of bins to a page, every page drawn.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_capture.h"
#include "mp_event.h"
#include "mp_fault.h"
#include "mp_out.h"
#include "mp_tm.h"
#include "html.h"
#include "telemetry_views.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_mark_proto.h"

#define BINS_MAX	1000		/* over the whole capture */
#define PAGE_BINS	250		/* a page of the timeline */
#define BIN_MIN_NS	100000ULL	/* 100 us: no finer than the samplers */
#define ROW_H		46
#define PX_PER_BIN	3

struct mark {
	uint64_t ts;
	char what[112];
};

struct timeline {
	uint64_t t0, bin_ns;
	unsigned int nbins;
	uint64_t qmax[BINS_MAX];
	uint32_t ecn[BINS_MAX], cnp[BINS_MAX], steps[BINS_MAX];
	struct mark *mark;
	unsigned int nmarks, cap;
};

static void add_mark(struct timeline *t, uint64_t ts, const char *what)
{
	struct mark *more;

	if (t->nmarks == t->cap) {
		more = realloc(t->mark, (t->cap * 2 + 16) * sizeof(*more));
		if (!more)
			return;
		t->mark = more;
		t->cap = t->cap * 2 + 16;
	}
	t->mark[t->nmarks].ts = ts;
	snprintf(t->mark[t->nmarks++].what, sizeof(t->mark[0].what), "%s", what);
}

/* One event into its bin, or a mark of its own. */
static void bin_event(struct timeline *t, const struct mp_tm *tm,
		      unsigned int source, const struct mplane_event *ev)
{
	uint64_t ts = ev->hdr.ts_ns;
	unsigned int b;
	char what[112], where[80];
	int ent;

	if (ts < t->t0)
		return;
	b = (ts - t->t0) / t->bin_ns;
	if (b >= t->nbins)
		b = t->nbins - 1;
	switch (ev->hdr.type) {
	case MPLANE_EV_QUEUE_SAMPLE:
	case MPLANE_EV_PLANE_SAMPLE:
	case MPLANE_EV_PORT_SAMPLE:
		if (ev->val[0] > t->qmax[b])
			t->qmax[b] = ev->val[0];
		break;
	case MPLANE_EV_ECN_MARK:
		t->ecn[b]++;
		break;
	case MPLANE_EV_CNP:
		t->cnp[b]++;
		break;
	case MPLANE_EV_STEP_MARK:
		t->steps[b]++;
		break;
	case MPLANE_EV_COLLECTIVE:
		/* A rank's iteration, as it ends. */
		t->steps[b] += ev->val[2] == MPLANE_MARK_STEP_END;
		break;
	case MPLANE_EV_FAULT:
		mp_fault_where(ev, where, sizeof(where));
		snprintf(what, sizeof(what), "fault %s %s", where,
			 mp_fault_action_name(ev->val[0]));
		add_mark(t, ts, what);
		break;
	case MPLANE_EV_PLANE_STATE:
	case MPLANE_EV_PORT_STATE:
		ent = mp_tm_lookup(tm, source, &ev->hdr);
		snprintf(what, sizeof(what), "%s %s %" PRIu64,
			 ent >= 0 ? tm->ents[ent].name : "?",
			 mp_event_type_name(ev->hdr.type), (uint64_t)ev->val[0]);
		add_mark(t, ts, what);
		break;
	default:
		break;
	}
}

static int read_timeline(const char *path, const struct mp_tm *tm,
			 struct timeline *t)
{
	struct mplane_capture_frame fr;
	struct mp_capture_reader rd;
	struct mplane_event ev;
	const void *payload;
	int err;

	err = mp_capture_open(&rd, path);
	if (err)
		return err;
	while ((err = mp_capture_next(&rd, &fr, &payload)) > 0)
		if (fr.kind == MPLANE_CF_EVENT &&
		    !mp_event_decode(payload, fr.len, &ev))
			bin_event(t, tm, fr.source, &ev);
	mp_capture_close(&rd);
	return err == -EBADMSG ? 0 : err;
}

/* One row of bars on a page: @v of bins @from..@to, scaled to its max. */
static void row(FILE *f, const char *cls, const char *label, unsigned int y,
		const uint64_t *v64, const uint32_t *v32, unsigned int from,
		unsigned int to)
{
	uint64_t top = 0, v;
	unsigned int b;

	for (b = from; b < to; b++) {
		v = v64 ? v64[b] : v32[b];
		if (v > top)
			top = v;
	}
	fprintf(f, "<text x=\"0\" y=\"%u\">%s (max %" PRIu64 ")</text>\n",
		y + 12, label, top);
	fprintf(f, "<line class=\"axis\" x1=\"150\" x2=\"%u\" y1=\"%u\" y2=\"%u\"/>\n",
		150 + (to - from) * PX_PER_BIN, y + ROW_H - 4, y + ROW_H - 4);
	for (b = from; b < to && top; b++) {
		v = v64 ? v64[b] : v32[b];
		if (v)
			fprintf(f, "<rect class=\"%s\" x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%.1f\"/>",
				cls, 150 + (b - from) * PX_PER_BIN,
				y + ROW_H - 4 - (double)v / top * (ROW_H - 8),
				PX_PER_BIN, (double)v / top * (ROW_H - 8));
	}
	fputc('\n', f);
}

static void page(FILE *f, const struct timeline *t, unsigned int p)
{
	unsigned int from = p * PAGE_BINS, to = from + PAGE_BINS, i, x;
	uint64_t start, end;

	if (to > t->nbins)
		to = t->nbins;
	start = t->t0 + from * t->bin_ns;
	end = t->t0 + to * t->bin_ns;
	fprintf(f, "<figure class=\"page\" data-page=\"%u\"><svg role=\"img\" width=\"%u\" height=\"%u\">\n",
		p, 160 + PAGE_BINS * PX_PER_BIN, 4 * ROW_H + 20);
	row(f, "q", "queue, bytes", 0, t->qmax, NULL, from, to);
	row(f, "ecn", "ECN marks", ROW_H, NULL, t->ecn, from, to);
	row(f, "cnp", "CNPs", 2 * ROW_H, NULL, t->cnp, from, to);
	row(f, "step", "steps ended", 3 * ROW_H, NULL, t->steps, from, to);
	for (i = 0; i < t->nmarks; i++) {
		if (t->mark[i].ts < start || t->mark[i].ts >= end)
			continue;
		x = 150 + (t->mark[i].ts - start) / t->bin_ns * PX_PER_BIN;
		fprintf(f, "<line class=\"mark\" x1=\"%u\" x2=\"%u\" y1=\"0\" y2=\"%u\"><title>", x,
			x, 4 * ROW_H);
		html_esc(f, t->mark[i].what);
		fputs("</title></line>\n", f);
	}
	fprintf(f, "<text x=\"150\" y=\"%u\">%.3f s</text><text x=\"%u\" y=\"%u\">%.3f s</text>\n",
		4 * ROW_H + 14, (start - t->t0) / 1e9,
		100 + (to - from) * PX_PER_BIN, 4 * ROW_H + 14, (end - t->t0) / 1e9);
	fprintf(f, "</svg><figcaption>%.3f s to %.3f s, a bin every %.1f ms</figcaption></figure>\n",
		(start - t->t0) / 1e9, (end - t->t0) / 1e9, t->bin_ns / 1e6);
}

static void timeline_section(FILE *f, const struct timeline *t)
{
	unsigned int p, i;

	fputs("<h3>Timeline</h3>\n<div class=\"timeline\">\n", f);
	for (p = 0; p * PAGE_BINS < t->nbins; p++)
		page(f, t, p);
	fputs("</div>\n<table class=\"marks\"><tr><th>t (s)</th><th>what</th></tr>\n", f);
	for (i = 0; i < t->nmarks; i++) {
		fprintf(f, "<tr><td class=\"n\">%.6f</td><td>",
			(t->mark[i].ts - t->t0) / 1e9);
		html_esc(f, t->mark[i].what);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Each group's members as bars of their mean bandwidth, with its index. */
static void symmetry_section(FILE *f, const struct mp_tm *tm)
{
	struct mp_tm_symmetry sym;
	unsigned int g, i, n;
	double bw;
	char buf[32];

	fputs("<h3>Symmetry</h3>\n<div class=\"symmetry\">\n", f);
	for (g = 0; g < tm->ngroups; g++) {
		mp_tm_symmetry(tm, g, MP_TM_BW_MEAN, &sym);
		if (sym.members < 2)
			continue;
		fprintf(f, "<figure class=\"group\" data-group=\"");
		html_esc(f, tm->groups[g].name);
		fprintf(f, "\" data-max-mean=\"%.3f\" data-cv=\"%.3f\"><svg role=\"img\" width=\"%u\" height=\"130\">\n",
			sym.max_mean, sym.cv, 20 + sym.members * 40);
		for (i = n = 0; i < tm->nents; i++) {
			if (tm->ents[i].group != (int)g)
				continue;
			bw = mp_tm_bw(&tm->ents[i], MP_TM_BW_MEAN);
			fprintf(f, "<rect class=\"%s\" x=\"%u\" y=\"%.1f\" width=\"28\" height=\"%.1f\"><title>",
				mp_tm_slow(tm, &sym, &tm->ents[i], MP_TM_BW_MEAN) ? "slow" : "bar",
				10 + n * 40, 100 - (sym.max_bps > 0 ? bw / sym.max_bps * 90 : 0),
				sym.max_bps > 0 ? bw / sym.max_bps * 90 : 0);
			html_esc(f, tm->ents[i].name);
			fprintf(f, ": %s</title></rect><text x=\"%u\" y=\"115\">%u</text>\n",
				tv_bps(bw, buf, sizeof(buf)), 10 + n * 40, n);
			n++;
		}
		fputs("</svg><figcaption>", f);
		html_esc(f, tm->groups[g].name);
		fprintf(f, ": max/mean %.3f, CV %.3f%s</figcaption></figure>\n",
			sym.max_mean, sym.cv,
			sym.flagged ? " <span class=\"flag\">uneven</span>" : "");
	}
	fputs("</div>\n", f);
}

static double hist_ms(struct json_object *h, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(h, key, &v) ?
	       json_object_get_double(v) / 1e3 : NAN;
}

/* Step times: marks of a process, and collective iterations per rank. */
static void steps_section(FILE *f, const struct mp_tm *tm)
{
	struct json_object *h = tv_hist_json(&tm->steps, &tv_unit_us);

	fprintf(f, "<h3>Step times</h3>\n<p class=\"steps\" data-count=\"%" PRIu64 "\">%" PRIu64
		" steps: p50 %.3f ms, p99 %.3f ms, p999 %.3f ms, max %.3f ms</p>\n",
		(uint64_t)tm->steps.count, (uint64_t)tm->steps.count,
		hist_ms(h, "p50_us"), hist_ms(h, "p99_us"), hist_ms(h, "p999_us"),
		hist_ms(h, "max_us"));
	json_object_put(h);
}

int telemetry_html_sections(FILE *f, const char *path, const char *heading)
{
	struct mplane_capture_hdr hdr;
	struct timeline *t;
	struct mp_tm tm;
	uint64_t span;
	int err;

	if (mp_tm_init(&tm, NULL))
		return -1;
	if (tv_load(path, &tm, &hdr)) {
		mp_tm_free(&tm);
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		mp_tm_free(&tm);
		return -1;
	}
	/* From the recording's start: a ring may still hold older events
	 * (the marks' ring is the machine's), which are not this run's. */
	t->t0 = hdr.start_mono_ns ? hdr.start_mono_ns : tm.first_ts;
	span = tm.last_ts > t->t0 ? tm.last_ts - t->t0 + 1 : 1;
	t->bin_ns = span / BINS_MAX + 1 > BIN_MIN_NS ? span / BINS_MAX + 1 : BIN_MIN_NS;
	t->nbins = span / t->bin_ns + 1;
	if (t->nbins > BINS_MAX)
		t->nbins = BINS_MAX;
	err = read_timeline(path, &tm, t);
	if (err)
		mp_err("%s: %s", path, strerror(-err));
	if (heading) {
		fputs("<h2>", f);
		html_esc(f, heading);
		fputs("</h2>\n", f);
	}
	fprintf(f, "<p class=\"capture\" data-events=\"%" PRIu64 "\">", tm.events);
	html_esc(f, path);
	fprintf(f, ": %" PRIu64 " events over %.3f s</p>\n", tm.events, span / 1e9);
	symmetry_section(f, &tm);
	timeline_section(f, t);
	steps_section(f, &tm);
	free(t->mark);
	free(t);
	mp_tm_free(&tm);
	return err ? -1 : 0;
}
