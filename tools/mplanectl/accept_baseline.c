// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept baseline: the fabric at full load against its own
 * physical limits, with nothing else running.
 *
 *   permutation_goodput  a permutation's (rank r to r + n/2) goodput per
 *                        rank / what the fabric can carry per rank across
 *                        its bisection
 *   allreduce_busbw      a ring allreduce's busbw (nccl-tests') / the host
 *                        links' rate, every plane's
 *   alltoall_busbw       alltoall's busbw / the bisection's share per rank
 *
 * The limits come from the sizes the fabric was built with, never from a
 * measurement: every plane's host link at --rate, and a leaf's S uplinks
 * at --rate shared by its hosts (rail-optimised: H/L hosts a leaf).  A
 * collective whose every element does not check gives no figure.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp_out.h"
#include "accept.h"

enum { PERMUTATION_GOODPUT, ALLREDUCE_BUSBW, ALLTOALL_BUSBW };

static const char *const baseline_figures[] = {
	[PERMUTATION_GOODPUT] = "permutation_goodput",
	[ALLREDUCE_BUSBW] = "allreduce_busbw",
	[ALLTOALL_BUSBW] = "alltoall_busbw",
	NULL,
};

static const char *const baseline_help[] = {
	"goodput of a permutation per rank / the bisection's share per rank",
	"allreduce busbw (as nccl-tests) / the host links' rate, all planes",
	"alltoall busbw / the bisection's share per rank",
	NULL,
};

/* Bits a second a host can send on all its planes. */
static double host_limit(const struct accept_settings *s)
{
	return (double)s->planes * s->rate.bps;
}

/* Bits a second a rank can send to the other half of the fabric: its
 * host links, or its share of its leaf's uplinks if that is less. */
static double bisection_limit(const struct accept_settings *s)
{
	double share = (double)s->spines * s->leaves * s->rate.bps / s->hosts;

	if (s->leaves < 2 || share > s->rate.bps)
		share = s->rate.bps;
	return s->planes * share;
}

/* One collective of the run's size: its busbw over @limit as the figure,
 * and its figures in the policy's steps. */
static int collective(struct accept_run *run, struct accept_result *res,
		      const char *op, double limit, double *figure)
{
	const struct accept_settings *s = run->s;
	char size[24], iters[24], timeout[24];
	const char *args[] = {
		"collective", "run", "--prefix", s->prefix, "--op", op,
		"-b", size, "-e", size, "-n", iters, "-w", "1",
		"--transport", s->transport ? "roce" : "tcp",
		"--timeout", timeout, NULL,
	};
	struct json_object *out, *step, *sizes, *last, *v;
	double busbw;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)s->size);
	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)s->iters);
	snprintf(timeout, sizeof(timeout), "%llu",
		 (unsigned long long)(s->timeout_ns / 1000000000ULL));
	accept_progress(run, op);
	if (accept_exec(run, op, &out, args))
		return -1;
	busbw = accept_json_num(out, "sizes", -1, "busbw") * 8e9;
	json_object_object_get_ex(out, "sizes", &sizes);
	last = json_object_array_get_idx(sizes, json_object_array_length(sizes) - 1);
	if (!last || !json_object_object_get_ex(last, "verified", &v) ||
	    !json_object_get_boolean(v)) {
		mp_err("%s: not every element checked", op);
		json_object_put(out);
		return -1;
	}
	*figure = busbw / limit;
	step = json_object_new_object();
	json_object_object_add(step, "step", json_object_new_string(op));
	json_object_object_add(step, "busbw_bps", json_object_new_double(busbw));
	json_object_object_add(step, "limit_bps", json_object_new_double(limit));
	json_object_object_add(step, "p99_us", json_object_new_double(
		accept_json_num(out, "sizes", -1, "p99_us")));
	json_object_object_add(step, "p01_busbw_bps", json_object_new_double(
		accept_json_num(out, "sizes", -1, "p01_busbw") * 8e9));
	json_object_object_add(step, "slowest_rank", json_object_new_double(
		accept_json_num(out, "sizes", -1, "slowest_rank")));
	json_object_array_add(res->steps, step);
	json_object_put(out);
	return 0;
}

static int baseline_measure(struct accept_run *run, struct accept_result *res)
{
	const struct accept_settings *s = run->s;
	int err;

	/* A step that fails leaves its figure unmeasured, not the others. */
	err = collective(run, res, "permutation", bisection_limit(s),
			 &res->figure[PERMUTATION_GOODPUT]);
	if (!run->interrupted)
		err |= collective(run, res, "allreduce", host_limit(s),
				  &res->figure[ALLREDUCE_BUSBW]);
	if (!run->interrupted)
		err |= collective(run, res, "alltoall", bisection_limit(s),
				  &res->figure[ALLTOALL_BUSBW]);
	return err ? -1 : 0;
}

const struct accept_class accept_baseline = {
	.cls = MP_EXPECT_BASELINE,
	.figures = baseline_figures,
	.figure_help = baseline_help,
	.steps = 5,
	.measure = baseline_measure,
};
