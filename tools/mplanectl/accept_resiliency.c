// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept resiliency: what a fault costs a paced stream from h0
 * to h1, the way a person would measure it: `traffic recv` on h1, `traffic
 * send` on h0, and `fabric fault` a second in.
 *
 *   flap_gap_ms        the longest delivery gap on h1 across a flap of
 *                      h0's plane-0 host link (down for half a second)
 *   plane_loss_gap_ms  the same across the loss of plane 0, every link
 *                      of it, the hosts' rails included, for the rest of
 *                      the stream
 *
 * The longest gap is between two arrivals, the last before the fault and
 * the first after it, so it starts before the fault's own timestamp and
 * ends at delivery on the receiver: an upper bound of the outage, not
 * the time mp0 took once it was told.  A sender's stall (a guest's vCPU
 * descheduled) would be in it too; the steps also give the gap the path
 * added (max_excess_gap_us), without the sender's stalls.
 *
 * Hosts without mp0 (ecmp, ar) reach h1 by the kernel's multipath route
 * over their rails, which leaves a rail once its carrier is gone.  When
 * nothing arrives after the fault, the gap is the time from the last
 * arrival to the stream's end, at least.  Losing links inside a plane (the
 * paper's 10% of the links) needs the routes of every other leaf to
 * withdraw the failed link's spine, which the fabric has no control
 * plane for yet: not measured here.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"

enum { FLAP_GAP_MS, PLANE_LOSS_GAP_MS };

static const char *const resiliency_figures[] = {
	[FLAP_GAP_MS] = "flap_gap_ms",
	[PLANE_LOSS_GAP_MS] = "plane_loss_gap_ms",
	NULL,
};

#define STREAM_PORT	"9100"
#define STREAM_PPS	"5000"		/* 200 us apart: a gap shows in it */
#define STREAM_SECONDS	"3"
#define STREAM_S	3.0
#define FAULT_AT	"1"

/* One stream across one fault: its longest gap in ms as the figure. */
static int stream_across(struct accept_run *run, struct accept_result *res,
			 const char *name, const char *const *fault,
			 const char *const *undo, double *figure)
{
	const struct accept_settings *s = run->s;
	char rx_ns[48], tx_ns[48], ready[64];
	const char *dst = "10.99.1.1:" STREAM_PORT;
	const char *recv[] = {
		"-n", rx_ns, "traffic", "recv", "--port", STREAM_PORT,
		"--idle", "1", "--timeout", "30", "--ready-file", ready, NULL,
	};
	const char *send[] = {
		"-n", tx_ns, "traffic", "send", dst,
		"--rate", STREAM_PPS, "--duration", STREAM_SECONDS, "--flows", "8",
		"--size", "200", NULL,
	};
	struct accept_job rx = { .keep_stdout = true };
	struct json_object *step;
	bool recovered;
	double span;
	int err, i;

	snprintf(rx_ns, sizeof(rx_ns), "%s-h1", s->prefix);
	snprintf(tx_ns, sizeof(tx_ns), "%s-h0", s->prefix);
	snprintf(ready, sizeof(ready), "/run/mplane/accept-%d.ready", getpid());
	unlink(ready);
	accept_progress(run, name);
	if (accept_start(run, "traffic recv", recv, &rx))
		return -1;
	for (i = 0; i < 100 && access(ready, F_OK); i++)
		usleep(50000);
	err = accept_exec(run, "fabric fault", NULL, fault) ||
	      accept_exec(run, "traffic send", NULL, send);
	if (undo)
		err |= accept_exec(run, "fabric fault (undo)", NULL, undo);
	if (err) {
		accept_stop(run, &rx);
		return -1;
	}
	if (accept_wait(run, &rx))
		return -1;
	*figure = accept_json_num(rx.out, "max_gap_us", 0, NULL) / 1000;
	/* Nothing came after the fault: the gap lasted at least to the end
	 * of the stream, which the receiver's own longest gap cannot show. */
	span = accept_json_num(rx.out, "duration_s", 0, NULL);
	recovered = span > STREAM_S - 0.25;
	if (!recovered && (STREAM_S - span) * 1000 > *figure)
		*figure = (STREAM_S - span) * 1000;
	step = json_object_new_object();
	json_object_object_add(step, "step", json_object_new_string(name));
	json_object_object_add(step, "max_gap_us", json_object_new_double(
		accept_json_num(rx.out, "max_gap_us", 0, NULL)));
	json_object_object_add(step, "max_excess_gap_us", json_object_new_double(
		accept_json_num(rx.out, "max_excess_gap_us", 0, NULL)));
	json_object_object_add(step, "gap_p99_us", json_object_new_double(
		accept_json_num(rx.out, "gap_p99_us", 0, NULL)));
	json_object_object_add(step, "received", json_object_new_double(
		accept_json_num(rx.out, "received", 0, NULL)));
	json_object_object_add(step, "lost", json_object_new_double(
		accept_json_num(rx.out, "lost", 0, NULL)));
	json_object_object_add(step, "recovered", json_object_new_boolean(recovered));
	json_object_array_add(res->steps, step);
	json_object_put(rx.out);
	return 0;
}

static int resiliency_measure(struct accept_run *run, struct accept_result *res)
{
	const char *p = run->s->prefix;
	const char *flap[] = {
		"fabric", "fault", "--prefix", p, "--at", FAULT_AT, "h0:r0", "flap",
		"--count", "1", "--period", "1", "--down-for", "0.5", NULL,
	};
	const char *loss[] = {
		"fabric", "fault", "--prefix", p, "--at", FAULT_AT, "plane", "0",
		"down", NULL,
	};
	const char *back[] = {
		"fabric", "fault", "--prefix", p, "clear", NULL,
	};
	int err;

	err = stream_across(run, res, "a flap of h0's plane-0 link", flap, NULL,
			    &res->figure[FLAP_GAP_MS]);
	if (!run->interrupted)
		err |= stream_across(run, res, "the loss of plane 0", loss, back,
				     &res->figure[PLANE_LOSS_GAP_MS]);
	return err ? -1 : 0;
}

const struct accept_class accept_resiliency = {
	.cls = MP_EXPECT_RESILIENCY,
	.figures = resiliency_figures,
	.steps = 4,
	.measure = resiliency_measure,
};
