/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mplanectl accept: an acceptance class run over a fabric of namespaces,
 * every policy in turn on the same fabric and the same sizes, its figures
 * measured by mplanectl's own commands (fabric up, bpf attach, collective
 * run) and held against the expectations file (mp_expect.h).
 *
 * One file per concept: accept.c the command (options, the loop over the
 * policies, the verdict), accept_step.c running one step as a child and
 * reading its JSON, accept_policy.c what each policy builds, and one file
 * per class (accept_baseline.c, ...) with the workloads and the figures.
 */
#ifndef MPLANECTL_ACCEPT_H
#define MPLANECTL_ACCEPT_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "mp_expect.h"
#include "fabric.h"

#define ACCEPT_FIGURES_MAX	16

/* The fabric and workload sizes every policy of a run shares. */
struct accept_rate {
	uint64_t bps;
	char text[32];			/* as given, for fabric up */
};

struct accept_settings {
	char prefix[FABRIC_PREFIX_SIZE];
	const char *expect;		/* the expectations file */
	const char *policies;		/* comma-separated; NULL: every one */
	uint64_t hosts, planes, leaves, spines;
	struct accept_rate rate;	/* every link's */
	uint64_t size;			/* bytes of each collective */
	uint64_t iters;
	int transport;			/* 0 tcp, 1 roce */
	uint64_t window;		/* roce: packets in flight a QP; 0: the engine's */
	int background;			/* isolation: 0 alltoall, 1 incast */
	int aqm;			/* the switches' marking: enum mplane_aqm */
	bool torch;			/* isolation: the PyTorch victim too */
	uint64_t timeout_ns;		/* of each step */
	const char *html;		/* the report's file, or NULL */
};

/* What one policy measured: a value for each of its class's figures
 * (NaN: not measured), and why it did not run, if it did not. */
struct accept_result {
	enum mp_expect_policy policy;
	bool ran;
	char why_not[160];		/* "" when it ran */
	double figure[ACCEPT_FIGURES_MAX];
	struct json_object *steps;	/* each step's figures, for -j */
	char capture[4096];		/* its telemetry (with --html), or "" */
};

struct accept_run;

/* A class: its figures (those the expectations file may name), how many
 * steps a policy takes (for the progress line), and the steps. */
struct accept_class {
	enum mp_expect_class cls;
	const char *const *figures;	/* NULL-terminated */
	unsigned int steps;
	unsigned int torch_steps;	/* more with --torch */
	unsigned int torch_first;	/* figures from here on need --torch;
					 * 0: none does */
	unsigned int hosts;		/* the fabric it needs; 0: --hosts */
	/* Measure every figure on the fabric the policy built: 0, or -1
	 * when a step failed (reported; its figures stay NaN). */
	int (*measure)(struct accept_run *run, struct accept_result *res);
};

extern const struct accept_class accept_baseline;
extern const struct accept_class accept_isolation;
extern const struct accept_class accept_scale;
extern const struct accept_class accept_resiliency;

/* Is figure @f of @cls one this run measures at all (not --torch's
 * without --torch)?  Those that are not are neither shown nor given. */
static inline bool accept_figure_shown(const struct accept_class *cls,
				       const struct accept_settings *s,
				       unsigned int f)
{
	return !cls->torch_first || s->torch || f < cls->torch_first;
}

/* The state of one run, as the steps see it. */
struct accept_run {
	const struct accept_settings *s;
	const struct accept_class *cls;
	enum mp_expect_policy policy;		/* the one running */
	unsigned int npolicies, policy_index;	/* for the progress line */
	unsigned int steps_done, steps_total;
	uint64_t start_ns;
	bool interrupted;		/* SIGINT or SIGTERM came */
	bool cleaning;			/* removing the fabric: no stop */
};

/*
 * Run `mplanectl -j ARGS...` (this program, NULL-terminated @args; or the
 * program @args[0] names when it is a path) as a child and parse what it
 * printed into @out (NULL: it is read and dropped).  Its stderr passes through.  A stop (SIGINT, SIGTERM) is
 * passed on to it.  0, or -1 reported with @what and how it ended.
 */
int accept_exec(struct accept_run *run, const char *what,
		struct json_object **out, const char *const *args);

/* A step that runs in the background (a load for another job), its
 * stderr dropped; accept_stop() ends it: 0 if it was still running, -1
 * (reported) if it had ended already, which makes what ran beside it
 * meaningless. */
struct accept_job {
	const char *what;
	int pid, fd;
	bool keep_stdout;		/* set before start, for accept_wait */
	struct json_object *out;	/* what accept_wait read */
};
int accept_start(struct accept_run *run, const char *what,
		 const char *const *args, struct accept_job *job);
int accept_stop(struct accept_run *run, struct accept_job *job);
/* Wait for a job started with keep_stdout to end by itself, within the
 * step's timeout, and read its JSON into job->out: 0, or -1 (reported). */
int accept_wait(struct accept_run *run, struct accept_job *job);

/* The progress line on stderr: class, policy, step, time left. */
void accept_progress(struct accept_run *run, const char *step);
void accept_progress_end(struct accept_run *run);

/* Does @policy put mp0 on the hosts? */
bool accept_policy_mp0(enum mp_expect_policy policy);

/* Why this host cannot run @policy (accept_policy.c), or NULL. */
const char *accept_policy_cannot(const struct accept_run *run,
				 enum mp_expect_policy policy);

/* The fabric's telemetry while a policy is measured (--html), to
 * @res->capture, next to the report: 'telemetry record' in the
 * background, stopped (and its file ended) by accept_capture_stop. */
int accept_capture_start(struct accept_run *run, struct accept_result *res,
			 struct accept_job *job);
void accept_capture_stop(struct accept_run *run, struct accept_result *res,
			 struct accept_job *job);

/* The switches' sampler interval for links of @bps, in ms. */
unsigned int accept_sample_ms(uint64_t bps);
/*
 * What a policy builds: the switches' program (bpf attach --policy), the
 * hosts ("bond", "multipath" or "mp0") and, with mp0, its policy, its
 * congestion control (NULL: the module's own) and its flowlet gap (0:
 * the module's own).
 */
struct accept_plan {
	const char *switches;
	const char *hosts;
	const char *mp0_policy;
	const char *mp0_cc;
	unsigned int mp0_flowlet_gap_us;
};

void accept_policy_plan(const struct accept_settings *s,
			enum mp_expect_policy p, struct accept_plan *plan);

/* The switches' ECN thresholds for links of @bps, in bytes queued. */
uint64_t accept_kmin_bytes(uint64_t bps);
uint64_t accept_kmax_bytes(uint64_t bps);
/* With --aqm pi, the queue's delay the switches hold, in us. */
uint64_t accept_pi_target_us(uint64_t bps);
/* The fabric of a policy, built with its loops: 0, or -1 (reported).
 * accept_policy_down() removes the fabric whatever state it is in. */
int accept_policy_up(struct accept_run *run, enum mp_expect_policy policy);
void accept_policy_down(struct accept_run *run);

/*
 * A second fabric of the same shape and policy, the control (isolation:
 * a load on it costs the hosts' CPU what it costs on the policy's fabric,
 * and shares none of its links): its prefix, and its building and
 * removal.  accept_policy_down() removes it too.
 */
void accept_control_prefix(const struct accept_run *run, char *buf,
			   size_t size);
int accept_control_up(struct accept_run *run);
void accept_control_down(struct accept_run *run);

/*
 * `collective run --op OP` of the run's size and iterations (accept_coll.c)
 * on @hosts ("h0,h2"; NULL: every host) at @port (NULL: the default): its
 * JSON, every element checked, or NULL (reported).
 */
struct json_object *accept_collective(struct accept_run *run, const char *op,
				      const char *hosts, const char *port);

/* A step of @res named @name with the figures of @out's last size
 * (busbw_bps, time_us, p99_us, p01_busbw_bps, slowest_rank); returned
 * for more. */
struct json_object *accept_step_add(struct accept_result *res,
				    const char *name, struct json_object *out);

/* One expectation against what its policy measured. */
struct accept_verdict {
	const struct mp_expect *e;
	const char *verdict;		/* "PASS", "FAIL" or "SKIP" */
	double measured;		/* NaN: not measured */
	const char *why;		/* SKIP's and a NaN's reason, or NULL */
};

struct accept_tally {
	unsigned int passed, failed, skipped;
};

/* Everything a run found, for the text, JSON and HTML alike. */
struct accept_report {
	const struct accept_class *cls;
	const struct accept_settings *s;
	const struct accept_result *res;
	unsigned int n;
	const struct accept_verdict *verdicts;
	unsigned int nverdicts;
	struct accept_tally tally;
	bool interrupted;
};

/* The report as one self-contained HTML file (accept_html.c): 0, or -1
 * (reported). */
int accept_html_write(const char *path, const struct accept_report *rep);

/*
 * `collective run --op OP` on every host as step @name of @res, its busbw
 * over @limit (bit/s) in @figure, and @limit in the step as limit_bps:
 * the step (@res holds it), or NULL (reported).
 */
struct json_object *accept_busbw_step(struct accept_run *run,
				      struct accept_result *res,
				      const char *op, const char *name,
				      double limit, double *figure);

/* A number of a step's JSON by path ("sizes", -1, "busbw"): the last
 * element for -1.  NaN when it is not there. */
double accept_json_num(struct json_object *o, const char *key, int index,
		       const char *member);

#endif /* MPLANECTL_ACCEPT_H */
