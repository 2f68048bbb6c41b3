// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept scale: the same allreduce on 4, 8 and 16 ranks (the
 * first N hosts of a 16-host fabric), for how the fabric holds up as a
 * job grows.
 *
 *   rank_lag         at 16 ranks, the slowest rank's mean time / the
 *                    median rank's: one slow path or port shows here
 *   busbw_16_over_4  busbw at 16 ranks / at 4: busbw is comparable
 *                    across rank counts, so a fabric that scales keeps it
 *
 * Each count's time, busbw and slowest rank are among the steps, for the
 * completion time's growth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "accept.h"

enum { RANK_LAG, BUSBW_16_OVER_4 };

static const char *const scale_figures[] = {
	[RANK_LAG] = "rank_lag",
	[BUSBW_16_OVER_4] = "busbw_16_over_4",
	NULL,
};

static const unsigned int scale_ranks[] = { 4, 8, 16 };
#define NCOUNTS	(sizeof(scale_ranks) / sizeof(scale_ranks[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The slowest rank's mean time over the median rank's, of the last size. */
static double rank_lag(struct json_object *out)
{
	struct json_object *sizes, *last, *ranks;
	double t[256];
	size_t n, i;

	if (!json_object_object_get_ex(out, "sizes", &sizes) ||
	    !(last = json_object_array_get_idx(sizes,
				json_object_array_length(sizes) - 1)) ||
	    !json_object_object_get_ex(last, "ranks", &ranks))
		return NAN;
	n = json_object_array_length(ranks);
	if (!n || n > sizeof(t) / sizeof(t[0]))
		return NAN;
	for (i = 0; i < n; i++)
		t[i] = accept_json_num(json_object_array_get_idx(ranks, i),
				       "time_us", 0, NULL);
	qsort(t, n, sizeof(t[0]), cmp_double);
	return t[n - 1] / t[n / 2];
}

static int scale_measure(struct accept_run *run, struct accept_result *res)
{
	double busbw[NCOUNTS] = { NAN, NAN, NAN };
	struct json_object *out, *step;
	char hosts[8], what[32];
	unsigned int i;
	int err = 0;

	for (i = 0; i < NCOUNTS && !run->interrupted; i++) {
		snprintf(hosts, sizeof(hosts), "%u", scale_ranks[i]);
		snprintf(what, sizeof(what), "allreduce on %u ranks", scale_ranks[i]);
		accept_progress(run, what);
		out = accept_collective(run, "allreduce", hosts, NULL);
		if (!out) {
			err = -1;
			continue;
		}
		step = accept_step_add(res, what, out);
		json_object_object_add(step, "rank_count",
				       json_object_new_int(scale_ranks[i]));
		json_object_object_add(step, "rank_lag",
				       json_object_new_double(rank_lag(out)));
		busbw[i] = accept_json_num(out, "sizes", -1, "busbw");
		if (i == NCOUNTS - 1)
			res->figure[RANK_LAG] = rank_lag(out);
		json_object_put(out);
	}
	res->figure[BUSBW_16_OVER_4] = busbw[NCOUNTS - 1] / busbw[0];
	return err;
}

const struct accept_class accept_scale = {
	.cls = MP_EXPECT_SCALE,
	.figures = scale_figures,
	.steps = 2 + NCOUNTS,
	.measure = scale_measure,
	.hosts = 16,
};
