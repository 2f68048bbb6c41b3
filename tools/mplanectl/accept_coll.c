// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept: the collectives every class runs, through `collective
 * run` of the run's size and iterations, and their figures as a class's
 * steps record them.
 */
#include <stdio.h>
#include <string.h>

#include "mp_out.h"
#include "accept.h"

#define COLL_STALL_S	30ULL

struct json_object *accept_collective(struct accept_run *run, const char *op,
				      const char *hosts, const char *port)
{
	const struct accept_settings *s = run->s;
	char size[24], iters[24], timeout[24], window[24];
	const char *args[32] = {
		"collective", "run", "--prefix", s->prefix, "--op", op,
		"-b", size, "-e", size, "-n", iters, "-w", "1",
		"--transport", s->transport ? "roce" : "tcp",
		"--timeout", timeout,
	};
	struct json_object *out, *sizes, *last, *v;
	unsigned int n = 18;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)s->size);
	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)s->iters);
	/* A rank that moves nothing for this long has failed: well under
	 * the step's own --timeout, so that the step reports which. */
	snprintf(timeout, sizeof(timeout), "%llu",
		 (unsigned long long)(s->timeout_ns / 1000000000ULL < COLL_STALL_S ?
				      s->timeout_ns / 1000000000ULL : COLL_STALL_S));
	if (s->window) {
		snprintf(window, sizeof(window), "%llu",
			 (unsigned long long)s->window);
		args[n++] = "--window";
		args[n++] = window;
	}
	if (hosts) {
		args[n++] = "--hosts";
		args[n++] = hosts;
	}
	if (port) {
		args[n++] = "--port";
		args[n++] = port;
	}
	args[n] = NULL;
	if (accept_exec(run, op, &out, args))
		return NULL;
	if (!json_object_object_get_ex(out, "sizes", &sizes) ||
	    !(last = json_object_array_get_idx(sizes,
				json_object_array_length(sizes) - 1)) ||
	    !json_object_object_get_ex(last, "verified", &v) ||
	    !json_object_get_boolean(v)) {
		mp_err("%s: not every element checked", op);
		json_object_put(out);
		return NULL;
	}
	return out;
}

struct json_object *accept_step_add(struct accept_result *res,
				    const char *name, struct json_object *out)
{
	struct json_object *step = json_object_new_object();
	struct json_object *sizes, *last, *ranks, *times;
	size_t i;

	json_object_object_add(step, "step", json_object_new_string(name));
	json_object_object_add(step, "busbw_bps", json_object_new_double(
		accept_json_num(out, "sizes", -1, "busbw") * 8e9));
	json_object_object_add(step, "time_us", json_object_new_double(
		accept_json_num(out, "sizes", -1, "time_us")));
	json_object_object_add(step, "p50_us", json_object_new_double(
		accept_json_num(out, "sizes", -1, "p50_us")));
	json_object_object_add(step, "p99_us", json_object_new_double(
		accept_json_num(out, "sizes", -1, "p99_us")));
	json_object_object_add(step, "max_us", json_object_new_double(
		accept_json_num(out, "sizes", -1, "max_us")));
	json_object_object_add(step, "p01_busbw_bps", json_object_new_double(
		accept_json_num(out, "sizes", -1, "p01_busbw") * 8e9));
	json_object_object_add(step, "slowest_rank", json_object_new_double(
		accept_json_num(out, "sizes", -1, "slowest_rank")));
	/* Each rank's mean time, for the per-rank symmetry. */
	times = json_object_new_array();
	if (json_object_object_get_ex(out, "sizes", &sizes) &&
	    (last = json_object_array_get_idx(sizes,
				json_object_array_length(sizes) - 1)) &&
	    json_object_object_get_ex(last, "ranks", &ranks))
		for (i = 0; i < json_object_array_length(ranks); i++)
			json_object_array_add(times, json_object_new_double(
				accept_json_num(json_object_array_get_idx(ranks, i),
						"time_us", 0, NULL)));
	json_object_object_add(step, "rank_time_us", times);
	json_object_array_add(res->steps, step);
	return step;
}

struct json_object *accept_busbw_step(struct accept_run *run,
				      struct accept_result *res,
				      const char *op, const char *name,
				      double limit, double *figure)
{
	struct json_object *out = accept_collective(run, op, NULL, NULL), *step;

	if (!out)
		return NULL;
	*figure = accept_json_num(out, "sizes", -1, "busbw") * 8e9 / limit;
	step = accept_step_add(res, name, out);
	json_object_object_add(step, "limit_bps", json_object_new_double(limit));
	json_object_put(out);
	return step;
}
