// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept resiliency: what faults cost, the way a person would
 * measure them: a permutation with links down, and a paced stream from h0
 * to h1 (`traffic recv` on h1, `traffic send` on h0) across a `fabric
 * fault` made a second in.
 *
 *   links_down_capacity  a permutation's goodput per rank with 10% of the
 *                      leaf-spine links down (rounded up, spread over
 *                      the planes, leaves and spines), over what the
 *                      links left up can carry per rank; the leaves
 *                      route around them (fabric fault --reroute), as
 *                      a routing protocol would
 *   links_down_vs_healthy  that, over the same permutation's goodput with
 *                      every link up, over the whole fabric's capacity:
 *                      1 when the fabric lost just the capacity that
 *                      went down, whatever the hosts can drive at all
 *                      (an emulated host's CPU is short of the links)
 *   flap_gap_ms        the longest delivery gap of any one of the
 *                      stream's flows on h1 across a flap of h0's
 *                      plane-0 host link (down for half a second),
 *                      beyond the flow's own spacing
 *   plane_loss_gap_ms  the same across the loss of plane 0: all its
 *                      leaves down, for the rest of the stream
 *
 * Both faults are made at the switches' end (fabric fault port, switch),
 * so that a host sees them as it would a cable or a switch that fails:
 * its NIC's carrier goes, the NIC itself stays up.  A host's own ports
 * taken down would tell every baseline at once (bonding, the kernel's
 * routes, mp0 alike), which no real fault does; bonding's link monitor
 * and a route's linkdown are measured as they are.  Every fault of a
 * step is scheduled from one start, a second ahead, so that it lands in
 * the stream whatever the commands before it cost (half a second each
 * in an emulated guest).
 *
 * A flow's longest gap is between two of its arrivals, the last before
 * the fault and the first after it, so it starts before the fault's own
 * timestamp and ends at delivery on the receiver: an upper bound of the
 * outage, not the time mp0 took once it was told.  A flow that lost
 * nothing and was held up nowhere still has a gap: its own spacing, the
 * stream's flows over its rate (8 / 1370 a second, 5.8 ms, at 10mbit),
 * which is no outage and would hide one shorter than itself; so the
 * figure is the gap beyond it, and one packet lost in the fault costs
 * its flow a whole spacing.  A sender's stall (a guest's vCPU
 * descheduled) would be in it too; the steps also give the raw gaps and
 * the gap the path added (max_excess_gap_us), without the sender's
 * stalls.
 *
 * Hosts without mp0 reach h1 by the kernel's multipath route over their
 * rails (ecmp, ar), which leaves a rail once its carrier is gone, or by
 * their bond (bond), whose link monitor looks every 100 ms.  When
 * nothing arrives after the fault, the gap is the time from the last
 * arrival to the stream's end, at least.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accept.h"

enum {
	LINKS_DOWN_CAPACITY, LINKS_DOWN_VS_HEALTHY, FLAP_GAP_MS,
	PLANE_LOSS_GAP_MS,
};

static const char *const resiliency_figures[] = {
	[LINKS_DOWN_CAPACITY] = "links_down_capacity",
	[LINKS_DOWN_VS_HEALTHY] = "links_down_vs_healthy",
	[FLAP_GAP_MS] = "flap_gap_ms",
	[PLANE_LOSS_GAP_MS] = "plane_loss_gap_ms",
	NULL,
};

#define STREAM_PORT	"9100"
#define STREAM_PPS	5000ULL		/* 200 us apart: a gap shows in it */
#define STREAM_WIRE	228ULL		/* bytes a packet on the wire */
#define STREAM_FLOWS	8
#define STREAM_SECONDS	"3"
#define STREAM_S	3.0
#define FAULT_AT	"1"
#define FAULT_LEAD_S	1.0		/* from now to the faults' --start */
#define MAX_FAULTS	(1 + 64)	/* a step's commands: every leaf */

/* A step's faults: each "fabric fault" command, NULL-terminated. */
struct fault_cmds {
	char start[32];				/* their --start */
	char target[MAX_FAULTS][32];
	const char *argv[MAX_FAULTS][16];
	unsigned int n;
};

static void fault_cmds_init(struct fault_cmds *fc)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(fc, 0, sizeof(*fc));
	snprintf(fc->start, sizeof(fc->start), "%.6f",
		 ts.tv_sec + ts.tv_nsec / 1e9 + FAULT_LEAD_S);
}

/* Add "fabric fault --at FAULT_AT --start S KIND TARGET ACTION..." */
static void fault_cmd(struct fault_cmds *fc, const char *prefix,
		      const char *kind, const char *target,
		      const char *const *action)
{
	const char **a = fc->argv[fc->n];
	unsigned int i = 0;

	snprintf(fc->target[fc->n], sizeof(fc->target[0]), "%s", target);
	a[i++] = "fabric";
	a[i++] = "fault";
	a[i++] = "--prefix";
	a[i++] = prefix;
	a[i++] = "--at";
	a[i++] = FAULT_AT;
	a[i++] = "--start";
	a[i++] = fc->start;
	a[i++] = kind;
	a[i++] = fc->target[fc->n];
	while (*action)
		a[i++] = *action++;
	a[i] = NULL;
	fc->n++;
}

/*
 * The longest gap of any one flow, in us: what the flow's owner waited
 * for.  The stream's own longest gap hides a flow that went dark while
 * the others went on arriving (a route that kept a dead rail for some of
 * its flows), so the figure is this one.  0 when the receiver gave none.
 */
static double worst_flow_gap_us(struct json_object *rx)
{
	struct json_object *flows, *flow, *gap;
	double worst = 0;
	size_t i;

	if (!json_object_object_get_ex(rx, "flows", &flows) ||
	    !json_object_is_type(flows, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(flows); i++) {
		flow = json_object_array_get_idx(flows, i);
		if (json_object_object_get_ex(flow, "max_gap_us", &gap) &&
		    json_object_get_double(gap) > worst)
			worst = json_object_get_double(gap);
	}
	return worst;
}

/* A gap of @gap_us beyond a spacing of @spacing_us, in ms: 0 when none
 * was given (NaN) or it was no longer. */
static double gap_beyond(double gap_us, double spacing_us)
{
	return gap_us > spacing_us ? (gap_us - spacing_us) / 1000 : 0;
}

/* One stream across one fault: its worst flow's longest gap beyond its
 * spacing, in ms, as the figure. */
static int stream_across(struct accept_run *run, struct accept_result *res,
			 const char *name, const struct fault_cmds *fc,
			 const char *const *undo, double *figure)
{
	const struct accept_settings *s = run->s;
	char rx_ns[48], tx_ns[48], ready[64], pps[24], flows[8];
	const char *dst = "10.99.1.1:" STREAM_PORT;
	const char *recv[] = {
		"-n", rx_ns, "traffic", "recv", "--port", STREAM_PORT,
		"--idle", "1", "--timeout", "30", "--ready-file", ready, NULL,
	};
	const char *send[] = {
		"-n", tx_ns, "traffic", "send", dst,
		"--rate", pps, "--duration", STREAM_SECONDS, "--flows", flows,
		"--size", "200", NULL,
	};
	struct accept_job rx = { .keep_stdout = true };
	struct json_object *step, *sent = NULL;
	double span, flow_gap_us, stream_gap_us, stream_beyond_ms, rate, spacing_us;
	bool recovered;
	unsigned int f;
	int err = 0, i;

	/* A quarter of a rail at most, so that no queue of its own grows:
	 * at 10mbit 1370 a second, 730 us apart. */
	rate = s->rate.bps / (4 * 8 * STREAM_WIRE) < STREAM_PPS ?
	       s->rate.bps / (4 * 8 * STREAM_WIRE) : STREAM_PPS;
	if (rate < 1)
		rate = 1;
	spacing_us = 1e6 * STREAM_FLOWS / rate;
	snprintf(pps, sizeof(pps), "%.0f", rate);
	snprintf(flows, sizeof(flows), "%d", STREAM_FLOWS);
	snprintf(rx_ns, sizeof(rx_ns), "%s-h1", s->prefix);
	snprintf(tx_ns, sizeof(tx_ns), "%s-h0", s->prefix);
	snprintf(ready, sizeof(ready), "/run/mplane/accept-%d.ready", getpid());
	unlink(ready);
	accept_progress(run, name);
	if (accept_start(run, "traffic recv", recv, &rx))
		return -1;
	for (i = 0; i < 100 && access(ready, F_OK); i++)
		usleep(50000);
	for (f = 0; f < fc->n && !err; f++)
		err = accept_exec(run, "fabric fault", NULL, fc->argv[f]);
	err = err || accept_exec(run, "traffic send", &sent, send);
	if (undo)
		err |= accept_exec(run, "fabric fault (undo)", NULL, undo);
	if (err) {
		json_object_put(sent);
		accept_stop(run, &rx);
		return -1;
	}
	if (accept_wait(run, &rx)) {
		json_object_put(sent);
		return -1;
	}
	/* Each gap beyond its own spacing: the flow's, and the stream's. */
	flow_gap_us = worst_flow_gap_us(rx.out);
	stream_gap_us = accept_json_num(rx.out, "max_gap_us", 0, NULL);
	*figure = gap_beyond(flow_gap_us, spacing_us);
	stream_beyond_ms = gap_beyond(stream_gap_us, spacing_us / STREAM_FLOWS);
	if (stream_beyond_ms > *figure)
		*figure = stream_beyond_ms;
	/* Nothing came after the fault: the gap lasted at least to the end
	 * of the stream, which the receiver's own longest gap cannot show. */
	span = accept_json_num(rx.out, "duration_s", 0, NULL);
	recovered = span > STREAM_S - 0.25;
	if (!recovered && (STREAM_S - span) * 1000 > *figure)
		*figure = (STREAM_S - span) * 1000;
	step = json_object_new_object();
	json_object_object_add(step, "step", json_object_new_string(name));
	json_object_object_add(step, "max_gap_us",
			       json_object_new_double(stream_gap_us));
	json_object_object_add(step, "max_flow_gap_us",
			       json_object_new_double(flow_gap_us));
	json_object_object_add(step, "flow_spacing_us",
			       json_object_new_double(spacing_us));
	json_object_object_add(step, "max_excess_gap_us", json_object_new_double(
		accept_json_num(rx.out, "max_excess_gap_us", 0, NULL)));
	json_object_object_add(step, "gap_p99_us", json_object_new_double(
		accept_json_num(rx.out, "gap_p99_us", 0, NULL)));
	json_object_object_add(step, "received", json_object_new_double(
		accept_json_num(rx.out, "received", 0, NULL)));
	json_object_object_add(step, "lost", json_object_new_double(
		accept_json_num(rx.out, "lost", 0, NULL)));
	/*
	 * What the sender sent, could not send (no route: the receiver
	 * counts it lost), and gave up after a stall longer than its burst
	 * (it did not get the CPU): a packet given up is neither received
	 * nor lost.
	 */
	json_object_object_add(step, "sent", json_object_new_double(
		accept_json_num(sent, "sent", 0, NULL)));
	json_object_object_add(step, "send_errors", json_object_new_double(
		accept_json_num(sent, "errors", 0, NULL)));
	json_object_object_add(step, "slipped", json_object_new_double(
		accept_json_num(sent, "slipped", 0, NULL)));
	json_object_object_add(step, "recovered", json_object_new_boolean(recovered));
	json_object_array_add(res->steps, step);
	json_object_put(rx.out);
	json_object_put(sent);
	return 0;
}

/* The i-th link to take down: spread over planes, then leaves, then
 * spines from the last. */
static void nth_link(const struct accept_settings *s, unsigned int i,
		     unsigned int *plane, unsigned int *leaf, unsigned int *spine)
{
	*plane = i % s->planes;
	*leaf = i / s->planes % s->leaves;
	*spine = s->spines - 1 - i / (s->planes * s->leaves) % s->spines;
}

/*
 * What a rank can send to the other half of the fabric with @down[] of
 * the leaf-spine links down: in each plane, the spines every pair of
 * leaves still shares, shared by a leaf's hosts, at most the host link.
 */
static double capacity_left(const struct accept_settings *s,
			    const unsigned char *down)
{
	unsigned int p, a, b, sp, common, least;
	/* Hosts a leaf: rail-optimised, H/L rounded up. */
	double hpl = (double)((s->hosts + s->leaves - 1) / s->leaves), sum = 0;

	for (p = 0; p < s->planes; p++) {
		least = s->spines;
		for (a = 0; a < s->leaves; a++)
			for (b = a + 1; b < s->leaves; b++) {
				common = 0;
				for (sp = 0; sp < s->spines; sp++)
					common += !down[(p * s->leaves + a) * s->spines + sp] &&
						  !down[(p * s->leaves + b) * s->spines + sp];
				if (common < least)
					least = common;
			}
		sum += s->leaves < 2 || least * s->rate.bps / hpl > s->rate.bps ?
		       (double)s->rate.bps : least * s->rate.bps / hpl;
	}
	return sum;
}

/* The permutation with every link up, over the whole fabric's capacity:
 * what these hosts drive on this fabric before anything fails. */
static int healthy(struct accept_run *run, struct accept_result *res,
		   double *figure)
{
	const struct accept_settings *s = run->s;
	unsigned char *none = calloc(s->planes * s->leaves * s->spines, 1);
	struct json_object *step = NULL;

	if (!none)
		return -1;
	accept_progress(run, "every link up");
	step = accept_busbw_step(run, res, "permutation",
				 "permutation, every link up",
				 capacity_left(s, none), figure);
	free(none);
	return step ? 0 : -1;
}

/* 10% of the leaf-spine links down, rerouted around: a permutation's
 * goodput over what is left; then everything back. */
static int links_down(struct accept_run *run, struct accept_result *res,
		      double *figure)
{
	const struct accept_settings *s = run->s;
	unsigned int total = s->planes * s->leaves * s->spines;
	unsigned int k = (total + 9) / 10, i, p, l, sp;
	unsigned char *down = calloc(total, 1);
	const char *clear[] = {
		"fabric", "fault", "--prefix", s->prefix, "--reroute", "clear", NULL,
	};
	char link[48];
	const char *args[] = {
		"fabric", "fault", "--prefix", s->prefix, "--reroute", link,
		"down", NULL,
	};
	struct json_object *step;
	double left;
	int err = 0;

	if (!down)
		return -1;
	accept_progress(run, "10% of the links down");
	for (i = 0; i < k && !err; i++) {
		nth_link(s, i, &p, &l, &sp);
		snprintf(link, sizeof(link), "p%ul%u:s%u", p, l, sp);
		down[(p * s->leaves + l) * s->spines + sp] = 1;
		err = accept_exec(run, "fabric fault down", NULL, args);
	}
	left = capacity_left(s, down);
	free(down);
	step = err ? NULL : accept_busbw_step(run, res, "permutation",
					      "permutation, 10% of the links down",
					      left, figure);
	if (step)
		json_object_object_add(step, "links_down", json_object_new_int(k));
	err |= accept_exec(run, "fabric fault clear", NULL, clear);
	return err || !step ? -1 : 0;
}

static int resiliency_measure(struct accept_run *run, struct accept_result *res)
{
	const char *p = run->s->prefix;
	static const char *const flap[] = {
		"flap", "--count", "1", "--period", "1", "--down-for", "0.5", NULL,
	};
	static const char *const down[] = { "down", NULL };
	const char *back[] = {
		"fabric", "fault", "--prefix", p, "clear", NULL,
	};
	struct fault_cmds *fc = malloc(sizeof(*fc));
	double whole = 0;
	char leaf[32];
	unsigned int l;
	int err;

	if (!fc)
		return -1;
	err = healthy(run, res, &whole);
	if (!err && !run->interrupted)
		err = links_down(run, res, &res->figure[LINKS_DOWN_CAPACITY]);
	if (!err && whole > 0)
		res->figure[LINKS_DOWN_VS_HEALTHY] =
			res->figure[LINKS_DOWN_CAPACITY] / whole;
	/* h0 is on leaf 0 of every plane: its plane-0 link's leaf end. */
	fault_cmds_init(fc);
	fault_cmd(fc, p, "port", "p0l0:h0", flap);
	if (!run->interrupted)
		err |= stream_across(run, res, "a flap of h0's plane-0 link", fc,
				     NULL, &res->figure[FLAP_GAP_MS]);
	fault_cmds_init(fc);
	for (l = 0; l < run->s->leaves && l + 1 < MAX_FAULTS; l++) {
		snprintf(leaf, sizeof(leaf), "p0l%u", l);
		fault_cmd(fc, p, "switch", leaf, down);
	}
	if (!run->interrupted)
		err |= stream_across(run, res, "the loss of plane 0", fc, back,
				     &res->figure[PLANE_LOSS_GAP_MS]);
	free(fc);
	return err ? -1 : 0;
}

const struct accept_class accept_resiliency = {
	.cls = MP_EXPECT_RESILIENCY,
	.figures = resiliency_figures,
	.steps = 6,
	.measure = resiliency_measure,
};
