// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept CLASS: build the fabric for each policy in turn, measure
 * the class's figures on it, remove it, and hold every figure against the
 * expectations file: PASS, FAIL or SKIP per line, text or JSON from one
 * output path (mp_print.h), exit status 1 on any FAIL.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_cmd.h"
#include "mp_datadir.h"
#include "mp_fabric.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "mplane_maps.h"
#include "accept.h"
#include "fabric.h"
#include "collective_roce.h"

#ifndef MPLANE_ACCEPT_EXPECT
#define MPLANE_ACCEPT_EXPECT	"/usr/share/mplane/expect.conf"
#endif

#define EXIT_INTERRUPTED	130

static const struct accept_class *const classes[MP_EXPECT_NCLASSES] = {
	[MP_EXPECT_BASELINE] = &accept_baseline,
	[MP_EXPECT_ISOLATION] = &accept_isolation,
	[MP_EXPECT_RESILIENCY] = &accept_resiliency,
	[MP_EXPECT_SCALE] = &accept_scale,
};

static const char *const transport_names[] = { "tcp", "roce", NULL };
static const char *const background_names[] = { "alltoall", "incast", NULL };
/* In enum mplane_aqm's order, as bpf attach --aqm takes them. */
static const char *const aqm_names[] = { "red", "pi", NULL };

static int rate_parse(const char *opt, const char *arg, void *field)
{
	struct accept_rate *r = field;

	if (fabric_rate_arg(opt, arg, &r->bps))
		return MP_EXIT_USAGE;
	snprintf(r->text, sizeof(r->text), "%s", arg);
	return MP_EXIT_OK;
}

#define AT(m)	MP_OPT_AT(struct accept_settings, m)

static const struct mp_opt accept_opts[] = {
	{ "policies", 'p', MP_OPT_STRING, AT(policies), "LIST",
	  "the policies to compare, in this order: bond, ecmp, dcqcn, ar, ar+plb, ar+plb+cc, comma-separated",
	  .def = "all six; those this host cannot run say why" },
	{ "expect", 'x', MP_OPT_STRING, AT(expect), "FILE",
	  "the expectations (mp_expect.h has the format; edit a copy for your fabric)",
	  .def = "PREFIX/share/mplane/expect.conf, or the tree's tools/accept/" },
	{ "hosts", 'H', MP_OPT_UINT, AT(hosts), "N", "hosts, one rank each",
	  .min = 4, .max = 64, .def = "4; scale: 16" },
	{ "planes", 'P', MP_OPT_UINT, AT(planes), "N", "planes, one rail a host each",
	  .min = 1, .max = 16, .def = "2" },
	{ "leaves", 'L', MP_OPT_UINT, AT(leaves), "N", "leaves per plane",
	  .min = 1, .max = 64, .def = "2" },
	{ "spines", 'S', MP_OPT_UINT, AT(spines), "N", "spines per plane",
	  .min = 1, .max = 64, .def = "2" },
	{ "rate", 'r', MP_OPT_CUSTOM, AT(rate), "RATE",
	  "every link's rate, in tc(8) units, as 'fabric up --rate'",
	  .parse = rate_parse, .def = "100mbit" },
	{ "size", 'b', MP_OPT_BYTES, AT(size), "SIZE",
	  "bytes of each collective, as nccl-tests counts them",
	  .min = 4096, .max = 1ULL << 30, .def = "1M" },
	{ "iters", 'n', MP_OPT_UINT, AT(iters), "N",
	  "timed iterations of each collective", .min = 1, .max = 100000,
	  .def = "5" },
	{ "transport", 't', MP_OPT_CHOICE, AT(transport), "NAME",
	  "the collectives' transport, the same for every policy: tcp, or roce (RoCEv2 framing over UDP), which the policies with DCQCN need, as it paces RoCE QPs",
	  .choices = transport_names, .def = "tcp" },
	{ "window", 0, MP_OPT_UINT, AT(window), "PKTS",
	  "roce: packets each QP may have in flight, as 'collective run --window': the path's bandwidth-delay product keeps the switches' queues short",
	  .min = 1, .max = ROCE_WINDOW,
	  .def = "collective run's: the fabric's bandwidth-delay product" },
	{ "background", 0, MP_OPT_CHOICE, AT(background), "OP",
	  "isolation: the background job on the odd hosts, of --size over and over",
	  .choices = background_names, .def = "alltoall" },
	{ "aqm", 0, MP_OPT_CHOICE, AT(aqm), "AQM",
	  "how every policy's switches mark ECN, as 'bpf attach --aqm': red, from 2.4 ms of the links' rate queued to three times that, or pi, holding the queue's delay near twice that (Documentation/ar.md)",
	  .choices = aqm_names, .def = "red" },
	{ "torch", 0, MP_OPT_FLAG, AT(torch), NULL,
	  .help = "isolation: a PyTorch training loop (torch.distributed over gloo, tools/torch/launch.sh) on the victim's hosts too, alone and beside the background: torch_step_ratio and torch_step_p99_ratio" },
	{ "timeout", 0, MP_OPT_SECONDS, AT(timeout_ns), "SECONDS",
	  "a step that takes longer is stopped, and its figure is not measured",
	  .min = 1000000000ULL, .max = 3600000000000ULL, .def = "300" },
	{ "html", 0, MP_OPT_STRING, AT(html), "FILE",
	  .help = "also write the report as one self-contained HTML file (inline SVG, nothing fetched): the verdicts, each figure per policy, each rank's time, the completion times, and each policy's telemetry (symmetry, a timeline of queues, ECN marks, CNPs, steps and faults), recorded to FILE.POLICY.mpcp for 'telemetry report'" },
	{ "prefix", 0, MP_OPT_CUSTOM, AT(prefix), "NAME",
	  "the name of the fabric it builds (and removes again)",
	  .parse = fabric_prefix_opt, .def = "mpacc" },
	{}
};

static const struct mp_opt_cmd accept_cmd = {
	.usage = "accept CLASS [OPTIONS]",
	.about =
"Accept a fabric the way AI fabrics are accepted: with collectives, for\n"
"each policy in turn, on the same fabric of namespaces ('fabric up') with\n"
"the same sizes, and a verdict against expected results.  The policies:\n"
"the baselines to beat (bond, ecmp: the switches' hash, dcqcn: ECMP with\n"
"DCQCN in mp0) and mplane's loops added one at a time (ar: adaptive\n"
"routing in the switches, ar+plb: and mp0's plane balancing, ar+plb+cc:\n"
"and DCQCN).  Documentation/accept.md has the design.\n"
"\n"
"Classes (those of the Spectrum-X paper's acceptance) and their figures:\n"
"  baseline    the fabric at full load against its physical limits:\n"
"                permutation_goodput  a permutation's goodput per rank /\n"
"                                     the bisection's share per rank\n"
"                allreduce_busbw      busbw / the host links, all planes\n"
"                alltoall_busbw       busbw / the bisection's share\n"
"  isolation   a victim allreduce on the even hosts, alone, beside a\n"
"              background job (--background) on the odd hosts, and beside\n"
"              the same job on a control fabric (PREFIX and a 'c': same\n"
"              shape and policy, the same CPU cost, no link shared):\n"
"                victim_step_ratio    its mean completion time with / alone\n"
"                victim_cct_p99_ratio the same for its p99\n"
"                fabric_step_ratio    its mean completion time with / with\n"
"                                     the background on the control: what\n"
"                                     the fabric let the background take\n"
"                fabric_cct_p99_ratio the same for its p99\n"
"                torch_step_ratio     with --torch: a PyTorch loop's p50\n"
"                                     step time with / alone (and _p99_)\n"
"  resiliency  faults, in proportion or not:\n"
"                links_down_capacity  a permutation's goodput with 10% of\n"
"                                     the leaf-spine links down, rerouted\n"
"                                     around / the capacity left\n"
"                links_down_vs_healthy\n"
"                                     that / the same permutation's with\n"
"                                     every link up / the whole capacity:\n"
"                                     1 when it lost just what went down\n"
"                flap_gap_ms          the longest delivery gap of any of a\n"
"                                     paced stream's 8 flows (h0 to h1)\n"
"                                     across a flap of h0's plane-0 link\n"
"                                     (0.5 s), beyond the flow's spacing\n"
"                plane_loss_gap_ms    the same across the loss of plane 0\n"
"  scale       an allreduce on 4, 8 and 16 ranks of a 16-host fabric:\n"
"                rank_lag             at 16, the slowest rank's time / the\n"
"                                     median rank's\n"
"                busbw_16_over_4      busbw at 16 ranks / at 4\n"
"\n"
"Each figure is measured in this run, never estimated: a collective whose\n"
"every element does not check gives none, and a figure not measured\n"
"meets no expectation.  Each expectation of the class in --expect prints\n"
"PASS, FAIL, or SKIP when its policy was not run (with why), then a line\n"
"'N passed, N failed, N skipped'.  With -j, one JSON object: the\n"
"settings, each policy's figures and steps, and the verdicts.  Progress\n"
"(the policy and the step, with the time left) goes to stderr.\n"
"\n"
"Exit status: 0 when no expectation failed, 1 when one did or a step\n"
"failed, 2 for a wrong command line or expectations file (its line is\n"
"named), 130 when interrupted: Ctrl-C stops the step, removes the fabric\n"
"and prints what was measured so far.\n",
	.opts = accept_opts,
	.footer =
"Examples:\n"
"  mplanectl accept baseline\n"
"  mplanectl accept baseline --policies ecmp,ar --planes 1 --rate 50mbit\n"
"  cp /usr/share/mplane/expect.conf my.conf; $EDITOR my.conf\n"
"  mplanectl -j accept baseline --expect my.conf > baseline.json\n",
};

/* The policies to run, in the order of @list (all, in enum order, when
 * NULL): how many, or -1 (reported). */
static int policies_parse(const char *list, enum mp_expect_policy *out)
{
	char buf[256], *w, *save;
	int n = 0, p, i;

	if (!list) {
		for (p = 0; p < MP_EXPECT_NPOLICIES; p++)
			out[n++] = p;
		return n;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		p = mp_expect_policy_parse(w);
		if (p < 0)
			return mp_usage_err("bad --policies: unknown policy '%s': want bond, ecmp, dcqcn, ar, ar+plb or ar+plb+cc",
					    w), -1;
		for (i = 0; i < n; i++)
			if (out[i] == (enum mp_expect_policy)p)
				return mp_usage_err("bad --policies: '%s' twice", w), -1;
		out[n++] = p;
	}
	if (!n)
		return mp_usage_err("bad --policies: name at least one"), -1;
	return n;
}

static int load_expect(const char *path, struct mp_expect_set *set)
{
	const char *const *figures[MP_EXPECT_NCLASSES] = { NULL };
	char err[512];
	FILE *f;
	int i, rc;

	for (i = 0; i < MP_EXPECT_NCLASSES; i++)
		figures[i] = classes[i] ? classes[i]->figures : NULL;
	f = fopen(path, "r");
	if (!f) {
		mp_err("--expect %s: %s", path, strerror(errno));
		return MP_EXIT_USAGE;
	}
	rc = mp_expect_parse(f, path, figures, set, err, sizeof(err));
	fclose(f);
	if (rc) {
		mp_err("%s", err);
		return MP_EXIT_USAGE;
	}
	return MP_EXIT_OK;
}

static int figure_index(const struct accept_class *cls, const char *name)
{
	int i;

	for (i = 0; cls->figures[i]; i++)
		if (!strcmp(cls->figures[i], name))
			return i;
	return -1;
}

/* The steps of one policy, for the time left. */
static unsigned int policy_steps(const struct accept_run *run)
{
	return run->cls->steps + (run->s->torch ? run->cls->torch_steps : 0);
}

static void run_policy(struct accept_run *run, struct accept_result *res,
		       bool *failed)
{
	unsigned int done = run->steps_done;
	struct accept_job rec;
	const char *no;
	int rc, i;

	for (i = 0; i < ACCEPT_FIGURES_MAX; i++)
		res->figure[i] = NAN;
	res->steps = json_object_new_array();
	run->policy = res->policy;
	no = accept_policy_cannot(run, res->policy);
	if (no) {
		snprintf(res->why_not, sizeof(res->why_not), "%s", no);
		return;
	}
	res->ran = true;
	rc = accept_policy_up(run, res->policy);
	if (!rc)
		accept_capture_start(run, res, &rec);
	if (rc || run->interrupted || run->cls->measure(run, res))
		*failed = !run->interrupted;
	if (!rc)
		accept_capture_stop(run, res, &rec);
	accept_policy_down(run);
	/* Steps a failure skipped count as done, for the time left. */
	run->steps_done = done + policy_steps(run);
}

static void print_settings(const struct accept_settings *s)
{
	enum mp_print_to red;

	mp_print_open_object("settings");
	mp_print_u64(MP_PRINT_ANY, "host_count", "%" PRIu64 " hosts", s->hosts);
	mp_print_u64(MP_PRINT_ANY, "plane_count", ", %" PRIu64, s->planes);
	mp_print_text(s->planes == 1 ? " plane" : " planes");
	mp_print_u64(MP_PRINT_ANY, "leaves", " of %" PRIu64 " leaves", s->leaves);
	mp_print_u64(MP_PRINT_ANY, "spines", " and %" PRIu64 " spines", s->spines);
	mp_print_str(MP_PRINT_ANY, "rate", ", links at %s", s->rate.text);
	mp_print_u64(MP_PRINT_JSON, "rate_bps", NULL, s->rate.bps);
	mp_print_u64(MP_PRINT_ANY, "size", "; collectives of %" PRIu64 " bytes", s->size);
	mp_print_u64(MP_PRINT_ANY, "iters", ", %" PRIu64 " iterations", s->iters);
	mp_print_str(MP_PRINT_ANY, "transport", ", over %s",
		     transport_names[s->transport]);
	if (s->window)
		mp_print_u64(MP_PRINT_ANY, "window_pkts",
			     ", %" PRIu64 " packets in flight a QP", s->window);
	mp_print_text("\n");
	/* Under pi the RED thresholds are still given to bpf attach, and in
	 * the JSON, but mark nothing: the text leaves them out. */
	red = s->aqm == MPLANE_AQM_PI ? MP_PRINT_JSON : MP_PRINT_ANY;
	mp_print_str(MP_PRINT_ANY, "aqm", "# switches: ECN marks by %s", aqm_names[s->aqm]);
	mp_print_u64(red, "kmin_bytes", ", from %" PRIu64,
		     accept_kmin_bytes(s->rate.bps));
	mp_print_u64(red, "kmax_bytes", " to %" PRIu64 " bytes queued",
		     accept_kmax_bytes(s->rate.bps));
	if (s->aqm == MPLANE_AQM_PI)
		mp_print_u64(MP_PRINT_ANY, "pi_target_us",
			     ", holding %" PRIu64 " us of delay, none marked under half",
			     accept_pi_target_us(s->rate.bps));
	mp_print_text("\n");
	mp_print_str(MP_PRINT_ANY, "expect", "# expectations: %s\n", s->expect);
	if (s->html)
		mp_print_u64(MP_PRINT_ANY, "sample_interval_ms",
			     "# telemetry: every switch port sampled each %" PRIu64 " ms\n",
			     accept_sample_ms(s->rate.bps));
	mp_print_close_object();
}

/* A step's figures (accept_result.steps) in JSON only. */
static void print_steps(struct json_object *steps)
{
	size_t i, j;

	mp_print_open_array("steps");
	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		mp_print_open_object(NULL);
		json_object_object_foreach(json_object_array_get_idx(steps, i), k, v) {
			if (json_object_is_type(v, json_type_string)) {
				mp_print_str(MP_PRINT_JSON, k, NULL, json_object_get_string(v));
			} else if (json_object_is_type(v, json_type_boolean)) {
				mp_print_bool(MP_PRINT_JSON, k, NULL, json_object_get_boolean(v));
			} else if (json_object_is_type(v, json_type_array)) {
				mp_print_open_array(k);
				for (j = 0; j < json_object_array_length(v); j++)
					mp_print_float(MP_PRINT_JSON, NULL, NULL,
						       json_object_get_double(
							json_object_array_get_idx(v, j)));
				mp_print_close_array();
			} else {
				mp_print_float(MP_PRINT_JSON, k, NULL, json_object_get_double(v));
			}
		}
		mp_print_close_object();
	}
	mp_print_close_array();
}

/* JSON's key @key: @val, or null where the plan leaves it to a default. */
static void print_plan_str(const char *key, const char *val)
{
	if (val)
		mp_print_str(MP_PRINT_JSON, key, NULL, val);
	else
		mp_print_null(MP_PRINT_JSON, key, NULL);
}

/* What the policy builds, in JSON: whether it ran or not. */
static void print_plan(const struct accept_settings *s, enum mp_expect_policy p)
{
	struct accept_plan plan;

	accept_policy_plan(s, p, &plan);
	mp_print_open_object("builds");
	print_plan_str("switches", plan.switches);
	print_plan_str("hosts", plan.hosts);
	print_plan_str("mp0_policy", plan.mp0_policy);
	print_plan_str("mp0_cc", plan.mp0_cc);
	if (plan.mp0_flowlet_gap_us)
		mp_print_u64(MP_PRINT_JSON, "mp0_flowlet_gap_us", NULL,
			     plan.mp0_flowlet_gap_us);
	else
		mp_print_null(MP_PRINT_JSON, "mp0_flowlet_gap_us", NULL);
	mp_print_close_object();
}

/* Each policy a row, each figure a column. */
static void print_results(const struct accept_class *cls,
			  const struct accept_settings *s,
			  const struct accept_result *res, unsigned int n)
{
	unsigned int i, f;

	mp_print_text("#\n# %-10s", "policy");
	for (f = 0; cls->figures[f]; f++)
		if (accept_figure_shown(cls, s, f))
			mp_print_text(" %20s", cls->figures[f]);
	mp_print_text("\n");
	mp_print_open_array("policies");
	for (i = 0; i < n; i++) {
		mp_print_open_object(NULL);
		mp_print_str(MP_PRINT_ANY, "policy", "  %-10s",
			     mp_expect_policy_name(res[i].policy));
		mp_print_bool(MP_PRINT_JSON, "ran", NULL, res[i].ran);
		print_plan(s, res[i].policy);
		if (!res[i].ran) {
			mp_print_str(MP_PRINT_ANY, "why_not", " not run: %s\n",
				     res[i].why_not);
			mp_print_close_object();
			continue;
		}
		mp_print_open_object("figures");
		for (f = 0; cls->figures[f]; f++) {
			if (!accept_figure_shown(cls, s, f))
				continue;
			if (isnan(res[i].figure[f]))
				mp_print_null(MP_PRINT_ANY, cls->figures[f], "                    -");
			else
				mp_print_float(MP_PRINT_ANY, cls->figures[f], " %20.3f",
					       res[i].figure[f]);
		}
		mp_print_close_object();
		mp_print_text("\n");
		print_steps(res[i].steps);
		mp_print_close_object();
	}
	mp_print_close_array();
}

static const struct accept_result *result_of(const struct accept_result *res,
					     unsigned int n,
					     enum mp_expect_policy p)
{
	while (n--)
		if (res[n].policy == p)
			return &res[n];
	return NULL;
}

/* Each expectation of the class against what its policy measured. */
static unsigned int judge(const struct accept_class *cls,
			  const struct mp_expect_set *set,
			  const struct accept_result *res, unsigned int n,
			  struct accept_verdict *out, struct accept_tally *t)
{
	const struct accept_result *r;
	struct accept_verdict *v;
	unsigned int nv = 0;
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->item[i].cls != cls->cls)
			continue;
		r = result_of(res, n, set->item[i].policy);
		v = &out[nv++];
		*v = (struct accept_verdict){ .e = &set->item[i], .measured = NAN };
		if (!r) {
			v->verdict = "SKIP", v->why = "policy not asked for (--policies)";
		} else if (!r->ran) {
			v->verdict = "SKIP", v->why = r->why_not;
		} else {
			v->measured = r->figure[figure_index(cls, v->e->figure)];
			v->verdict = mp_expect_holds(v->e, v->measured) ? "PASS" : "FAIL";
			if (isnan(v->measured))
				v->why = "not measured: a step failed or was stopped";
		}
		t->passed += v->verdict[0] == 'P';
		t->failed += v->verdict[0] == 'F';
		t->skipped += v->verdict[0] == 'S';
	}
	return nv;
}

static void print_verdict(const struct accept_verdict *v)
{
	char test[64];

	mp_expect_test_str(v->e, test, sizeof(test));
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "verdict", "  %s", v->verdict);
	mp_print_str(MP_PRINT_ANY, "policy", "  %-10s",
		     mp_expect_policy_name(v->e->policy));
	mp_print_str(MP_PRINT_ANY, "figure", " %-20s", v->e->figure);
	if (isnan(v->measured))
		mp_print_null(MP_PRINT_ANY, "measured", "        -");
	else
		mp_print_float(MP_PRINT_ANY, "measured", " %8.3f", v->measured);
	mp_print_str(MP_PRINT_ANY, "test", " %-10s", test);
	mp_print_u64(MP_PRINT_ANY, "line", " (line %" PRIu64 ")", v->e->line);
	if (v->why)
		mp_print_str(MP_PRINT_ANY, "why", ": %s", v->why);
	else
		mp_print_null(MP_PRINT_JSON, "why", NULL);
	mp_print_text("\n");
	mp_print_close_object();
}

static void print_verdicts(const struct accept_report *rep)
{
	unsigned int i;

	mp_print_text("#\n# verdict\n");
	mp_print_open_array("verdicts");
	for (i = 0; i < rep->nverdicts; i++)
		print_verdict(&rep->verdicts[i]);
	mp_print_close_array();
}

static int settings_check(const struct accept_settings *s)
{
	if (s->leaves > s->hosts)
		return mp_usage_err("bad --leaves %llu: more than --hosts %llu",
				    (unsigned long long)s->leaves,
				    (unsigned long long)s->hosts);
	if (s->window && !s->transport)
		return mp_usage_err("--window is the roce transport's: give --transport roce");
	if (s->hosts < 4 || s->hosts % 2)
		return mp_usage_err("bad --hosts %llu: want an even number, 4 or more (a permutation pairs rank r with r + n/2; isolation halves the hosts)",
				    (unsigned long long)s->hosts);
	return MP_EXIT_OK;
}

static int accept_class_run(const struct accept_class *cls,
			    const struct accept_settings *s,
			    const struct mp_expect_set *set,
			    const enum mp_expect_policy *policies,
			    unsigned int n)
{
	struct accept_run run = {
		.s = s, .cls = cls, .npolicies = n, .start_ns = mp_mono_ns(),
	};
	struct accept_result res[MP_EXPECT_NPOLICIES] = { 0 };
	struct accept_verdict *verdicts = calloc(set->n + 1, sizeof(*verdicts));
	struct accept_report rep = { .cls = cls, .s = s, .verdicts = verdicts };
	bool failed = false;
	unsigned int i;

	if (!verdicts) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}

	/* The time left counts the steps of the policies that can run. */
	for (i = 0; i < n; i++)
		if (!accept_policy_cannot(&run, policies[i]))
			run.steps_total += policy_steps(&run);
	mp_run_stop_on_signals();
	for (i = 0; i < n && !run.interrupted && !mp_run_stopping; i++) {
		run.policy_index = i;
		res[i].policy = policies[i];
		run_policy(&run, &res[i], &failed);
	}
	accept_progress_end(&run);
	n = i;
	rep.res = res;
	rep.n = n;
	rep.interrupted = run.interrupted || mp_run_stopping;
	rep.nverdicts = judge(cls, set, res, n, verdicts, &rep.tally);
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "class", "# accept %s: ",
		     mp_expect_class_name(cls->cls));
	print_settings(s);
	print_results(cls, s, res, n);
	print_verdicts(&rep);
	mp_print_bool(MP_PRINT_JSON, "interrupted", NULL, rep.interrupted);
	mp_print_u64(MP_PRINT_ANY, "passed", "%" PRIu64 " passed", rep.tally.passed);
	mp_print_u64(MP_PRINT_ANY, "failed", ", %" PRIu64 " failed", rep.tally.failed);
	mp_print_u64(MP_PRINT_ANY, "skipped", ", %" PRIu64 " skipped\n",
		     rep.tally.skipped);
	mp_print_end();
	if (s->html && accept_html_write(s->html, &rep))
		failed = true;
	for (i = 0; i < n; i++)
		json_object_put(res[i].steps);
	free(verdicts);
	if (rep.interrupted) {
		mp_err("interrupted: the figures above are what was measured");
		return EXIT_INTERRUPTED;
	}
	return failed || rep.tally.failed ? MP_EXIT_ERR : MP_EXIT_OK;
}

int accept_main(int argc, char **argv)
{
	struct accept_settings s = {
		.prefix = "mpacc",
		.expect = mp_data_file("expect.conf", MPLANE_ACCEPT_EXPECT), .hosts = 4,
		.planes = 2, .leaves = 2, .spines = 2,
		.rate = { 100000000ULL, "100mbit" }, .size = 1 << 20,
		.iters = 5, .transport = 0, .timeout_ns = 300000000000ULL,
	};
	enum mp_expect_policy policies[MP_EXPECT_NPOLICIES];
	struct mp_expect_set set = { 0 };
	const struct accept_class *cls;
	struct mp_opt_result res;
	int rc, c, n;

	rc = mp_opt_parse(&accept_cmd, argc, argv, &s, &res);
	if (rc != MP_OPT_RUN)
		return rc;
	if (res.argi >= argc)
		return mp_usage_err("no class: want baseline, isolation, resiliency or scale");
	if (res.argi + 1 < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi + 1]);
	c = mp_expect_class_parse(argv[res.argi]);
	if (c < 0)
		return mp_usage_err("unknown class '%s': want baseline, isolation, resiliency or scale",
				    argv[res.argi]);
	cls = classes[c];
	if (!cls) {
		mp_err("%s: not measured by this version yet", argv[res.argi]);
		return MP_EXIT_ERR;
	}
	if (s.torch && !cls->torch_steps)
		return mp_usage_err("--torch is for isolation: the PyTorch loop is a victim");
	if (cls->hosts && !mp_opt_given(&accept_cmd, &res, "hosts"))
		s.hosts = cls->hosts;
	if (s.hosts < cls->hosts)
		return mp_usage_err("bad --hosts %llu: %s needs %u",
				    (unsigned long long)s.hosts,
				    mp_expect_class_name(c), cls->hosts);
	rc = settings_check(&s);
	if (rc)
		return rc;
	n = policies_parse(s.policies, policies);
	if (n < 0)
		return MP_EXIT_USAGE;
	rc = load_expect(s.expect, &set);
	if (!rc)
		rc = accept_class_run(cls, &s, &set, policies, n);
	mp_expect_set_free(&set);
	return rc;
}
