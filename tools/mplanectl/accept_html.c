// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept --html: the report as one self-contained HTML file, for
 * a person in a browser: inline SVG and CSS, no script and no network.
 *
 *   the verdict table, PASS, FAIL and SKIP coloured, with each line's why;
 *   what each policy builds: the switches' program, the hosts, mp0's
 *   policy and congestion control;
 *   each figure as bars, one a policy, with the expectation's bound drawn;
 *   per-rank symmetry: each step's ranks' mean times, the slowest marked,
 *   with its lag over the median rank;
 *   the completion times (p50, p99, max) of every step, policy by policy.
 *
 * Every number in it is one the run measured; the elements carry it in
 * data- attributes as well, so that a test reads the page's DOM.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_out.h"
#include "accept.h"
#include "html.h"

#define BAR_W		64
#define CHART_H		180

static void head(FILE *f, const struct accept_report *rep)
{
	const struct accept_settings *s = rep->s;
	const char *cls = mp_expect_class_name(rep->cls->cls);
	char when[64];
	time_t now = time(NULL);

	char title[64];

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	snprintf(title, sizeof(title), "mplane accept %s", cls);
	html_head(f, title);
	fprintf(f, "<h1>Fabric Symmetry Dashboard: accept %s</h1>\n", cls);
	fprintf(f, "<p id=\"settings\">%llu hosts, %llu plane(s) of %llu leaves and %llu spines, links at ",
		(unsigned long long)s->hosts, (unsigned long long)s->planes,
		(unsigned long long)s->leaves, (unsigned long long)s->spines);
	html_esc(f, s->rate.text);
	fprintf(f, "; collectives of %llu bytes, %llu iterations, over %s. Expectations: ",
		(unsigned long long)s->size, (unsigned long long)s->iters,
		s->transport ? "roce" : "tcp");
	html_esc(f, s->expect);
	fprintf(f, ". Written %s%s.</p>\n", when,
		rep->interrupted ? "; <strong>the run was interrupted</strong>: what follows is what was measured" : "");
}

static void verdicts(FILE *f, const struct accept_report *rep)
{
	const struct accept_verdict *v;
	char test[64];
	unsigned int i;

	fputs("<h2>Verdict</h2>\n<table id=\"verdicts\"><tr><th>verdict</th><th>policy</th>"
	      "<th>figure</th><th>measured</th><th>expected</th><th>line</th><th>why</th></tr>\n", f);
	for (i = 0; i < rep->nverdicts; i++) {
		v = &rep->verdicts[i];
		mp_expect_test_str(v->e, test, sizeof(test));
		fprintf(f, "<tr class=\"%s\" data-policy=\"%s\" data-figure=\"%s\"><td class=\"v\">%s</td><td>%s</td><td>%s</td>",
			v->verdict, mp_expect_policy_name(v->e->policy),
			v->e->figure, v->verdict,
			mp_expect_policy_name(v->e->policy), v->e->figure);
		if (isnan(v->measured))
			fputs("<td class=\"n\">-</td>", f);
		else
			fprintf(f, "<td class=\"n\">%.3f</td>", v->measured);
		fputs("<td>", f);
		html_esc(f, test);
		fprintf(f, "</td><td class=\"n\">%u</td><td>", v->e->line);
		html_esc(f, v->why);
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>\n<p id=\"tally\">%u passed, %u failed, %u skipped</p>\n",
		rep->tally.passed, rep->tally.failed, rep->tally.skipped);
}

/* A cell of a plan's setting: "-" where the module keeps its own. */
static void plan_cell(FILE *f, const char *val)
{
	fputs("<td>", f);
	html_esc(f, val ? val : "-");
	fputs("</td>", f);
}

/* What each policy builds, as its JSON's "builds" says it. */
static void policies(FILE *f, const struct accept_report *rep)
{
	struct accept_plan plan;
	const char *name;
	unsigned int i;

	fputs("<h2>Policies</h2>\n<table id=\"policies\"><tr><th>policy</th><th>switches</th>"
	      "<th>hosts</th><th>mp0 policy</th><th>mp0 cc</th><th>mp0 flowlet gap</th></tr>\n", f);
	for (i = 0; i < rep->n; i++) {
		accept_policy_plan(rep->s, rep->res[i].policy, &plan);
		name = mp_expect_policy_name(rep->res[i].policy);
		fprintf(f, "<tr data-policy=\"%s\" data-mp0-cc=\"%s\"><td>%s</td>",
			name, plan.mp0_cc ? plan.mp0_cc : "", name);
		plan_cell(f, plan.switches);
		plan_cell(f, plan.hosts);
		plan_cell(f, plan.mp0_policy);
		plan_cell(f, plan.mp0_cc);
		if (plan.mp0_flowlet_gap_us)
			fprintf(f, "<td class=\"n\">%u us</td>", plan.mp0_flowlet_gap_us);
		else
			plan_cell(f, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The bound of the first expectation on @figure, or NaN. */
static double bound_of(const struct accept_report *rep, const char *figure)
{
	unsigned int i;

	for (i = 0; i < rep->nverdicts; i++)
		if (!strcmp(rep->verdicts[i].e->figure, figure))
			return rep->verdicts[i].e->value;
	return NAN;
}

/* One figure, a bar a policy, its expectation's bound as a dashed line. */
static void figure_chart(FILE *f, const struct accept_report *rep,
			 unsigned int fi)
{
	const char *name = rep->cls->figures[fi];
	double top = 1, bound = bound_of(rep, name), v, h;
	unsigned int i, w = 40 + rep->n * BAR_W;
	char val[32];

	for (i = 0; i < rep->n; i++)
		if (rep->res[i].ran && rep->res[i].figure[fi] > top)
			top = rep->res[i].figure[fi];
	if (bound > top)
		top = bound;
	top *= 1.1;
	fprintf(f, "<figure><svg role=\"img\" aria-label=\"%s\" width=\"%u\" height=\"%u\">\n",
		name, w, CHART_H + 40);
	for (i = 0; i < rep->n; i++) {
		v = rep->res[i].ran ? rep->res[i].figure[fi] : NAN;
		h = isnan(v) ? 0 : v / top * CHART_H;
		snprintf(val, sizeof(val), isnan(v) ? "" : "%.3f", v);
		fprintf(f, "<rect class=\"%s\" data-policy=\"%s\" data-figure=\"%s\" data-value=\"%s\" x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%.1f\"/>",
			isnan(v) ? "none" : "bar",
			mp_expect_policy_name(rep->res[i].policy), name,
			val, 40 + i * BAR_W, CHART_H - h + 10,
			BAR_W - 12, isnan(v) ? 1.0 : h);
		/* The value, and a rect's data-value, with the same digits. */
		if (!isnan(v))
			fprintf(f, "<text x=\"%u\" y=\"%.1f\">%.3f</text>",
				40 + i * BAR_W, CHART_H - h + 6, v);
		else
			fprintf(f, "<text x=\"%u\" y=\"%u\">%s</text>", 40 + i * BAR_W,
				CHART_H + 6, rep->res[i].ran ? "none" : "not run");
		fprintf(f, "<text x=\"%u\" y=\"%u\">%s</text>\n", 40 + i * BAR_W,
			CHART_H + 26, mp_expect_policy_name(rep->res[i].policy));
	}
	if (!isnan(bound))
		fprintf(f, "<line class=\"bound\" x1=\"30\" x2=\"%u\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"0\" y=\"%.1f\">%.2f</text>\n", w,
			CHART_H - bound / top * CHART_H + 10,
			CHART_H - bound / top * CHART_H + 10,
			CHART_H - bound / top * CHART_H + 14, bound);
	fprintf(f, "</svg><figcaption>%s</figcaption></figure>\n", name);
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : NAN;
}

/* Each rank's mean time in one step, the slowest red, with its lag. */
static void rank_chart(FILE *f, const char *policy, struct json_object *step)
{
	struct json_object *times, *name;
	double t[256], sorted[256], top = 0, median;
	unsigned int i, n, slow = 0;

	if (!json_object_object_get_ex(step, "rank_time_us", &times) ||
	    !json_object_object_get_ex(step, "step", &name))
		return;
	n = json_object_array_length(times);
	if (!n || n > 256)
		return;
	for (i = 0; i < n; i++) {
		t[i] = sorted[i] = json_object_get_double(json_object_array_get_idx(times, i));
		if (t[i] > t[slow])
			slow = i;
	}
	for (i = 1; i < n; i++) {	/* insertion sort: n is small */
		double x = sorted[i];
		unsigned int j = i;

		for (; j && sorted[j - 1] > x; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = x;
	}
	median = sorted[n / 2];
	top = t[slow] * 1.1;
	fprintf(f, "<figure><svg role=\"img\" width=\"%u\" height=\"%u\">\n", 20 + n * 22, 120);
	for (i = 0; i < n; i++)
		fprintf(f, "<rect class=\"%s\" data-rank=\"%u\" data-value=\"%.1f\" x=\"%u\" y=\"%.1f\" width=\"16\" height=\"%.1f\"/>"
			"<text x=\"%u\" y=\"115\">%u</text>\n",
			i == slow ? "slow" : "bar", i, t[i], 10 + i * 22,
			100 - t[i] / top * 90, t[i] / top * 90, 12 + i * 22, i);
	fprintf(f, "</svg><figcaption class=\"lag\" data-policy=\"%s\" data-step=\"", policy);
	html_esc(f, json_object_get_string(name));
	fprintf(f, "\" data-lag=\"%.3f\">%s, ", t[slow] / median, policy);
	html_esc(f, json_object_get_string(name));
	fprintf(f, ": rank %u slowest, %.3f &times; the median rank</figcaption></figure>\n",
		slow, t[slow] / median);
}

/* A cell of a number, "-" when the step has none. */
static void cell(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"n\">", f);
	if (isnan(v))
		fputc('-', f);
	else
		fprintf(f, fmt, v);
	fputs("</td>", f);
}

/* Every step's times and rates; resiliency's are delivery gaps. */
static void steps_table(FILE *f, const struct accept_report *rep)
{
	struct json_object *step, *name;
	unsigned int i;
	size_t j;

	fputs("<h2>Completion times and gaps</h2>\n<table id=\"cct\"><tr><th>policy</th><th>step</th>"
	      "<th>p50 (ms)</th><th>p99 (ms)</th><th>max (ms)</th><th>busbw (Gbit/s)</th>"
	      "<th>p01 busbw (Gbit/s)</th><th>longest gap (ms)</th><th>lost</th></tr>\n", f);
	for (i = 0; i < rep->n; i++) {
		for (j = 0; rep->res[i].steps && j < json_object_array_length(rep->res[i].steps); j++) {
			step = json_object_array_get_idx(rep->res[i].steps, j);
			json_object_object_get_ex(step, "step", &name);
			fprintf(f, "<tr data-policy=\"%s\"><td>%s</td><td>",
				mp_expect_policy_name(rep->res[i].policy),
				mp_expect_policy_name(rep->res[i].policy));
			html_esc(f, json_object_get_string(name));
			fputs("</td>", f);
			cell(f, num(step, "p50_us") / 1e3, "%.1f");
			cell(f, num(step, "p99_us") / 1e3, "%.1f");
			cell(f, num(step, "max_us") / 1e3, "%.1f");
			cell(f, num(step, "busbw_bps") / 1e9, "%.3f");
			cell(f, num(step, "p01_busbw_bps") / 1e9, "%.3f");
			/* A flow's: the stream's hides a flow gone dark. */
			cell(f, num(step, "max_flow_gap_us") / 1e3, "%.3f");
			cell(f, num(step, "lost"), "%.0f");
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

int accept_html_write(const char *path, const struct accept_report *rep)
{
	unsigned int i;
	size_t j;
	FILE *f = fopen(path, "w");

	if (!f) {
		mp_err("--html %s: %s", path, strerror(errno));
		return -1;
	}
	head(f, rep);
	verdicts(f, rep);
	policies(f, rep);
	fputs("<h2>Figures, policy by policy</h2>\n<div id=\"figures\">\n", f);
	for (i = 0; rep->cls->figures[i]; i++)
		if (accept_figure_shown(rep->cls, rep->s, i))
			figure_chart(f, rep, i);
	fputs("</div>\n<h2>Per-rank symmetry</h2>\n<div id=\"ranks\">\n", f);
	for (i = 0; i < rep->n; i++)
		for (j = 0; rep->res[i].steps && j < json_object_array_length(rep->res[i].steps); j++)
			rank_chart(f, mp_expect_policy_name(rep->res[i].policy),
				   json_object_array_get_idx(rep->res[i].steps, j));
	fputs("</div>\n", f);
	steps_table(f, rep);
	for (i = 0; i < rep->n; i++) {
		char heading[64];

		if (!rep->res[i].capture[0])
			continue;
		snprintf(heading, sizeof(heading), "Telemetry: %s",
			 mp_expect_policy_name(rep->res[i].policy));
		telemetry_html_sections(f, rep->res[i].capture, heading);
	}
	html_tail(f);
	if (fclose(f)) {
		mp_err("--html %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
