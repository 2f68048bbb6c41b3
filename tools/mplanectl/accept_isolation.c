// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept isolation: a victim job on half the hosts, alone, then
 * beside a background job on the other half, and then beside the same
 * background on a fabric of its own (the control).
 *
 *   victim_step_ratio     the victim allreduce's mean completion time
 *                         with the background / alone
 *   victim_cct_p99_ratio  the same for its p99 completion time
 *   fabric_step_ratio     its mean completion time with the background
 *                         on its fabric / with the background on the
 *                         control's
 *   fabric_cct_p99_ratio  the same for its p99 completion time
 *
 * The control is there because an emulated fabric's hosts share one
 * machine's CPUs: the background slows the victim's processes and the
 * switches' forwarding wherever it runs, which a real cluster's hosts do
 * not suffer.  On the control (a second fabric of the same shape and
 * policy, accept_control_up) the background costs the CPUs the same and
 * shares no link, so the fabric ratios are what the policy's fabric lets
 * the background take from the victim, and the victim ratios that and
 * the CPU's share together.
 *
 * The victim takes the even hosts and the background the odd ones, so
 * that both span every leaf (hosts are placed on leaves in order) and
 * share the uplinks and spines, where one job's load meets the other's.
 * The background is an alltoall (or with --background incast, every rank
 * into its rank 0) of the run's size over and over, started before the
 * victim and stopped after it; a background that ended on its own makes
 * the figures meaningless, and they are not given.
 *
 * With --torch the victim is also a real framework's training loop:
 * tools/torch/launch.sh, torch.distributed over gloo, one rank a victim
 * host, gloo on the rank's mp0 or (without mp0) its plane-0 rail.
 *   torch_step_ratio      its p50 step time beside the background / alone
 *   torch_step_p99_ratio  the same for its p99 (the slowest rank's)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_datadir.h"
#include "mp_out.h"
#include "accept.h"

enum {
	VICTIM_STEP_RATIO, VICTIM_CCT_P99_RATIO,
	FABRIC_STEP_RATIO, FABRIC_CCT_P99_RATIO,
	TORCH_STEP_RATIO, TORCH_STEP_P99_RATIO,
};

static const char *const isolation_figures[] = {
	[VICTIM_STEP_RATIO] = "victim_step_ratio",
	[VICTIM_CCT_P99_RATIO] = "victim_cct_p99_ratio",
	[FABRIC_STEP_RATIO] = "fabric_step_ratio",
	[FABRIC_CCT_P99_RATIO] = "fabric_cct_p99_ratio",
	[TORCH_STEP_RATIO] = "torch_step_ratio",
	[TORCH_STEP_P99_RATIO] = "torch_step_p99_ratio",
	NULL,
};

#ifndef MPLANE_TORCH_LAUNCH
#define MPLANE_TORCH_LAUNCH	"/usr/share/mplane/torch/launch.sh"
#endif

/*
 * Two jobs that share no host need not differ in port.  Over TCP they do
 * anyway, so that a host given to both by mistake fails at once, not in
 * setup.  Over roce both keep RoCEv2's port, 4791: DCQCN in mp0 paces
 * and notifies what goes to it, as an RNIC does all of its RoCE.
 */
#define VICTIM_PORT(s)		((s)->transport ? NULL : "18600")
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

/* The background job on @hosts of the fabric @prefix. */
static int background_start(struct accept_run *run, const char *prefix,
			    const char *hosts, struct accept_job *job)
{
	const struct accept_settings *s = run->s;
	char size[24], window[24];
	const char *args[24] = {
		"collective", "run", "--prefix", prefix, "--hosts", hosts,
		"--op", s->background ? "incast" : "alltoall", "-b", size,
		"-e", size,
		"--duration", "3600", "--no-marks",
		"--transport", s->transport ? "roce" : "tcp",
	};
	unsigned int n = 17;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)s->size);
	snprintf(window, sizeof(window), "%llu", (unsigned long long)s->window);
	if (!s->transport) {
		args[n++] = "--port";
		args[n++] = BACKGROUND_PORT;
	} else if (s->window) {
		args[n++] = "--window";
		args[n++] = window;
	}
	if (accept_start(run, "the background job", args, job))
		return -1;
	/* Its ranks connect and start to load the fabric. */
	sleep(2);
	return 0;
}

/* The PyTorch loop on the victim's hosts: launch.sh's JSON, or NULL. */
static struct json_object *torch_victim(struct accept_run *run,
					struct accept_result *res,
					const char *hosts)
{
	char timeout[24];
	const char *args[] = {
		mp_data_file("torch/launch.sh", MPLANE_TORCH_LAUNCH), "--prefix", run->s->prefix, "--hosts", hosts,
		"--addr", accept_policy_mp0(res->policy) ? "mp0" : "rail",
		"--port", "29600", "--timeout", timeout, "--",
		"--floats", "256K", "--depth", "2", "--steps", "10",
		"--warmup", "2", "--timeout", "60", NULL,
	};
	struct json_object *out;

	snprintf(timeout, sizeof(timeout), "%llu",
		 (unsigned long long)(run->s->timeout_ns / 1000000000ULL));
	if (accept_exec(run, "the PyTorch loop", &out, args))
		return NULL;
	return out;
}

/* Its p50 and p99 step time (the slowest rank's), as a step. */
static void torch_step(struct accept_result *res, const char *name,
		       struct json_object *out, double *p50, double *p99)
{
	struct json_object *step = json_object_new_object(), *job, *us;

	*p50 = *p99 = NAN;
	if (json_object_object_get_ex(out, "job", &job) &&
	    json_object_object_get_ex(job, "step_times", &us)) {
		*p50 = accept_json_num(us, "p50_us", 0, NULL);
		*p99 = accept_json_num(us, "p99_us", 0, NULL);
	}
	json_object_object_add(step, "step", json_object_new_string(name));
	json_object_object_add(step, "p50_us", json_object_new_double(*p50));
	json_object_object_add(step, "p99_us", json_object_new_double(*p99));
	json_object_array_add(res->steps, step);
}

/* The PyTorch loop alone and then beside the background. */
static int torch_measure(struct accept_run *run, struct accept_result *res,
			 const char *victim, const char *background)
{
	struct json_object *alone, *with = NULL;
	double a50, a99, w50, w99;
	struct accept_job bg = { 0 };
	int err;

	accept_progress(run, "the PyTorch loop alone");
	alone = torch_victim(run, res, victim);
	if (!alone)
		return -1;
	torch_step(res, "PyTorch loop alone", alone, &a50, &a99);
	accept_progress(run, "the PyTorch loop beside the background");
	err = background_start(run, run->s->prefix, background, &bg);
	if (!err) {
		with = torch_victim(run, res, victim);
		err = accept_stop(run, &bg) || !with;
	}
	if (!err) {
		torch_step(res, "PyTorch loop with the background", with, &w50, &w99);
		res->figure[TORCH_STEP_RATIO] = w50 / a50;
		res->figure[TORCH_STEP_P99_RATIO] = w99 / a99;
	}
	json_object_put(alone);
	json_object_put(with);
	return err ? -1 : 0;
}

/*
 * The victim allreduce beside the background on @bg_prefix's hosts
 * @background, as step @name: its JSON, or NULL (reported).
 */
static struct json_object *victim_beside(struct accept_run *run,
					 struct accept_result *res,
					 const char *name, const char *victim,
					 const char *bg_prefix,
					 const char *background)
{
	struct json_object *with = NULL;
	struct accept_job bg = { 0 };

	accept_progress(run, name);
	if (background_start(run, bg_prefix, background, &bg))
		return NULL;
	with = accept_collective(run, "allreduce", victim, VICTIM_PORT(run->s));
	if (accept_stop(run, &bg) || !with) {
		json_object_put(with);
		return NULL;
	}
	accept_step_add(res, name, with);
	return with;
}

/* @num's mean and p99 completion times over @den's, into figures @f and
 * @f + 1. */
static void time_ratios(struct accept_result *res, unsigned int f,
			struct json_object *num, struct json_object *den)
{
	res->figure[f] = accept_json_num(num, "sizes", -1, "time_us") /
			 accept_json_num(den, "sizes", -1, "time_us");
	res->figure[f + 1] = accept_json_num(num, "sizes", -1, "p99_us") /
			     accept_json_num(den, "sizes", -1, "p99_us");
}

/* The victim beside the same background on the control fabric, and the
 * fabric ratios against @with. */
static int control_measure(struct accept_run *run, struct accept_result *res,
			   const char *victim, const char *background,
			   struct json_object *with)
{
	char prefix[FABRIC_PREFIX_SIZE];
	struct json_object *control = NULL;

	accept_control_prefix(run, prefix, sizeof(prefix));
	if (!accept_control_up(run) && !run->interrupted)
		control = victim_beside(run, res,
					"victim with the background on the control fabric",
					victim, prefix, background);
	accept_control_down(run);
	if (!control)
		return -1;
	time_ratios(res, FABRIC_STEP_RATIO, with, control);
	json_object_put(control);
	return 0;
}

static int isolation_measure(struct accept_run *run, struct accept_result *res)
{
	struct json_object *alone, *with = NULL;
	char victim[256], background[256];
	int err;

	half(victim, sizeof(victim), run->s->hosts, false);
	half(background, sizeof(background), run->s->hosts, true);
	accept_progress(run, "the victim alone");
	alone = accept_collective(run, "allreduce", victim, VICTIM_PORT(run->s));
	if (!alone || run->interrupted) {
		json_object_put(alone);
		return -1;
	}
	accept_step_add(res, "victim alone", alone);
	with = victim_beside(run, res, "victim with the background", victim,
			     run->s->prefix, background);
	err = !with;
	if (with) {
		time_ratios(res, VICTIM_STEP_RATIO, with, alone);
		if (!run->interrupted)
			err = control_measure(run, res, victim, background, with);
	}
	json_object_put(alone);
	json_object_put(with);
	if (run->s->torch && !run->interrupted)
		err |= torch_measure(run, res, victim, background);
	return err ? -1 : 0;
}

const struct accept_class accept_isolation = {
	.cls = MP_EXPECT_ISOLATION,
	.figures = isolation_figures,
	/* building it, its switches' program, alone, with the background;
	 * the control's two, and the victim beside its background */
	.steps = 7,
	.torch_steps = 2,
	.torch_first = TORCH_STEP_RATIO,
	.measure = isolation_measure,
};
