// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept isolation: a victim job on half the hosts, alone and
 * then beside a background job on the other half.
 *
 *   victim_step_ratio     the victim allreduce's mean completion time
 *                         with the background / alone
 *   victim_cct_p99_ratio  the same for its p99 completion time
 *
 * The victim takes the even hosts and the background the odd ones, so
 * that both span every leaf (hosts are placed on leaves in order) and
 * share the uplinks and spines, where one job's load meets the other's.
 * The background is an alltoall (or with --background incast, every rank
 * into its rank 0) of the run's size over and over, started before the
 * victim and stopped after it; a background that ended on its own makes
 * the figures meaningless, and they are not given.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_out.h"
#include "accept.h"

enum { VICTIM_STEP_RATIO, VICTIM_CCT_P99_RATIO };

static const char *const isolation_figures[] = {
	[VICTIM_STEP_RATIO] = "victim_step_ratio",
	[VICTIM_CCT_P99_RATIO] = "victim_cct_p99_ratio",
	NULL,
};

/* Two jobs that share no host need not differ in port; they do anyway,
 * so that a host given to both by mistake fails at once, not in setup. */
#define VICTIM_PORT		"18600"
#define BACKGROUND_PORT		"18700"

/* "h0,h2,..." (@odd: "h1,h3,..."), of @hosts hosts. */
static void half(char *buf, size_t size, unsigned int hosts, bool odd)
{
	size_t len = 0;
	unsigned int h;

	buf[0] = 0;
	for (h = odd; h < hosts && len < size; h += 2)
		len += snprintf(buf + len, size - len, "%sh%u", len ? "," : "", h);
}

static int background_start(struct accept_run *run, const char *hosts,
			    struct accept_job *job)
{
	const struct accept_settings *s = run->s;
	char size[24];
	const char *args[] = {
		"collective", "run", "--prefix", s->prefix, "--hosts", hosts,
		"--op", s->background ? "incast" : "alltoall", "-e", size,
		"--duration", "3600", "--port", BACKGROUND_PORT, "--no-marks",
		"--transport", s->transport ? "roce" : "tcp", NULL,
	};

	snprintf(size, sizeof(size), "%llu", (unsigned long long)s->size);
	if (accept_start(run, "the background job", args, job))
		return -1;
	/* Its ranks connect and start to load the fabric. */
	sleep(2);
	return 0;
}

static int isolation_measure(struct accept_run *run, struct accept_result *res)
{
	struct json_object *alone, *with = NULL;
	char victim[256], background[256];
	struct accept_job bg = { 0 };
	int err;

	half(victim, sizeof(victim), run->s->hosts, false);
	half(background, sizeof(background), run->s->hosts, true);
	accept_progress(run, "the victim alone");
	alone = accept_collective(run, "allreduce", victim, VICTIM_PORT);
	if (!alone || run->interrupted) {
		json_object_put(alone);
		return -1;
	}
	accept_step_add(res, "victim alone", alone);
	accept_progress(run, "the victim beside the background");
	err = background_start(run, background, &bg);
	if (!err) {
		with = accept_collective(run, "allreduce", victim, VICTIM_PORT);
		err = accept_stop(run, &bg) || !with;
	}
	if (!err) {
		accept_step_add(res, "victim with the background", with);
		res->figure[VICTIM_STEP_RATIO] =
			accept_json_num(with, "sizes", -1, "time_us") /
			accept_json_num(alone, "sizes", -1, "time_us");
		res->figure[VICTIM_CCT_P99_RATIO] =
			accept_json_num(with, "sizes", -1, "p99_us") /
			accept_json_num(alone, "sizes", -1, "p99_us");
	}
	json_object_put(alone);
	json_object_put(with);
	return err ? -1 : 0;
}

const struct accept_class accept_isolation = {
	.cls = MP_EXPECT_ISOLATION,
	.figures = isolation_figures,
	.steps = 4,
	.measure = isolation_measure,
};
