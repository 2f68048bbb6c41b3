// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept: what each policy builds.  Every policy gets the same
 * fabric (fabric up with the run's sizes) and the same switch program
 * (bpf/ar.bpf.c, which also marks ECN), and differs only in its loops:
 *
 *   ecmp       switches hash (the kernel's multipath); hosts without mp0
 *              send on their plane-0 rail, as a host with one NIC a
 *              plane and no multi-plane driver does
 *   dcqcn      the same switches; mp0 spreads by hash over the planes
 *              and runs DCQCN: plain DCQCN on ECMP, the NIC's baseline
 *   ar         switches route adaptively (flowlets); hosts as ecmp
 *   ar+plb     and mp0 balances the planes (its default, flowlet)
 *   ar+plb+cc  and DCQCN in mp0
 *   bond       not built yet: the fabric makes rails, not bonds
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"

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
	if (p == MP_EXPECT_BOND)
		return "not built yet: 'fabric up' makes a rail per plane, not bonds";
	if (accept_policy_mp0(p) && access("/sys/module/mplane", F_OK))
		return "needs mp0, and mplane.ko is not loaded";
	if (uses_cc(p) && run->s->transport == 0)
		return "DCQCN paces RoCE QPs: give --transport roce";
	return NULL;
}

int accept_policy_up(struct accept_run *run, enum mp_expect_policy p)
{
	const struct accept_settings *s = run->s;
	char hosts[16], planes[16], leaves[16], spines[16];
	const char *args[32] = {
		"fabric", "up", "--force", "--quiet", "--prefix", s->prefix,
		"--hosts", hosts, "--planes", planes, "--leaves", leaves,
		"--spines", spines, "--rate", s->rate.text,
	};
	const char *attach[] = {
		"bpf", "attach", "--fabric", s->prefix, "--policy",
		switch_policy(p), NULL,
	};
	unsigned int n = 16;

	snprintf(hosts, sizeof(hosts), "%llu", (unsigned long long)s->hosts);
	snprintf(planes, sizeof(planes), "%llu", (unsigned long long)s->planes);
	snprintf(leaves, sizeof(leaves), "%llu", (unsigned long long)s->leaves);
	snprintf(spines, sizeof(spines), "%llu", (unsigned long long)s->spines);
	if (!accept_policy_mp0(p)) {
		args[n++] = "--no-mp0";
	} else {
		args[n++] = "--mp0";
		if (p == MP_EXPECT_DCQCN) {
			args[n++] = "--policy";
			args[n++] = "hash";
		}
		if (uses_cc(p)) {
			args[n++] = "--cc";
			args[n++] = "dcqcn";
		}
	}
	args[n] = NULL;
	accept_progress(run, "building the fabric");
	if (accept_exec(run, "fabric up", NULL, args))
		return -1;
	accept_progress(run, "the switches' program");
	return accept_exec(run, "bpf attach --fabric", NULL, attach) ? -1 : 0;
}

void accept_policy_down(struct accept_run *run)
{
	const char *args[] = { "fabric", "down", "--prefix", run->s->prefix, NULL };

	run->cleaning = true;
	accept_exec(run, "fabric down", NULL, args);
	run->cleaning = false;
}
