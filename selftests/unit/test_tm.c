// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_tm.c, the telemetry model behind 'telemetry
 * report', 'hist', 'top' and 'export', fed with synthetic capture frames:
 * bandwidth, symmetry (max/mean and CV worked out by hand), the slow
 * member's name, step times, a delivery gap, a failover and its phases,
 * an ECN storm, the sources' drop counts, and planes of mplane devices
 * in several network namespaces seen by one relay (the kmod source).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_tm.h"

/* unit.mk builds a test from its own file and tools/lib/mp_tm.c alone;
 * the model's other pieces come in here, and mp_event.c's output. */
#include "mp_event.c"
#include "mp_hist.c"
#include "mp_hist_sparse.c"
#include "mp_index.c"
#include "mp_out.c"
#include "mp_names.c"
#include "mp_print.c"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_mark_proto.h"

#define TEST_ARGS void **state __attribute__((unused))

#define US	1000ULL
#define MS	1000000ULL

enum { SRC_KMOD, SRC_L0, SRC_POLL, SRC_MARKS, SRC_H1 };

static struct mp_tm tm;

static void setup_tm(void)
{
	static const struct {
		unsigned int source;
		uint32_t ifindex;
		const char *name;
	} ifs[] = {
		{ SRC_KMOD, 5, "mp0" }, { SRC_L0, 3, "s1" }, { SRC_L0, 4, "s2" },
		{ SRC_H1, 9, "mp0" },
	};
	static const char *const labels[] = {
		[SRC_KMOD] = "dev/4026531840/mp0",
		[SRC_L0] = "fabric/f1/l0", [SRC_POLL] = "poll",
		[SRC_MARKS] = "marks", [SRC_H1] = "fabric/f1/h1/mp0",
	};
	struct mplane_capture_ifname ifn;
	unsigned int i;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_SOURCE, i, labels[i],
					     strlen(labels[i]) + 1), 0);
	for (i = 0; i < sizeof(ifs) / sizeof(ifs[0]); i++) {
		memset(&ifn, 0, sizeof(ifn));
		ifn.ifindex = ifs[i].ifindex;
		strcpy(ifn.name, ifs[i].name);
		assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_IFNAME,
					     ifs[i].source, &ifn, sizeof(ifn)), 0);
	}
}

static void ev(unsigned int source, unsigned int type, uint32_t ifindex,
	       uint16_t plane, uint64_t ts, uint64_t v0, uint64_t v1,
	       uint64_t v2, uint64_t v3)
{
	struct mplane_event e = {
		.hdr = { .version = MPLANE_EVENT_VERSION, .type = type,
			 .len = sizeof(e), .plane = plane,
			 .ifindex = ifindex, .ts_ns = ts },
		.val = { v0, v1, v2, v3 },
	};

	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT, source, &e,
				     sizeof(e)), 0);
}

static void plane_sample(uint16_t plane, uint64_t ts, uint64_t q,
			 uint64_t bytes, uint64_t ce)
{
	ev(SRC_KMOD, MPLANE_EV_PLANE_SAMPLE, 5, plane, ts, q, bytes, ce, 0);
}

static void port_sample(uint32_t ifindex, uint64_t ts, uint64_t q,
			uint64_t bytes, uint64_t ce)
{
	ev(SRC_L0, MPLANE_EV_PORT_SAMPLE, ifindex, MPLANE_EVENT_NO_PLANE, ts,
	   q, bytes, ce, bytes / 1000);
}

static const struct mp_tm_entity *entity_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < tm.nents; i++)
		if (!strcmp(tm.ents[i].name, name))
			return &tm.ents[i];
	fail_msg("no entity %s", name);
	return NULL;
}

static int group_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < tm.ngroups; i++)
		if (!strcmp(tm.groups[i].name, name))
			return i;
	fail_msg("no group %s", name);
	return -1;
}

static void assert_near(double got, double want, double rel)
{
	double d = got > want ? got - want : want - got;

	if (d > rel * (want > 0 ? want : -want) + 1e-9)
		fail_msg("%.6g, want %.6g (within %g)", got, want, rel);
}

/*
 * 1 s of samples every 100 us: plane0 sends 1000 bytes a sample (80
 * Mbit/s), plane1 500 (40 Mbit/s).  Mean 60 Mbit/s, max/mean 80/60 =
 * 1.333, CV = 20/60 = 0.333; plane1 is slow (60 > 1.25 * 40).  The two
 * uplinks of l0 (the group "l0/s*") send alike: max/mean 1, CV 0, no flag.
 */
static void test_bandwidth_symmetry(TEST_ARGS)
{
	const struct mp_tm_entity *p0, *p1, *s1;
	struct mp_tm_symmetry sym;
	uint64_t i;

	setup_tm();
	for (i = 0; i <= 10000; i++) {
		plane_sample(0, i * 100 * US, i % 100 * 10, i * 1000, 0);
		plane_sample(1, i * 100 * US, 0, i * 500, 0);
		port_sample(3, i * 100 * US, 2000, i * 1000, 0);
		port_sample(4, i * 100 * US, 0, i * 1000, 0);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.nents, 4);
	p0 = entity_named("mp0/plane0");
	p1 = entity_named("mp0/plane1");
	s1 = entity_named("l0/s1");
	assert_near(mp_tm_bw(p0, MP_TM_BW_MEAN), 80e6, 1e-9);
	assert_near(mp_tm_bw(p1, MP_TM_BW_MEAN), 40e6, 1e-9);
	assert_near(mp_tm_bw(p0, MP_TM_BW_WINDOW), 80e6, 1e-9);
	assert_true(mp_tm_bw(p0, MP_TM_BW_BEFORE) < 0);
	assert_int_equal(p0->tx_bytes.total, 10000 * 1000);
	/* Queue: 0, 10, .. 990 alike; the highest is 990. */
	assert_int_equal(mp_tm_queue(&tm, p0)->count, 10001);
	assert_int_equal(mp_tm_queue(&tm, p0)->max, 990);
	assert_true(mp_hist_quantile(mp_tm_queue(&tm, p0), 0.5) >= 490);
	assert_true(mp_hist_quantile(mp_tm_queue(&tm, p0), 0.5) <= 490 + 490 / 64);
	assert_int_equal(mp_tm_queue(&tm, s1)->max, 2000);

	mp_tm_symmetry(&tm, group_of("mp0"), MP_TM_BW_MEAN, &sym);
	assert_int_equal(sym.members, 2);
	assert_near(sym.mean_bps, 60e6, 1e-9);
	assert_near(sym.max_mean, 4.0 / 3, 1e-9);
	assert_near(sym.cv, 1.0 / 3, 1e-9);
	assert_true(sym.flagged);
	assert_int_equal(sym.slow, 1);
	assert_true(mp_tm_slow(&tm, &sym, p1, MP_TM_BW_MEAN));
	assert_false(mp_tm_slow(&tm, &sym, p0, MP_TM_BW_MEAN));

	mp_tm_symmetry(&tm, group_of("l0/s*"), MP_TM_BW_MEAN, &sym);
	assert_int_equal(sym.members, 2);
	assert_near(sym.max_mean, 1, 1e-9);
	assert_near(sym.cv, 0, 1e-9);
	assert_false(sym.flagged);
	/* Steady traffic every 100 us: that is every gap. */
	assert_int_equal(tm.gaps.max, 100 * US);
	assert_int_equal(tm.nanoms, 0);
	mp_tm_free(&tm);
}

/* A threshold of 1.5 lets the same planes pass. */
static void test_threshold_option(TEST_ARGS)
{
	struct mp_tm_opts o = { .sym_threshold = 1.5 };
	struct mp_tm_symmetry sym;
	uint64_t i;

	setup_tm();
	tm.o.sym_threshold = o.sym_threshold;
	for (i = 0; i < 100; i++) {
		plane_sample(0, i * 100 * US, 0, i * 1000, 0);
		plane_sample(1, i * 100 * US, 0, i * 500, 0);
	}
	mp_tm_finish(&tm);
	mp_tm_symmetry(&tm, group_of("mp0"), MP_TM_BW_MEAN, &sym);
	assert_false(sym.flagged);
	assert_int_equal(sym.slow, 0);
	mp_tm_free(&tm);
}

/* Steps of one pid 10, 10 and 15 ms apart, of another 10 ms; ends of
 * steps and user marks are not steps. */
static void test_steps(TEST_ARGS)
{
	static const uint64_t a[] = { 0, 10, 20, 35 }, b[] = { 1, 11 };
	unsigned int i;

	setup_tm();
	for (i = 0; i < 4; i++)
		ev(SRC_MARKS, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		   a[i] * MS, i, 7, MPLANE_MARK_STEP, 0);
	for (i = 0; i < 2; i++) {
		ev(SRC_MARKS, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		   b[i] * MS, i, 8, MPLANE_MARK_STEP, 0);
		ev(SRC_MARKS, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		   b[i] * MS + 5 * MS, i, 8, MPLANE_MARK_STEP_END, 0);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.steps.count, 4);
	assert_int_equal(tm.steps.max, 15 * MS);
	assert_true(mp_hist_quantile(&tm.steps, 0.5) >= 10 * MS);
	assert_true(mp_hist_quantile(&tm.steps, 0.5) <= 10 * MS + 10 * MS / 64);
	assert_int_equal(tm.npids, 2);
	/* Each process has its own: pid 7's three, pid 8's none. */
	assert_int_equal(tm.pids[0].pid, 7);
	assert_int_equal(tm.pids[0].hist.count, 3);
	assert_int_equal(tm.pids[0].hist.max, 15 * MS);
	assert_int_equal(tm.pids[1].hist.count, 1);
	/* The same pid on another source is another process. */
	ev(SRC_L0, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE, 40 * MS, 0, 7,
	   MPLANE_MARK_STEP, 0);
	mp_tm_finish(&tm);
	assert_int_equal(tm.npids, 3);
	assert_int_equal(tm.pids[2].source, SRC_L0);
	assert_int_equal(tm.pids[0].hist.count, 3);
	mp_tm_free(&tm);
}

/*
 * 3000 processes, each marking two steps 1 ms apart, as every 'mark step'
 * through 'mark serve' is a process of its own: the model times the
 * 1024 marked last, each with its one step, counts the 1976 it let go,
 * and its own histogram keeps all 3000 steps.
 */
static void test_steppers_cap(TEST_ARGS)
{
	unsigned int i, newest = 0, oldest = 0;

	setup_tm();
	for (i = 0; i < 3000; i++) {
		ev(SRC_MARKS, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		   (2 * i + 1) * MS, 0, 1000 + i, MPLANE_MARK_STEP, 0);
		ev(SRC_MARKS, MPLANE_EV_STEP_MARK, 0, MPLANE_EVENT_NO_PLANE,
		   (2 * i + 2) * MS, 1, 1000 + i, MPLANE_MARK_STEP, 0);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.npids, MP_TM_STEPPERS_MAX);
	assert_int_equal(tm.steppers_evicted, 3000 - MP_TM_STEPPERS_MAX);
	assert_int_equal(tm.steps.count, 3000);
	for (i = 0; i < tm.npids; i++) {
		assert_int_equal(tm.pids[i].hist.count, 1);
		assert_true(tm.pids[i].pid >= 1000 + 3000 - MP_TM_STEPPERS_MAX);
		newest += tm.pids[i].pid == 1000 + 2999;
		oldest += tm.pids[i].pid == 1000;
	}
	assert_int_equal(newest, 1);
	assert_int_equal(oldest, 0);
	mp_tm_free(&tm);
}

/*
 * Collective iterations: begin to end of the same iteration of a rank
 * of a job is a step (4 and 6 ms for job 100's rank 0, 5 ms for job
 * 200's rank 0, which shares the rank number but not the job); an end
 * without its begin, or of another iteration, is none.
 */
static void test_collective_steps(TEST_ARGS)
{
	static const struct {
		uint32_t job;
		uint64_t ms, iter, rank, kind;
	} marks[] = {
		{ 100, 10, 0, 0, MPLANE_MARK_STEP },
		{ 200, 11, 0, 0, MPLANE_MARK_STEP },
		{ 100, 14, 0, 0, MPLANE_MARK_STEP_END },
		{ 200, 16, 0, 0, MPLANE_MARK_STEP_END },
		{ 100, 20, 1, 0, MPLANE_MARK_STEP },
		{ 100, 26, 1, 0, MPLANE_MARK_STEP_END },
		/* Ends that match no begin. */
		{ 100, 27, 1, 0, MPLANE_MARK_STEP_END },
		{ 100, 30, 2, 0, MPLANE_MARK_STEP },
		{ 100, 31, 3, 0, MPLANE_MARK_STEP_END },
		{ 300, 32, 0, 5, MPLANE_MARK_STEP_END },
	};
	unsigned int i;

	setup_tm();
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		ev(SRC_MARKS, MPLANE_EV_COLLECTIVE, marks[i].job,
		   MPLANE_EVENT_NO_PLANE, marks[i].ms * MS, marks[i].iter,
		   marks[i].rank, marks[i].kind, 4096);
	mp_tm_finish(&tm);
	assert_int_equal(tm.steps.count, 3);
	assert_int_equal(tm.steps.max, 6 * MS);
	assert_true(mp_hist_quantile(&tm.steps, 0.5) >= 5 * MS);
	assert_true(mp_hist_quantile(&tm.steps, 0.5) <= 5 * MS + 5 * MS / 64);
	assert_int_equal(tm.nranks, 2);
	assert_int_equal(tm.npids, 0);
	/* Per rank of each job: job 100's two, job 200's one. */
	assert_int_equal(tm.ranks[0].job, 100);
	assert_int_equal(tm.ranks[0].hist.count, 2);
	assert_int_equal(tm.ranks[0].hist.max, 6 * MS);
	assert_int_equal(tm.ranks[1].job, 200);
	assert_int_equal(tm.ranks[1].hist.count, 1);
	assert_int_equal(tm.ranks[1].source, SRC_MARKS);
	assert_string_equal(mp_event_val_name(MPLANE_EV_COLLECTIVE, 0),
			    "iteration");
	assert_string_equal(mp_event_val_name(MPLANE_EV_COLLECTIVE, 3), "bytes");
	mp_tm_free(&tm);
}

/*
 * tx_bytes grows every 100 us but stalls from 50 ms to 55 ms: one gap of
 * 5.1 ms (last increase at 50 ms, next at 55.1 ms).  The idle tail after
 * 80 ms and the polled counter's idle head add none.
 */
static void test_gap(TEST_ARGS)
{
	const struct {
		uint32_t id, kind, ifindex;
		char name[16];
	} cn = { 1, MPLANE_COUNTER_NETDEV, 2, "rail0/tx_bytes" };
	uint64_t i, bytes = 0, t;

	setup_tm();
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_COUNTER_NAME, SRC_POLL,
				     &cn, sizeof(cn)), 0);
	for (i = 0; i <= 1000; i++) {
		t = i * 100 * US;
		if ((t <= 50 * MS || t > 55 * MS) && t <= 80 * MS)
			bytes += 1500;
		plane_sample(0, t, 0, bytes, 0);
		/* The counter stays at 0 for 20 ms, then counts each ms. */
		if (i % 10 == 0) {
			struct mplane_event e = {
				.hdr = { .version = MPLANE_EVENT_VERSION,
					 .type = MPLANE_EV_COUNTER,
					 .len = sizeof(e), .flags = 1,
					 .plane = MPLANE_EVENT_NO_PLANE,
					 .ts_ns = t },
				.val = { t > 20 * MS ? t : 0,
					 MPLANE_COUNTER_NETDEV },
			};

			assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT,
						     SRC_POLL, &e,
						     sizeof(e)), 0);
		}
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.gaps.max, 5100 * US);
	assert_int_equal(entity_named("mp0/plane0")->tx_bytes.max_gap_ns, 5100 * US);
	/* 750 increases of the plane, 80 of the counter (21 .. 100 ms,
	 * from its second sample on): gaps between them. */
	assert_int_equal(tm.gaps.count, 750 - 1 + 80 - 1);
	/* And each series' own: the plane's and the counter's. */
	assert_int_equal(entity_named("mp0/plane0")->gaps.count, 750 - 1);
	assert_int_equal(entity_named("mp0/plane0")->gaps.max, 5100 * US);
	assert_int_equal(entity_named("rail0/tx_bytes")->gaps.count, 80 - 1);
	assert_int_equal(entity_named("rail0/tx_bytes")->tx_bytes.max_gap_ns, 1 * MS);
	assert_int_equal(group_of("poll rails"), entity_named("rail0/tx_bytes")->group);
	mp_tm_free(&tm);
}

/*
 * Two planes at 1000 bytes every 100 us; at 50 ms plane1 goes down and
 * mp0 fails over: plane0 then carries 2000 a sample.  Two anomalies, the
 * first at 50.05 ms naming mp0/plane1; before (to the sample at 50 ms):
 * 80 and 80 Mbit/s, after: 160 and 0.  The failover record arrives before samples older than it,
 * as it may from another ring.
 */
static void test_failover(TEST_ARGS)
{
	const struct mp_tm_entity *p0, *p1;
	uint64_t i, b0 = 0, b1 = 0, t;

	setup_tm();
	for (i = 0; i <= 1000; i++) {
		t = i * 100 * US;
		if (t == 49 * MS) {
			ev(SRC_KMOD, MPLANE_EV_PLANE_STATE, 5, 1, 50050 * US,
			   MPLANE_PLANE_DOWN, MPLANE_PLANE_UP,
			   MPLANE_REASON_CARRIER, 7);
			ev(SRC_KMOD, MPLANE_EV_FAILOVER, 5, 1, 50060 * US,
			   MPLANE_REASON_CARRIER, 1, 0, 0);
		}
		b0 += t <= 50 * MS ? 1000 : 2000;
		b1 += t <= 50 * MS ? 1000 : 0;
		plane_sample(0, t, 0, b0, 0);
		plane_sample(1, t, 0, b1, 0);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.nanoms, 2);
	assert_int_equal(tm.anoms[0].type, MP_TM_AN_PLANE_DOWN);
	assert_int_equal(tm.anoms[0].ts_ns, 50050 * US);
	assert_string_equal(tm.ents[tm.anoms[0].entity].name, "mp0/plane1");
	assert_int_equal(tm.anoms[1].type, MP_TM_AN_FAILOVER);
	assert_int_equal(tm.fail_ts, 50050 * US);
	p0 = entity_named("mp0/plane0");
	p1 = entity_named("mp0/plane1");
	assert_near(mp_tm_bw(p0, MP_TM_BW_BEFORE), 80e6, 1e-9);
	assert_near(mp_tm_bw(p1, MP_TM_BW_BEFORE), 80e6, 1e-9);
	assert_near(mp_tm_bw(p0, MP_TM_BW_AFTER), 160e6, 1e-9);
	assert_near(mp_tm_bw(p1, MP_TM_BW_AFTER), 0, 1e-9);
	assert_string_equal(mp_tm_state_name(p1), "down");
	assert_string_equal(mp_tm_state_name(p0), "-");
	assert_int_equal(tm.evq.late, 0);
	mp_tm_free(&tm);
}

/*
 * A fault from the marks ring is an anomaly of no entity that keeps its
 * event, and the first failure is still the first effect: the port going
 * down 40 us after the fault that took it down; the up after it is no
 * failure.  It is not an entity either: ports come from their sources.
 */
static void test_fault_cause(TEST_ARGS)
{
	const uint64_t spec = MPLANE_FAULT_SPEC(MPLANE_FAULT_LINK,
		MPLANE_FAULT_VIA_ADMIN, MPLANE_FAULT_ROLE_LEAF, 0,
		MPLANE_FAULT_ROLE_SPINE, 1);
	setup_tm();
	port_sample(3, 1 * MS, 0, 1000, 0);
	ev(SRC_MARKS, MPLANE_EV_FAULT, 3, 0, 10 * MS, MPLANE_FAULT_DOWN, 0, 0,
	   spec);
	ev(SRC_L0, MPLANE_EV_PORT_STATE, 3, MPLANE_EVENT_NO_PLANE,
	   10 * MS + 40 * US, 0, 1, 0, 0);
	ev(SRC_MARKS, MPLANE_EV_FAULT, 3, 0, 20 * MS, MPLANE_FAULT_UP, 0, 1,
	   spec);
	ev(SRC_L0, MPLANE_EV_PORT_STATE, 3, MPLANE_EVENT_NO_PLANE,
	   20 * MS + 40 * US, 1, 0, 0, 0);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nanoms, 3);
	assert_int_equal(tm.anoms[0].type, MP_TM_AN_FAULT);
	assert_int_equal(tm.anoms[0].entity, -1);
	assert_int_equal(tm.anoms[0].value, MPLANE_FAULT_DOWN);
	assert_int_equal(tm.anoms[0].fault.val[3], spec);
	assert_int_equal(tm.anoms[0].fault.hdr.ts_ns, 10 * MS);
	assert_int_equal(tm.anoms[1].type, MP_TM_AN_PORT_DOWN);
	assert_string_equal(tm.ents[tm.anoms[1].entity].name, "l0/s1");
	assert_int_equal(tm.anoms[2].type, MP_TM_AN_FAULT);
	assert_int_equal(tm.anoms[2].value, MPLANE_FAULT_UP);
	assert_int_equal(tm.anoms[2].fault.val[2], 1);
	assert_int_equal(tm.fail_ts, 10 * MS + 40 * US);
	assert_string_equal(mp_tm_anomaly_name(MP_TM_AN_FAULT), "fault");
	/* l0/s1 only: the marks ring's ifindex 3 is no port of its own. */
	assert_int_equal(tm.nents, 1);
	assert_int_equal(tm.ents[0].source, SRC_L0);
	assert_int_equal(tm.sources[SRC_MARKS].by_type[MPLANE_EV_FAULT], 2);
	mp_tm_free(&tm);
}

/* 20 CE marks every 100 us for 30 ms is 200000/s: one storm, not one per
 * window; ECN_MARK and CNP events are counted apart. */
static void test_ecn_storm(TEST_ARGS)
{
	const struct mp_tm_entity *s1;
	uint64_t i, t;

	setup_tm();
	for (i = 0; i <= 1000; i++) {
		t = i * 100 * US;
		port_sample(3, t, 0, i * 1000, t < 20 * MS ? 0 :
			    t < 50 * MS ? (i - 200) * 20 : 6000);
	}
	for (i = 0; i < 5; i++) {
		ev(SRC_L0, MPLANE_EV_ECN_MARK, 3, MPLANE_EVENT_NO_PLANE,
		   60 * MS + i, 1000, 100, 0, 0);
		ev(SRC_L0, MPLANE_EV_CNP, 3, MPLANE_EVENT_NO_PLANE,
		   60 * MS + i, 1, 0, 0, 0);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.nanoms, 1);
	assert_int_equal(tm.anoms[0].type, MP_TM_AN_ECN_STORM);
	/* 1000 marks (1e5/s over 10 ms) are reached 5 ms in. */
	assert_true(tm.anoms[0].ts_ns >= 25 * MS &&
		    tm.anoms[0].ts_ns <= 25 * MS + 100 * US);
	/* A storm is no failure: no phases. */
	assert_int_equal(tm.fail_ts, 0);
	s1 = entity_named("l0/s1");
	assert_int_equal(s1->ecn.total, 6000);
	assert_int_equal(s1->ecn_events, 5);
	assert_int_equal(s1->cnp_events, 5);
	mp_tm_free(&tm);
}

/* Each source's own counts; two hosts' mp0 told apart by node. */
static void test_sources_names(TEST_ARGS)
{
	struct mplane_capture_stats st = { .produced = 110, .dropped = 10,
					   .recorded = 100 };

	setup_tm();
	plane_sample(0, 1000, 0, 0, 0);
	ev(SRC_H1, MPLANE_EV_PLANE_SAMPLE, 9, 0, 2000, 0, 0, 0, 0);
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_STATS, SRC_KMOD, &st,
				     sizeof(st)), 0);
	mp_tm_finish(&tm);
	assert_true(tm.sources[SRC_KMOD].has_stats);
	assert_int_equal(tm.sources[SRC_KMOD].stats.dropped, 10);
	assert_int_equal(tm.sources[SRC_KMOD].by_type[MPLANE_EV_PLANE_SAMPLE], 1);
	assert_false(tm.sources[SRC_L0].has_stats);
	entity_named("ns4026531840:mp0/plane0");
	entity_named("h1:mp0/plane0");
	assert_int_equal(tm.first_ts, 1000);
	assert_int_equal(tm.last_ts, 2000);
	mp_tm_free(&tm);
}

/* Frames of the kmod relay's source: its label, namespaces, names. */
static void source_frame(unsigned int source, const char *label)
{
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_SOURCE, source, label,
				     strlen(label) + 1), 0);
}

static void netns_frame(unsigned int source, uint32_t inode,
			const char *name)
{
	char buf[sizeof(struct mplane_capture_netns) + 32] = {};
	struct mplane_capture_netns *n = (void *)buf;

	n->inode = inode;
	strcpy(n->name, name);
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_NETNS, source, n,
				     sizeof(*n) + strlen(name) + 1), 0);
}

/* @len: sizeof(struct mplane_capture_ifname), or 20 as older writers. */
static void ifname_frame(unsigned int source, uint32_t netns,
			 uint32_t ifindex, const char *name, size_t len)
{
	struct mplane_capture_ifname ifn = {
		.ifindex = ifindex, .netns = netns,
	};

	strcpy(ifn.name, name);
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_IFNAME, source, &ifn, len),
			 0);
}

static void plane_sample_ns(unsigned int source, uint32_t netns,
			    uint32_t ifindex, uint16_t plane, uint64_t ts,
			    uint64_t bytes)
{
	struct mplane_event e = {
		.hdr = { .version = MPLANE_EVENT_VERSION,
			 .type = MPLANE_EV_PLANE_SAMPLE, .len = sizeof(e),
			 .plane = plane, .ifindex = ifindex, .flags = netns,
			 .ts_ns = ts },
		.val = { 0, bytes, 0, 0 },
	};

	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT, source, &e,
				     sizeof(e)), 0);
}

static unsigned int group_members(const char *name)
{
	struct mp_tm_symmetry sym;

	mp_tm_symmetry(&tm, group_of(name), MP_TM_BW_MEAN, &sym);
	return sym.members;
}

/*
 * One relay, four namespaces, mp0 in each: the recorder's own (inode
 * 1000, ifindex 5), two named ones (2001 and 2002, both ifindex 7: the
 * same ifindex must not merge them) and two unnamed ones (3003, 3004,
 * ifindex 7) that fall back to their inode.  Each plane sends its own
 * rate, so a merged pair would show in the bandwidth.
 */
static void test_netns_planes(TEST_ARGS)
{
	static const struct {
		uint32_t netns, ifindex;
		uint16_t plane;
		uint64_t per_sample;	/* bytes a 1 ms sample */
		const char *name;
	} p[] = {
		{ 1000, 5, 0, 1000, "mp0/plane0" },
		{ 2001, 7, 0, 2000, "mpf-h1:mp0/plane0" },
		{ 2001, 7, 1, 3000, "mpf-h1:mp0/plane1" },
		{ 2002, 7, 0, 4000, "mpf-h2:mp0/plane0" },
		{ 2002, 7, 1, 5000, "mpf-h2:mp0/plane1" },
		{ 3003, 7, 0, 6000, "ns3003:mp0/plane0" },
		{ 3004, 7, 0, 7000, "ns3004:mp0/plane0" },
	};
	const struct mp_tm_entity *e;
	unsigned int i, k;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	source_frame(0, "kmod");
	netns_frame(0, 1000, "");
	netns_frame(0, 2001, "mpf-h1");
	netns_frame(0, 2002, "mpf-h2");
	ifname_frame(0, 0, 5, "mp0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 0, 7, "rail0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 2001, 7, "mp0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 2002, 7, "mp0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 3003, 7, "mp0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 3004, 7, "mp0", sizeof(struct mplane_capture_ifname));
	for (k = 0; k <= 1000; k++)
		for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
			plane_sample_ns(0, p[i].netns, p[i].ifindex, p[i].plane,
					k * MS, k * p[i].per_sample);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nents, sizeof(p) / sizeof(p[0]));
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		e = entity_named(p[i].name);
		assert_int_equal(e->netns, p[i].netns);
		assert_string_equal(e->dev, "mp0");
		/* The node is the namespace: export's labels stay unique. */
		if (i)
			assert_int_equal(strncmp(e->node, p[i].name,
						 strlen(e->node)), 0);
		else
			assert_string_equal(e->node, "kmod");
		/* bytes per ms * 8000: bits per second */
		assert_near(mp_tm_bw(e, MP_TM_BW_MEAN), p[i].per_sample * 8000.,
			    1e-9);
	}
	/* One group per device: (netns, ifindex), not the ifindex alone. */
	assert_int_equal(tm.ngroups, 5);
	assert_int_equal(group_members("mp0"), 1);
	assert_int_equal(group_members("mpf-h1:mp0"), 2);
	assert_int_equal(group_members("mpf-h2:mp0"), 2);
	assert_int_equal(group_members("ns3003:mp0"), 1);
	assert_int_equal(group_members("ns3004:mp0"), 1);
	assert_int_not_equal(entity_named("mpf-h1:mp0/plane0")->group,
			     entity_named("mpf-h2:mp0/plane0")->group);
	mp_tm_free(&tm);
}

/*
 * An older capture: 20-byte ifname frames and no CF_NETNS.  hdr.flags
 * then is no namespace (older relays put the load score there): planes
 * are keyed and named as before, one entity however flags varies.
 */
static void test_old_capture_names(TEST_ARGS)
{
	const struct mp_tm_entity *e;
	uint64_t k;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	source_frame(0, "kmod");
	ifname_frame(0, 0, 5, "mp0", 20);
	ifname_frame(0, 0, 6, "rail0", 20);
	for (k = 0; k <= 100; k++) {
		plane_sample_ns(0, k % 7, 5, 0, k * MS, k * 1000);
		plane_sample_ns(0, k % 5, 5, 1, k * MS, k * 1000);
	}
	mp_tm_finish(&tm);
	assert_int_equal(tm.nents, 2);
	e = entity_named("mp0/plane0");
	assert_int_equal(e->netns, 0);
	assert_near(mp_tm_bw(e, MP_TM_BW_MEAN), 8e6, 1e-9);
	entity_named("mp0/plane1");
	assert_int_equal(tm.ngroups, 1);
	assert_int_equal(group_members("mp0"), 2);
	/* A frame cut shorter than ifindex and name is no name. */
	ifname_frame(0, 0, 5, "bad", 19);
	tm.dirty = true;
	mp_tm_refresh(&tm);
	entity_named("mp0/plane0");
	mp_tm_free(&tm);
}

/* A RATE_UPDATE of the kmod relay: @netns in hdr.flags. */
static void rate_ev(unsigned int source, uint32_t netns, uint32_t ifindex,
		    uint16_t plane, uint64_t ts, uint32_t qpn, uint64_t rate,
		    uint64_t old, uint64_t cause)
{
	struct mplane_event e = {
		.hdr = { .version = MPLANE_EVENT_VERSION,
			 .type = MPLANE_EV_RATE_UPDATE, .len = sizeof(e),
			 .plane = plane, .ifindex = ifindex, .flags = netns,
			 .ts_ns = ts },
		.val = { qpn, rate, old, cause },
	};

	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT, source, &e,
				     sizeof(e)), 0);
}

static const struct mp_tm_qp *find_qp(const char *name)
{
	unsigned int i;

	for (i = 0; i < tm.nqps; i++)
		if (!strcmp(tm.qps[i].name, name))
			return &tm.qps[i];
	fail_msg("no QP %s", name);
	return NULL;
}

/*
 * DCQCN's updates of three QPs, as mplane.ko traces them: QP 17 of our
 * mp0 is cut twice by CNPs on plane 1 (10 -> 5 -> 2.5 Gbit/s) and
 * recovers halfway; QP 17 of mpf-h1's mp0 (same qpn and ifindex, another
 * namespace) only increases; QP 9 of ours is cut once, on plane 0.  The
 * latest rate, old rate and cause of each, its cuts and updates, and
 * the cuts on the planes whose CNPs made them.  A RATE_UPDATE makes no
 * port entity: only cuts name a plane.
 */
static void test_qp_rates(TEST_ARGS)
{
	const struct mp_tm_qp *q;
	const struct mp_tm_entity *e;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	source_frame(0, "kmod");
	netns_frame(0, 1000, "");
	netns_frame(0, 2001, "mpf-h1");
	ifname_frame(0, 0, 5, "mp0", sizeof(struct mplane_capture_ifname));
	ifname_frame(0, 2001, 5, "mp0", sizeof(struct mplane_capture_ifname));
	plane_sample_ns(0, 1000, 5, 0, 1 * MS, 1000);
	rate_ev(0, 1000, 5, 1, 2 * MS, 17, 5000000, 10000000, MPLANE_RATE_CUT);
	rate_ev(0, 2001, 5, MPLANE_EVENT_NO_PLANE, 3 * MS, 17, 1100000,
		1000000, MPLANE_RATE_ADDITIVE);
	rate_ev(0, 1000, 5, 1, 4 * MS, 17, 2500000, 5000000, MPLANE_RATE_CUT);
	rate_ev(0, 1000, 5, 0, 5 * MS, 9, 500000, 1000000, MPLANE_RATE_CUT);
	rate_ev(0, 2001, 5, MPLANE_EVENT_NO_PLANE, 6 * MS, 17, 1200000,
		1100000, MPLANE_RATE_HYPER);
	rate_ev(0, 1000, 5, MPLANE_EVENT_NO_PLANE, 7 * MS, 17, 3750000,
		2500000, MPLANE_RATE_FAST_RECOVERY);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nqps, 3);
	assert_int_equal(tm.qps_evicted, 0);
	q = find_qp("mp0/qp17");
	assert_int_equal(q->rate_kbps, 3750000);
	assert_int_equal(q->old_kbps, 2500000);
	assert_int_equal(q->cause, MPLANE_RATE_FAST_RECOVERY);
	assert_int_equal(q->cuts, 2);
	assert_int_equal(q->updates, 3);
	assert_int_equal(q->cut_plane, 1);
	assert_int_equal(q->first_ts, 2 * MS);
	assert_int_equal(q->cut_ts, 4 * MS);
	assert_int_equal(q->last_ts, 7 * MS);
	assert_string_equal(q->dev, "mp0");
	assert_string_equal(q->node, "kmod");
	assert_ptr_equal(mp_tm_qp_find(&tm, 0, 1000, 5, 17), q);
	q = find_qp("mpf-h1:mp0/qp17");
	assert_int_equal(q->netns, 2001);
	assert_string_equal(q->node, "mpf-h1");
	assert_int_equal(q->rate_kbps, 1200000);
	assert_int_equal(q->cause, MPLANE_RATE_HYPER);
	assert_int_equal(q->cuts, 0);
	assert_int_equal(q->cut_ts, 0);
	assert_int_equal(q->cut_plane, MPLANE_EVENT_NO_PLANE);
	q = find_qp("mp0/qp9");
	assert_int_equal(q->cuts, 1);
	assert_int_equal(q->cut_plane, 0);
	assert_null(mp_tm_qp_find(&tm, 0, 1000, 5, 18));
	/* The cuts per plane of the CNP: plane1 two, plane0 one. */
	assert_int_equal(entity_named("mp0/plane1")->rate_cuts, 2);
	assert_int_equal(entity_named("mp0/plane0")->rate_cuts, 1);
	/* Planes 0 and 1 of our mp0, nothing else. */
	assert_int_equal(tm.nents, 2);
	e = entity_named("mp0/plane1");
	assert_false(e->tx_bytes.seen);
	mp_tm_free(&tm);
}

/*
 * The table's bound: with room for 4 QPs, 10 QPs updated in turn leave
 * the 4 newest, and the 6 pushed out are counted.  An update of a QP
 * still held moves no other out; one of a QP pushed out comes back with
 * its counts anew.  The table never grows past the cap.
 */
static void test_qp_cap(TEST_ARGS)
{
	struct mp_tm_opts o = { .qps_max = 4 };
	const struct mp_tm_qp *q;
	unsigned int i;

	assert_int_equal(mp_tm_init(&tm, &o), 0);
	source_frame(0, "kmod");
	ifname_frame(0, 0, 5, "mp0", sizeof(struct mplane_capture_ifname));
	for (i = 0; i < 10; i++)
		rate_ev(0, 0, 5, 0, (i + 1) * MS, 100 + i, 1000, 2000,
			MPLANE_RATE_CUT);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nqps, 4);
	assert_int_equal(tm.qps_evicted, 6);
	for (i = 0; i < 6; i++)
		assert_null(mp_tm_qp_find(&tm, 0, 0, 5, 100 + i));
	for (i = 6; i < 10; i++)
		assert_non_null(mp_tm_qp_find(&tm, 0, 0, 5, 100 + i));
	find_qp("mp0/qp109");
	/* QP 106 again: held, nothing pushed out. */
	rate_ev(0, 0, 5, 0, 20 * MS, 106, 500, 1000, MPLANE_RATE_CUT);
	/* QP 100 again: the oldest now is 107's; 100 starts anew. */
	rate_ev(0, 0, 5, 0, 21 * MS, 100, 3000, 1000,
		MPLANE_RATE_ADDITIVE);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nqps, 4);
	assert_int_equal(tm.qps_evicted, 7);
	assert_null(mp_tm_qp_find(&tm, 0, 0, 5, 107));
	q = mp_tm_qp_find(&tm, 0, 0, 5, 106);
	assert_non_null(q);
	assert_int_equal(q->cuts, 2);
	assert_int_equal(q->rate_kbps, 500);
	q = mp_tm_qp_find(&tm, 0, 0, 5, 100);
	assert_non_null(q);
	assert_int_equal(q->cuts, 0);
	assert_int_equal(q->updates, 1);
	assert_string_equal(q->name, "mp0/qp100");
	/* Every cut still counts on its plane, whichever QPs are held. */
	assert_int_equal(entity_named("mp0/plane0")->rate_cuts, 11);
	mp_tm_free(&tm);
}

static void counter_name_frame(unsigned int source, uint32_t id,
			       uint32_t kind, uint32_t ifindex,
			       const char *name)
{
	char buf[sizeof(struct mplane_capture_counter_name) + 64] = {};
	struct mplane_capture_counter_name *cn = (void *)buf;

	cn->id = id;
	cn->kind = kind;
	cn->ifindex = ifindex;
	strcpy(cn->name, name);
	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_COUNTER_NAME, source, cn,
				     sizeof(*cn) + strlen(name) + 1), 0);
}

/* A COUNTER event: hdr.flags is the counter's id. */
static void counter_ev(unsigned int source, uint32_t id, uint64_t ts,
		       uint64_t v)
{
	struct mplane_event e = {
		.hdr = { .version = MPLANE_EVENT_VERSION,
			 .type = MPLANE_EV_COUNTER, .len = sizeof(e),
			 .plane = MPLANE_EVENT_NO_PLANE, .flags = id,
			 .ts_ns = ts },
		.val = { v, MPLANE_COUNTER_ETHTOOL },
	};

	assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT, source, &e,
				     sizeof(e)), 0);
}

/*
 * The ethtool poller's per-plane counters of mp0 (kmod/stats.c's
 * planeN_NAME): told from the other counters, with their device, plane
 * and the node of that plane as the kmod relay sees it; without the
 * relay's planes, the poller's node.
 */
static void test_plane_stats(TEST_ARGS)
{
	static const char *const cc[] = { "cnp_sent", "rate_cuts", NULL };
	const struct mp_tm_entity *e;
	unsigned int plane, i, n = 0;
	char dev[32], node[32];
	const char *stat;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	source_frame(0, "kmod");
	source_frame(1, "poll");
	ifname_frame(0, 0, 5, "mp0", sizeof(struct mplane_capture_ifname));
	counter_name_frame(1, 1, MPLANE_COUNTER_ETHTOOL, 5,
			   "mp0/ethtool/plane1_cnp_sent");
	counter_name_frame(1, 2, MPLANE_COUNTER_ETHTOOL, 5,
			   "mp0/ethtool/plane12_rate_cuts");
	counter_name_frame(1, 3, MPLANE_COUNTER_ETHTOOL, 5,
			   "mp0/ethtool/plane1_tx_bytes");
	counter_name_frame(1, 4, MPLANE_COUNTER_NETDEV, 5,
			   "mp0/ethtool/plane1_cnp_sent");
	counter_name_frame(1, 5, MPLANE_COUNTER_ETHTOOL, 6,
			   "eth0/ethtool/planet_cnp_sent");
	for (i = 1; i <= 5; i++)
		counter_ev(1, i, i * MS, i * 10);
	mp_tm_finish(&tm);
	for (i = 0; i < tm.nents; i++) {
		e = &tm.ents[i];
		if (!mp_tm_plane_stat(&tm, e, cc, dev, sizeof(dev), &plane,
				      &stat, node, sizeof(node)))
			continue;
		n++;
		assert_string_equal(dev, "mp0");
		assert_string_equal(node, "poll");
		if (plane == 1)
			assert_string_equal(stat, "cnp_sent");
		else
			assert_int_equal(plane, 12);
	}
	assert_int_equal(n, 2);
	/* With the relay's plane 1 of mp0: its node. */
	plane_sample_ns(0, 0, 5, 1, 10 * MS, 1000);
	mp_tm_finish(&tm);
	for (i = 0, n = 0; i < tm.nents; i++)
		if (mp_tm_plane_stat(&tm, &tm.ents[i], cc, dev, sizeof(dev),
				     &plane, &stat, node, sizeof(node)) &&
		    plane == 1) {
			assert_string_equal(node, "kmod");
			n++;
		}
	assert_int_equal(n, 1);
	mp_tm_free(&tm);
}

/*
 * A copy reads as its original did, and shares no memory with it: the
 * original takes more frames and is freed, and the copy (under ASan)
 * still gives the same figures.
 */
static void test_copy(TEST_ARGS)
{
	const struct mp_tm_entity *p0;
	struct mp_tm copy;
	uint64_t i;
	double bw;

	setup_tm();
	for (i = 0; i <= 1000; i++)
		plane_sample(0, i * 100 * US, i % 100 * 10, i * 1000, 0);
	mp_tm_finish(&tm);
	bw = mp_tm_bw(entity_named("mp0/plane0"), MP_TM_BW_MEAN);
	assert_int_equal(mp_tm_copy(&copy, &tm), 0);
	for (i = 0; i < 5000; i++)
		port_sample(100 + i, 200 * MS + i, 5, i, 0);
	mp_tm_finish(&tm);
	assert_true(tm.nents > copy.nents);
	mp_tm_free(&tm);
	tm = copy;
	p0 = entity_named("mp0/plane0");
	assert_near(mp_tm_bw(p0, MP_TM_BW_MEAN), bw, 1e-12);
	assert_int_equal(mp_tm_queue(&tm, p0)->count, 1001);
	assert_int_equal(mp_tm_expand(&tm, &p0->gaps)->count, 999);
	/* The copy goes on as a model of its own. */
	port_sample(3, 300 * MS, 7, 10, 0);
	mp_tm_finish(&tm);
	assert_int_equal(mp_tm_queue(&tm, entity_named("l0/s1"))->max, 7);
	mp_tm_free(&tm);
}

/*
 * What a capture says cannot make the model keep more than its caps:
 * entities, names (a name announced again replaces the old one) and
 * listed anomalies, each counted past the cap.
 */
static void test_caps(TEST_ARGS)
{
	struct mplane_event e = {
		.hdr = { .version = MPLANE_EVENT_VERSION,
			 .type = MPLANE_EV_COUNTER, .len = sizeof(e),
			 .plane = MPLANE_EVENT_NO_PLANE },
	};
	struct mplane_capture_counter_name *cn;
	size_t len = sizeof(*cn) + 8;
	unsigned int i;

	cn = calloc(1, len);
	assert_non_null(cn);
	setup_tm();
	for (i = 0; i < MP_TM_NAMES_MAX + 5; i++) {
		cn->id = i % 3 ? i : 0;
		cn->kind = MPLANE_COUNTER_NETDEV;
		snprintf(cn->name, 8, "c%u", i % 10000);
		assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_COUNTER_NAME,
					     SRC_POLL, cn, len), 0);
	}
	/* One in three named counter 0 again. */
	assert_int_equal(tm.nnames, 4 + MP_TM_NAMES_MAX + 5 -
			 (MP_TM_NAMES_MAX + 5 + 2) / 3 + 1);
	assert_int_equal(tm.names_refused, 0);
	for (i = 0; i < MP_TM_NAMES_MAX; i++) {
		cn->id = 1000000 + i;
		mp_tm_frame(&tm, MPLANE_CF_COUNTER_NAME, SRC_POLL, cn, len);
	}
	assert_int_equal(tm.nnames, MP_TM_NAMES_MAX);
	assert_true(tm.names_refused > 0);
	for (i = 0; i < MP_TM_ANOMS_MAX + 9; i++)
		ev(SRC_L0, MPLANE_EV_PORT_STATE, 3, MPLANE_EVENT_NO_PLANE,
		   MS + i, 0, 1, 0, 0);
	for (i = 0; i + 1 < MP_TM_ENTS_MAX + 7; i++) {
		e.hdr.flags = i;	/* the counter's id */
		e.hdr.ts_ns = MS + MP_TM_ANOMS_MAX + 9 + i;
		assert_int_equal(mp_tm_frame(&tm, MPLANE_CF_EVENT, SRC_POLL,
					     &e, sizeof(e)), 0);
	}
	mp_tm_finish(&tm);
	/* The port and the counters. */
	assert_int_equal(tm.nents, MP_TM_ENTS_MAX);
	assert_int_equal(tm.ents_refused, 7);
	assert_int_equal(tm.nanoms, MP_TM_ANOMS_MAX);
	assert_int_equal(tm.anom_count[MP_TM_AN_PORT_DOWN],
			 MP_TM_ANOMS_MAX + 9);
	assert_int_equal(tm.fail_ts, MS);
	free(cn);
	mp_tm_free(&tm);
}

/*
 * Many devices of one name, each its own source (the mp0 of every host):
 * each plane gets its node in front, each device is a group, and a QP
 * takes its device's name.  The old refresh compared every pair: this
 * is the case that made it quadratic.
 */
static void test_many_devices(TEST_ARGS)
{
	char label[32];
	unsigned int i, n = 20000;

	assert_int_equal(mp_tm_init(&tm, NULL), 0);
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "fabric/f/h%u/mp0", i);
		source_frame(i, label);
		ifname_frame(i, 0, 5, "mp0",
			     sizeof(struct mplane_capture_ifname));
		ev(i, MPLANE_EV_PLANE_SAMPLE, 5, 0, MS + i, 1, i, 0, 0);
	}
	rate_ev(n - 1, 0, 5, 0, 2 * MS, 7, 1000, 2000, MPLANE_RATE_CUT);
	mp_tm_finish(&tm);
	assert_int_equal(tm.nents, n);
	assert_int_equal(tm.ngroups, n);
	entity_named("h0:mp0/plane0");
	entity_named("h19999:mp0/plane0");
	find_qp("h19999:mp0/qp7");
	mp_tm_free(&tm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandwidth_symmetry),
		cmocka_unit_test(test_threshold_option),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_steppers_cap),
		cmocka_unit_test(test_collective_steps),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_failover),
		cmocka_unit_test(test_fault_cause),
		cmocka_unit_test(test_ecn_storm),
		cmocka_unit_test(test_sources_names),
		cmocka_unit_test(test_netns_planes),
		cmocka_unit_test(test_old_capture_names),
		cmocka_unit_test(test_qp_rates),
		cmocka_unit_test(test_qp_cap),
		cmocka_unit_test(test_plane_stats),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_many_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
