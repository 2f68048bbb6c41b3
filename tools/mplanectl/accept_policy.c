// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept: what each policy builds.  Every policy gets the same
 * fabric (fabric up with the run's sizes) and the same switch program
 * (bpf/ar.bpf.c, which also marks ECN), and differs only in its loops:
 *
 *   ecmp       switches hash (the kernel's multipath), and so do the
 *              hosts, without mp0: one multipath route over all their
 *              rails (fabric up --host-multipath)
 *   dcqcn      the same switches; mp0 spreads by hash over the planes
 *              and runs DCQCN: plain DCQCN on ECMP, the NIC's baseline
 *   ar         switches route adaptively (flowlets); hosts as ecmp
 *   ar+plb     and mp0 balances the planes: over roce per packet
 *              (spray), as the roce transport places what comes out of
 *              order and resends only what is lost, as a SuperNIC
 *              does; over tcp by flowlets, with a gap of a full
 *              queue's delay (FLOWLET_GAP_US, the fabric's default
 *              buffer): a flow moves to another plane only when its
 *              packets cannot overtake those still queued on the old
 *              one, as TCP wants; mp0's own default, 100 us, is for
 *              links a thousand times faster.  A QP that never
 *              pauses is one flowlet, on one plane: by flowlets, a
 *              permutation over roce had half the bisection at most.
 *              Over roce mp0 also runs cc notify: the CNPs that answer
 *              the switches' ECN marks weigh spray's planes, and no
 *              rate is cut, so that a plane with less capacity behind
 *              its leaf (a link down) gets less; without them spray
 *              sees only its own rails, and split a permutation evenly
 *              over a plane that had lost half its uplinks
 *   ar+plb+cc  and DCQCN in mp0 (roce only)
 *   bond       switches as ecmp; hosts bond their rails, without mp0
 *              (fabric up --host-bond: balance-xor by layer3+4, miimon
 *              100), the static LAG of a host's NICs
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_fabric.h"
#include "mplane_maps.h"
#include "accept.h"
#include "fabric.h"

#define FLOWLET_GAP_US	20000U

/* The switches' program for each policy: ecmp leaves the choice to the
 * kernel's hash and still marks ECN, which DCQCN needs. */
static const char *switch_policy(enum mp_expect_policy p)
{
	return p == MP_EXPECT_AR || p == MP_EXPECT_AR_PLB ||
	       p == MP_EXPECT_AR_PLB_CC ? "flowlet" : "ecmp";
}

bool accept_policy_mp0(enum mp_expect_policy p)
{
	return p == MP_EXPECT_DCQCN || p == MP_EXPECT_AR_PLB ||
	       p == MP_EXPECT_AR_PLB_CC;
}

static bool uses_cc(enum mp_expect_policy p)
{
	return p == MP_EXPECT_DCQCN || p == MP_EXPECT_AR_PLB_CC;
}

const char *accept_policy_cannot(const struct accept_run *run,
				 enum mp_expect_policy p)
{
	if (p == MP_EXPECT_BOND && !fabric_bond_available())
		return "needs the bonding driver, and it is not loaded (modprobe bonding)";
	if (accept_policy_mp0(p) && access("/sys/module/mplane", F_OK))
		return "needs mp0, and mplane.ko is not loaded";
	if (uses_cc(p) && run->s->transport == 0)
		return "DCQCN paces RoCE QPs: give --transport roce";
	return NULL;
}

/*
 * The switches' ECN thresholds: RED from ACCEPT_KMIN_US of the link's
 * rate to three times that, no lower than two full frames.  bpf attach's
 * defaults (20 KiB and 200 KiB) are 1.6 and 16 ms at 100mbit, but 16
 * and 160 ms at the 10mbit of make accept, where a port holds 28 KB
 * (22 ms): little was marked short of loss, so neither DCQCN nor spray's
 * weights (Documentation/plb.md) heard of a queue.  At 10mbit: 3028 and
 * 9084 bytes.
 */
#define ACCEPT_KMIN_US		2400
#define ACCEPT_KMIN_MIN		(2 * 1514)

uint64_t accept_kmin_bytes(uint64_t bps)
{
	uint64_t bytes = bps / 8 * ACCEPT_KMIN_US / 1000000;

	return bytes < ACCEPT_KMIN_MIN ? ACCEPT_KMIN_MIN : bytes;
}

uint64_t accept_kmax_bytes(uint64_t bps)
{
	return 3 * accept_kmin_bytes(bps);
}

/*
 * --aqm pi's target: twice Kmin's delay.  PI marks nothing under half its
 * target, and DCQCN then holds the queue about there, at Kmin, as RED
 * means to; in the 4:1 incast of bench/cc.sh a target of twice Kmin kept
 * the queue's p99 at a third of RED's and a victim's CCT p99 at 24-30 ms
 * against 35-77 (Documentation/cc.md).  4844 us at 10mbit.
 */
uint64_t accept_pi_target_us(uint64_t bps)
{
	return bps ? 2 * accept_kmin_bytes(bps) * 8 * 1000000 / bps : 0;
}

/* What policy @p builds under @s: its fabric up and its report say it. */
void accept_policy_plan(const struct accept_settings *s,
			enum mp_expect_policy p, struct accept_plan *plan)
{
	*plan = (struct accept_plan){ .switches = switch_policy(p) };
	if (p == MP_EXPECT_BOND) {
		plan->hosts = "bond";
		return;
	}
	if (!accept_policy_mp0(p)) {
		plan->hosts = "multipath";
		return;
	}
	plan->hosts = "mp0";
	if (p == MP_EXPECT_DCQCN || s->transport)
		plan->mp0_policy = p == MP_EXPECT_DCQCN ? "hash" : "spray";
	if (uses_cc(p))
		plan->mp0_cc = "dcqcn";
	else if (s->transport)
		plan->mp0_cc = "notify";
	if (!s->transport && p == MP_EXPECT_AR_PLB)
		plan->mp0_flowlet_gap_us = FLOWLET_GAP_US;
}

/* mp0's flowlet gap on every host of @prefix. */
static int set_flowlet_gap(struct accept_run *run, const char *prefix,
			   unsigned int gap_us)
{
	unsigned int h;
	char ns[48], us[16];
	const char *gap[] = {
		"-n", ns, "link", "set", "mp0", "flowlet-gap", us, NULL,
	};

	snprintf(us, sizeof(us), "%u", gap_us);
	for (h = 0; h < run->s->hosts; h++) {
		snprintf(ns, sizeof(ns), "%s-h%u", prefix, h);
		if (accept_exec(run, "link set mp0 flowlet-gap", NULL, gap))
			return -1;
	}
	return 0;
}

/* The fabric of policy @p as @prefix, with its loops. */
static int policy_fabric_up(struct accept_run *run, enum mp_expect_policy p,
			    const char *prefix)
{
	const struct accept_settings *s = run->s;
	char hosts[16], planes[16], leaves[16], spines[16], kmin[24], kmax[24];
	struct accept_plan plan;
	const char *args[32] = {
		"fabric", "up", "--force", "--quiet", "--prefix", prefix,
		"--hosts", hosts, "--planes", planes, "--leaves", leaves,
		"--spines", spines, "--rate", s->rate.text,
	};
	char pi_target[24];
	const char *attach[24] = {
		"bpf", "attach", "--fabric", prefix, "--policy",
		NULL, "--kmin", kmin, "--kmax", kmax,
	};
	unsigned int n = 16, na = 10;

	accept_policy_plan(s, p, &plan);
	attach[5] = plan.switches;

	snprintf(hosts, sizeof(hosts), "%llu", (unsigned long long)s->hosts);
	snprintf(planes, sizeof(planes), "%llu", (unsigned long long)s->planes);
	snprintf(leaves, sizeof(leaves), "%llu", (unsigned long long)s->leaves);
	snprintf(spines, sizeof(spines), "%llu", (unsigned long long)s->spines);
	snprintf(kmin, sizeof(kmin), "%llu",
		 (unsigned long long)accept_kmin_bytes(s->rate.bps));
	snprintf(kmax, sizeof(kmax), "%llu",
		 (unsigned long long)accept_kmax_bytes(s->rate.bps));
	/* RED is the program's default; PI's period is its target, as PIE's. */
	if (s->aqm == MPLANE_AQM_PI) {
		snprintf(pi_target, sizeof(pi_target), "%llu",
			 (unsigned long long)accept_pi_target_us(s->rate.bps));
		attach[na++] = "--aqm";
		attach[na++] = "pi";
		attach[na++] = "--pi-target";
		attach[na++] = pi_target;
		attach[na++] = "--pi-period";
		attach[na++] = pi_target;
	}
	attach[na] = NULL;
	if (!strcmp(plan.hosts, "bond")) {
		args[n++] = "--host-bond";
	} else if (!strcmp(plan.hosts, "multipath")) {
		args[n++] = "--host-multipath";
	} else {
		args[n++] = "--mp0";
		if (plan.mp0_policy) {
			args[n++] = "--policy";
			args[n++] = plan.mp0_policy;
		}
		if (plan.mp0_cc) {
			args[n++] = "--cc";
			args[n++] = plan.mp0_cc;
		}
	}
	args[n] = NULL;
	accept_progress(run, "building the fabric");
	if (accept_exec(run, "fabric up", NULL, args))
		return -1;
	if (plan.mp0_flowlet_gap_us &&
	    set_flowlet_gap(run, prefix, plan.mp0_flowlet_gap_us))
		return -1;
	accept_progress(run, "the switches' program");
	return accept_exec(run, "bpf attach --fabric", NULL, attach);
}

/*
 * The sampler's interval, in whole ms: the time a link of @bps takes to
 * send SAMPLE_FRAMES full frames, at least 1 ms.  Finer than a few
 * frames shows nothing more (a queue changes by a frame at a time), and
 * costs the guest's CPU: at 1 ms on 10mbit links a TCG guest's rings
 * dropped a fifth of the events, and the samples were most of them.
 */
#define SAMPLE_FRAMES		4
#define SAMPLE_FRAME_BITS	(1514 * 8)

unsigned int accept_sample_ms(uint64_t bps)
{
	uint64_t ms;

	if (!bps)
		return 1;
	ms = (SAMPLE_FRAMES * SAMPLE_FRAME_BITS * 1000ULL + bps - 1) / bps;
	return ms < 1 ? 1 : ms > 1000 ? 1000 : (unsigned int)ms;
}

int accept_policy_up(struct accept_run *run, enum mp_expect_policy p)
{
	const struct accept_settings *s = run->s;
	char interval[16];
	/* With a report, every switch port is sampled (queue, bytes sent,
	 * CE marks) for its symmetry and its timeline. */
	const char *sample[] = {
		"telemetry", "sample", "--fabric", s->prefix, "--interval",
		interval, NULL,
	};

	snprintf(interval, sizeof(interval), "%ums",
		 accept_sample_ms(s->rate.bps));
	if (policy_fabric_up(run, p, s->prefix))
		return -1;
	return s->html && accept_exec(run, "telemetry sample", NULL, sample) ? -1 : 0;
}

/*
 * The control fabric's prefix: the run's and a 'c' (fabric names allow no
 * '-'), the 'c' in place of the last letter when the run's is as long as
 * a prefix can be, and a 'd' where that letter is a 'c'.
 */
void accept_control_prefix(const struct accept_run *run, char *buf,
			   size_t size)
{
	const char *prefix = run->s->prefix;
	size_t len = strlen(prefix), max = FABRIC_NAME_MAX - 3;
	size_t keep = len < max ? len : max - 1;

	snprintf(buf, size, "%.*s%c", (int)keep, prefix,
		 prefix[keep] == 'c' ? 'd' : 'c');
}

int accept_control_up(struct accept_run *run)
{
	char prefix[FABRIC_PREFIX_SIZE];

	accept_control_prefix(run, prefix, sizeof(prefix));
	return policy_fabric_up(run, run->policy, prefix);
}

/* `fabric down` of @prefix, whatever state the run is in. */
static void fabric_down(struct accept_run *run, const char *prefix)
{
	const char *args[] = { "fabric", "down", "--prefix", prefix, NULL };

	run->cleaning = true;
	accept_exec(run, "fabric down", NULL, args);
	run->cleaning = false;
}

/* The control is removed only where it was built (its state file is
 * there), so that a run without one says nothing of it. */
void accept_control_down(struct accept_run *run)
{
	char prefix[FABRIC_PREFIX_SIZE], path[256];

	accept_control_prefix(run, prefix, sizeof(prefix));
	if (mp_fabric_state_path(prefix, path, sizeof(path)) < (int)sizeof(path) &&
	    !access(path, F_OK))
		fabric_down(run, prefix);
}

void accept_policy_down(struct accept_run *run)
{
	accept_control_down(run);
	fabric_down(run, run->s->prefix);
}

int accept_capture_start(struct accept_run *run, struct accept_result *res,
			 struct accept_job *job)
{
	const struct accept_settings *s = run->s;
	char ready[4200];
	const char *args[] = {
		"telemetry", "record", "-o", res->capture, "--fabric", s->prefix,
		"--poll-hz", "0", "--ready-file", ready, NULL,
	};
	int i;

	res->capture[0] = 0;
	if (!s->html)
		return 0;
	snprintf(res->capture, sizeof(res->capture), "%s.%s.mpcp", s->html,
		 mp_expect_policy_name(res->policy));
	snprintf(ready, sizeof(ready), "%s.ready", res->capture);
	unlink(ready);
	memset(job, 0, sizeof(*job));
	if (accept_start(run, "telemetry record", args, job)) {
		res->capture[0] = 0;
		return -1;
	}
	for (i = 0; i < 200 && access(ready, F_OK); i++)
		usleep(50000);
	unlink(ready);
	return 0;
}

void accept_capture_stop(struct accept_run *run, struct accept_result *res,
			 struct accept_job *job)
{
	if (!res->capture[0])
		return;
	/* SIGTERM ends the file; a recorder that died left none worth it. */
	if (accept_stop(run, job))
		res->capture[0] = 0;
}
