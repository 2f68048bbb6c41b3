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

/* One collective on every host: its busbw over @limit as the figure. */
static int collective(struct accept_run *run, struct accept_result *res,
		      const char *op, double limit, double *figure)
{
	accept_progress(run, op);
	return accept_busbw_step(run, res, op, op, limit, figure) ? 0 : -1;
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
	.steps = 5,
	.measure = baseline_measure,
};
