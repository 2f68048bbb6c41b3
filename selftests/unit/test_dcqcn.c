// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kmod/dcqcn.c, DCQCN's reaction point.  Each scenario is
 * checked twice: against literal values worked out by hand from the
 * paper's equations (with dcqcn.c's documented rounding: a cut rounds
 * down, Rc = (Rt + Rc) / 2 rounds up), and against an independent model
 * of the same equations in double precision, which rounds nothing and so
 * may differ by a kbit/s or two.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "dcqcn.h"

#define US	1000ULL
#define MS	1000000ULL
#define SEC	1000000000ULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* alpha against the model, relative; and the exact alpha updates */
#define ALPHA_TOL	0.0001
#define EXACT_TOL	0.000001

/* ConnectX's defaults, as uapi gives them, on a 100 Gbit/s line. */
static struct mplane_dcqcn_params connectx(u32 line_kbps)
{
	struct mplane_dcqcn_params p = {
		.max_kbps = line_kbps,
		.min_kbps = MPLANE_CC_RATE_MIN_KBPS_DEFAULT,
		.ai_kbps = MPLANE_CC_RATE_AI_KBPS_DEFAULT,
		.hai_kbps = MPLANE_CC_RATE_HAI_KBPS_DEFAULT,
		.time_reset_ns = MPLANE_CC_TIME_RESET_US_DEFAULT * US,
		.byte_reset = MPLANE_CC_BYTE_RESET_DEFAULT,
		.threshold = MPLANE_CC_THRESHOLD_DEFAULT,
		.alpha_g = MPLANE_CC_ALPHA_G_DEFAULT,
		.alpha_period_ns = MPLANE_CC_ALPHA_PERIOD_US_DEFAULT * US,
		.alpha_initial = MPLANE_CC_ALPHA_INITIAL_DEFAULT,
		.reduce_period_ns = MPLANE_CC_REDUCE_PERIOD_US_DEFAULT * US,
		.min_dec_fac = MPLANE_CC_MIN_DEC_FAC_DEFAULT,
	};
	return p;
}

/* Small values whose sequences are easy to follow by hand. */
static struct mplane_dcqcn_params small(void)
{
	struct mplane_dcqcn_params p = {
		.max_kbps = 20000,
		.min_kbps = 1000,
		.ai_kbps = 500,
		.hai_kbps = 2000,
		.time_reset_ns = 100 * US,
		.byte_reset = 10000,
		.threshold = 2,
		.alpha_g = 1019,
		.alpha_period_ns = 55 * US,
		.alpha_initial = 1024,	/* alpha = 1: cuts halve exactly */
		.reduce_period_ns = 50 * US,
		.min_dec_fac = 50,
	};
	return p;
}

/* Without libm (unit.mk links none): |x|, min, max and x^k, k whole. */
static double ref_abs(double x)
{
	return x < 0 ? -x : x;
}

static double ref_min(double a, double b)
{
	return a < b ? a : b;
}

static double ref_max(double a, double b)
{
	return a > b ? a : b;
}

/* One multiplication per period, as the paper's timer would do it. */
static double ref_pow(double x, unsigned int k)
{
	double r = 1;

	while (k--)
		r *= x;
	return r;
}

static double alpha_of(const struct mplane_dcqcn *q)
{
	return (double)q->alpha / MPLANE_DCQCN_ALPHA_SCALE;
}

static void assert_rel(double got, double want, double tol)
{
	double rel = ref_abs(got - want) / (want ? ref_abs(want) : 1);

	if (rel > tol)
		fail_msg("%.9g is not %.9g within %g (relative %g)", got, want,
			 tol, rel);
}

static void assert_near(double got, double want, double tol)
{
	if (ref_abs(got - want) > tol)
		fail_msg("%.9g is not %.9g within %g", got, want, tol);
}

/* The paper's equations in double precision, applied in the same order. */
struct ref {
	double rc, rt, alpha;
	unsigned int ts, bs;
};

static void ref_init(struct ref *r, const struct mplane_dcqcn_params *p)
{
	r->rc = p->max_kbps;
	r->rt = p->max_kbps;
	r->alpha = p->alpha_initial / 1024.0;
	r->ts = 0;
	r->bs = 0;
}

static void ref_decay(struct ref *r, const struct mplane_dcqcn_params *p,
		      unsigned int periods)
{
	r->alpha *= ref_pow(p->alpha_g / 1024.0, periods);
}

static void ref_cut(struct ref *r, const struct mplane_dcqcn_params *p)
{
	double g = 1 - p->alpha_g / 1024.0;
	double rc = r->rc * (1 - r->alpha / 2);

	rc = ref_max(rc, r->rc * p->min_dec_fac / 100.0);
	rc = ref_max(rc, p->min_kbps);
	r->rt = r->rc;
	r->rc = ref_min(rc, r->rc);
	r->alpha = (1 - g) * r->alpha + g;
	r->ts = 0;
	r->bs = 0;
}

static int ref_event(struct ref *r, const struct mplane_dcqcn_params *p,
		     bool timer)
{
	unsigned int hi, lo;
	int cause;

	if (timer)
		r->ts++;
	else
		r->bs++;
	hi = r->ts > r->bs ? r->ts : r->bs;
	lo = r->ts < r->bs ? r->ts : r->bs;
	if (hi <= p->threshold) {
		cause = MPLANE_RATE_FAST_RECOVERY;
	} else if (lo > p->threshold) {
		r->rt += (double)(lo - p->threshold) * p->hai_kbps;
		cause = MPLANE_RATE_HYPER;
	} else {
		r->rt += p->ai_kbps;
		cause = MPLANE_RATE_ADDITIVE;
	}
	r->rt = ref_min(r->rt, p->max_kbps);
	r->rc = (r->rt + r->rc) / 2;
	return cause;
}

static void assert_ref(const struct mplane_dcqcn *q, const struct ref *r)
{
	assert_near(q->rc_kbps, r->rc, 2);
	assert_near(q->rt_kbps, r->rt, 2);
	assert_rel(alpha_of(q), r->alpha, ALPHA_TOL);
	assert_int_equal(q->timer_stage, r->ts);
	assert_int_equal(q->byte_stage, r->bs);
}

static void test_init_at_line_rate(void **state)
{
	struct mplane_dcqcn_params p = connectx(100000);
	struct mplane_dcqcn q;

	(void)state;
	mplane_dcqcn_init(&q, &p, 5 * MS);
	assert_int_equal(q.rc_kbps, 100000);
	assert_int_equal(q.rt_kbps, 100000);
	assert_int_equal(q.alpha, 1023 << 10);
	assert_int_equal(q.timer_stage, 0);
	assert_int_equal(q.byte_stage, 0);
	assert_int_equal(q.bytes, 0);
	assert_int_equal(q.cut_ns, 0);
	assert_int_equal(q.timer_ns, 5 * MS);
	assert_int_equal(q.alpha_ns, 5 * MS);
	assert_false(mplane_dcqcn_limited(&q, &p));
	/* Unlimited: time and bytes change nothing, alpha waits for a cut. */
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 1000000, 2 * SEC), 0);
	assert_int_equal(q.rc_kbps, 100000);
	assert_int_equal(q.alpha, 1023 << 10);
	assert_int_equal(q.timer_stage + q.byte_stage + q.bytes, 0);
}

/* Rt = Rc; Rc = Rc (1 - alpha / 2); alpha = (1 - g) alpha + g. */
static void test_first_cnp_halves(void **state)
{
	struct mplane_dcqcn_params p = connectx(100000);
	struct mplane_dcqcn q;
	struct ref r;

	(void)state;
	mplane_dcqcn_init(&q, &p, 1 * MS);
	ref_init(&r, &p);
	/* A second at the line rate first: alpha is still alpha_initial. */
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * SEC));
	ref_cut(&r, &p);
	/* 100000 (1 - 1023/2048) = 50048.83 */
	assert_int_equal(q.rc_kbps, 50048);
	assert_int_equal(q.rt_kbps, 100000);
	/* 1019/1024 * 1023/1024 + 5/1024, in 2^-20 */
	assert_rel(alpha_of(&q), 1019.0 / 1024 * 1023 / 1024 + 5.0 / 1024, EXACT_TOL);
	assert_int_equal(q.alpha, 1047557);
	assert_ref(&q, &r);
	assert_int_equal(q.cut_ns, 1 * SEC);
	assert_int_equal(q.timer_ns, 1 * SEC);
	assert_int_equal(q.alpha_ns, 1 * SEC);
	assert_int_equal(q.last_cause, MPLANE_RATE_CUT);
	assert_true(mplane_dcqcn_limited(&q, &p));
}

static void test_cnp_within_reduce_period_ignored(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q, before;
	const u64 t = 10 * MS;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, t));
	assert_int_equal(q.rc_kbps, 10000);
	assert_int_equal(q.rt_kbps, 20000);
	/* Nothing is due by t + 49.999 us (K 55 us, T 100 us): no change. */
	before = q;
	assert_false(mplane_dcqcn_cnp(&q, &p, t + 10 * US));
	assert_false(mplane_dcqcn_cnp(&q, &p, t + 50 * US - 1));
	assert_memory_equal(&q, &before, sizeof(q));
	/* A clock that went back is within the period too. */
	assert_false(mplane_dcqcn_cnp(&q, &p, t - 1 * US));
	assert_int_equal(q.rc_kbps, 10000);
	/* At the period's end: cut again, from Rc, alpha = 1 still. */
	assert_true(mplane_dcqcn_cnp(&q, &p, t + 50 * US));
	assert_int_equal(q.rt_kbps, 10000);
	assert_int_equal(q.rc_kbps, 5000);
	assert_int_equal(q.alpha, MPLANE_DCQCN_ALPHA_SCALE);
	assert_int_equal(q.cut_ns, t + 50 * US);

	/* ConnectX's 4 us, where alpha's 1 us period does pass meanwhile. */
	p = connectx(100000);
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, t));
	assert_false(mplane_dcqcn_cnp(&q, &p, t + 3999));
	assert_int_equal(q.rc_kbps, 50048);
	assert_int_equal(q.rt_kbps, 100000);
	assert_int_equal(q.cut_ns, t);
	assert_true(mplane_dcqcn_cnp(&q, &p, t + 4 * US));
}

static void test_cnp_at_time_zero(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 0));
	assert_int_not_equal(q.cut_ns, 0);
	assert_int_equal(q.rc_kbps, 10000);
	/* Still "cut" for the reduce period: a second CNP at 0 is ignored. */
	assert_false(mplane_dcqcn_cnp(&q, &p, 0));
	assert_false(mplane_dcqcn_cnp(&q, &p, 49 * US));
	assert_int_equal(q.rc_kbps, 10000);
	assert_true(mplane_dcqcn_cnp(&q, &p, 51 * US));
	assert_int_equal(q.rc_kbps, 5000);
}

/* The second cut's alpha has decayed for the whole periods in between. */
static void test_cnp_after_period_uses_decayed_alpha(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q;
	const u64 t = 1 * MS;
	struct ref r;

	(void)state;
	p.alpha_initial = 1023;
	mplane_dcqcn_init(&q, &p, 0);
	ref_init(&r, &p);
	assert_true(mplane_dcqcn_cnp(&q, &p, t));
	ref_cut(&r, &p);
	/* 20000 (1 - 1023/2048) = 10009.77 */
	assert_int_equal(q.rc_kbps, 10009);
	assert_int_equal(q.alpha, 1047557);
	assert_ref(&q, &r);

	/* 120 us: one T (fast recovery) and two K. */
	assert_true(mplane_dcqcn_cnp(&q, &p, t + 120 * US));
	ref_event(&r, &p, true);
	ref_decay(&r, &p, 2);
	ref_cut(&r, &p);
	/* Rc = (20000 + 10009) / 2 up = 15005 = Rt; alpha = 0.99905 0.995^2 */
	assert_int_equal(q.rt_kbps, 15005);
	/* 15005 (1 - 0.98930 / 2) = 7582.6, above the floor of 7502 */
	assert_int_equal(q.rc_kbps, 7582);
	assert_int_equal(q.timer_stage, 0);
	assert_ref(&q, &r);
	assert_rel(alpha_of(&q),
		   1047557.0 / (1 << 20) * ref_pow(1019.0 / 1024, 2) *
		   1019 / 1024 + 5.0 / 1024, ALPHA_TOL);
	assert_int_equal(q.alpha_ns, t + 120 * US);
}

/* Every K without a CNP: alpha = (1 - g) alpha, k of them at once. */
static void test_alpha_decay_k_periods(void **state)
{
	static const unsigned int ks[] = { 1, 2, 3, 7, 64, 100, 333, 1000 };
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q, one;
	const u64 t = 1 * MS, k_ns = 55 * US;
	double a0;
	size_t i;
	u64 j;

	(void)state;
	p.alpha_initial = 1023;
	/* Rates out of the way: no increase events in these tests. */
	p.time_reset_ns = 0;
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		mplane_dcqcn_init(&q, &p, 0);
		mplane_dcqcn_cnp(&q, &p, t);
		a0 = alpha_of(&q);
		/* Half a period more: only whole periods count. */
		mplane_dcqcn_sent(&q, &p, 0, t + ks[i] * k_ns + k_ns / 2);
		assert_rel(alpha_of(&q), a0 * ref_pow(1019.0 / 1024, ks[i]), ALPHA_TOL);
		assert_int_equal(q.alpha_ns, t + ks[i] * k_ns);
		assert_int_equal(q.rc_kbps, 10009);
	}

	/* The same, one period a call. */
	mplane_dcqcn_init(&one, &p, 0);
	mplane_dcqcn_cnp(&one, &p, t);
	for (j = 1; j <= 100; j++)
		mplane_dcqcn_sent(&one, &p, 0, t + j * k_ns);
	assert_rel(alpha_of(&one), a0 * ref_pow(1019.0 / 1024, 100), ALPHA_TOL);

	/* Long idle: alpha reaches 0 in bounded steps and stays there. */
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, t);
	mplane_dcqcn_sent(&q, &p, 0, t + (1ULL << 40) * k_ns);
	assert_int_equal(q.alpha, 0);
	assert_int_equal(q.alpha_ns, t + (1ULL << 40) * k_ns);
	mplane_dcqcn_sent(&q, &p, 0, UINT64_MAX);
	assert_int_equal(q.alpha, 0);
	/* Then a CNP brings it to g, and cuts by g / 2. */
	q.cut_ns = t;
	assert_true(mplane_dcqcn_cnp(&q, &p, UINT64_MAX));
	assert_int_equal(q.alpha, 5 << 10);

	/* g = 0: alpha never moves; 1 - g = 0: gone after one period. */
	p.alpha_g = 1024;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, t);
	assert_int_equal(q.alpha, 1023 << 10);
	mplane_dcqcn_sent(&q, &p, 0, t + 1000 * k_ns);
	assert_int_equal(q.alpha, 1023 << 10);
	p.alpha_g = 0;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, t);
	assert_int_equal(q.alpha, MPLANE_DCQCN_ALPHA_SCALE);
	mplane_dcqcn_sent(&q, &p, 0, t + k_ns - 1);
	assert_int_equal(q.alpha, MPLANE_DCQCN_ALPHA_SCALE);
	mplane_dcqcn_sent(&q, &p, 0, t + k_ns);
	assert_int_equal(q.alpha, 0);
}

struct step {
	u32 bytes;		/* sent at... */
	u64 at_us;		/* ...this time after the second cut */
	u32 changed;		/* events that changed Rc */
	u32 rc, rt;
	u8 cause;
	u32 ts, bs;
};

/*
 * Two cuts at alpha = 1 (20000 -> 10000 -> 5000, Rt 10000), then F = 2
 * fast-recovery stages, additive increase (one counter past F), hyper
 * (both past F, i = min - F), up to the line rate.
 */
static void test_increase_sequence_small(void **state)
{
	static const struct step steps[] = {
		{ 0,     100, 1,  7500, 10000, MPLANE_RATE_FAST_RECOVERY, 1, 0 },
		{ 0,     200, 1,  8750, 10000, MPLANE_RATE_FAST_RECOVERY, 2, 0 },
		{ 0,     300, 1,  9625, 10500, MPLANE_RATE_ADDITIVE, 3, 0 },
		{ 0,     400, 1, 10313, 11000, MPLANE_RATE_ADDITIVE, 4, 0 },
		/* three B at once: 2 additive, then min(4, 3) = 3 > F */
		{ 30000, 450, 3, 12727, 14000, MPLANE_RATE_HYPER, 4, 3 },
		/* half a B: no event; the other half makes one, i = 2 */
		{ 5000,  460, 0, 12727, 14000, MPLANE_RATE_HYPER, 4, 3 },
		{ 5000,  470, 1, 15364, 18000, MPLANE_RATE_HYPER, 4, 4 },
		/* T: i = min(5, 4) - 2, Rt held at the line rate */
		{ 0,     500, 1, 17682, 20000, MPLANE_RATE_HYPER, 5, 4 },
		{ 0,     600, 1, 18841, 20000, MPLANE_RATE_HYPER, 6, 4 },
		/* 8 T: 19421 19711 19856 19928 19964 19982 19991 19996 */
		{ 0,    1400, 8, 19996, 20000, MPLANE_RATE_HYPER, 14, 4 },
		/* 19998 19999 20000, and then the QP runs free */
		{ 0,    2000, 3, 20000, 20000, MPLANE_RATE_HYPER, 17, 4 },
		{ 99999, 9000, 0, 20000, 20000, MPLANE_RATE_HYPER, 17, 4 },
	};
	struct mplane_dcqcn_params p = small();
	const u64 t = 3 * MS, t2 = t + 50 * US;
	struct mplane_dcqcn q;
	struct ref r;
	size_t i;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	ref_init(&r, &p);
	assert_true(mplane_dcqcn_cnp(&q, &p, t));
	ref_cut(&r, &p);
	assert_true(mplane_dcqcn_cnp(&q, &p, t2));
	ref_cut(&r, &p);
	assert_int_equal(q.rc_kbps, 5000);
	assert_int_equal(q.rt_kbps, 10000);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct step *s = &steps[i];
		u64 now = t2 + s->at_us * US;
		u32 ts = r.ts, bs = r.bs, n;

		print_message("step %zu: %u bytes at +%llu us\n", i, s->bytes,
			      (unsigned long long)s->at_us);
		n = mplane_dcqcn_sent(&q, &p, s->bytes, now);
		assert_int_equal(n, s->changed);
		assert_int_equal(q.rc_kbps, s->rc);
		assert_int_equal(q.rt_kbps, s->rt);
		assert_int_equal(q.last_cause, s->cause);
		assert_int_equal(q.timer_stage, s->ts);
		assert_int_equal(q.byte_stage, s->bs);
		/* The model takes the same events: timer first. */
		for (; ts < s->ts; ts++)
			ref_event(&r, &p, true);
		for (; bs < s->bs; bs++)
			ref_event(&r, &p, false);
		assert_near(q.rc_kbps, r.rc, 2);
		assert_near(q.rt_kbps, r.rt, 2);
	}
	assert_false(mplane_dcqcn_limited(&q, &p));
	assert_int_equal(q.bytes, 0);
}

/*
 * ConnectX's defaults (F = 1, T = 300 us, B = 32767) from 100 Gbit/s.
 * One cut: Rt stays at the line rate, each event halves the gap.
 */
static void test_increase_sequence_connectx(void **state)
{
	static const u32 rcs[] = {
		75024, 87512, 93756, 96878, 98439, 99220, 99610, 99805,
		99903, 99952, 99976, 99988, 99994, 99997, 99999, 100000,
	};
	struct mplane_dcqcn_params p = connectx(100000);
	const u64 t = 7 * MS, tr = 300 * US;
	struct mplane_dcqcn q;
	struct ref r;
	size_t i;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	ref_init(&r, &p);
	mplane_dcqcn_cnp(&q, &p, t);
	ref_cut(&r, &p);
	assert_int_equal(q.rc_kbps, 50048);
	for (i = 0; i < ARRAY_SIZE(rcs); i++) {
		assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, t + (i + 1) * tr), 1);
		ref_event(&r, &p, true);
		assert_int_equal(q.rc_kbps, rcs[i]);
		assert_int_equal(q.rt_kbps, 100000);
		assert_int_equal(q.last_cause, i == 0 ?
				 MPLANE_RATE_FAST_RECOVERY : MPLANE_RATE_ADDITIVE);
		assert_near(q.rc_kbps, r.rc, 1);
	}
	assert_false(mplane_dcqcn_limited(&q, &p));
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, t + 100 * tr), 0);
	assert_int_equal(q.timer_stage, 16);
}

/*
 * ConnectX's defaults, two cuts 4 us apart so that Rt is below the line
 * rate: fast recovery, additive (timer), hyper (timer and bytes).
 */
static void test_increase_connectx_two_cuts(void **state)
{
	static const struct step steps[] = {
		{ 0,      300, 1, 37791, 50048, MPLANE_RATE_FAST_RECOVERY, 1, 0 },
		{ 0,      600, 1, 46420, 55048, MPLANE_RATE_ADDITIVE, 2, 0 },
		{ 32767,  601, 1, 53234, 60048, MPLANE_RATE_ADDITIVE, 2, 1 },
		/* i = 1: Rt 110048, held at the line rate */
		{ 32767,  602, 1, 76617, 100000, MPLANE_RATE_HYPER, 2, 2 },
		{ 65534,  603, 2, 94155, 100000, MPLANE_RATE_HYPER, 2, 4 },
	};
	struct mplane_dcqcn_params p = connectx(100000);
	const u64 t = 7 * MS, t2 = t + 4 * US;
	struct mplane_dcqcn q;
	struct ref r;
	size_t i;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	ref_init(&r, &p);
	mplane_dcqcn_cnp(&q, &p, t);
	ref_cut(&r, &p);
	assert_true(mplane_dcqcn_cnp(&q, &p, t2));
	ref_decay(&r, &p, 4);
	ref_cut(&r, &p);
	/* alpha 0.999028 (1019/1024)^4 = 0.979658: 50048 (1 - 0.4898) = 25533.03 */
	assert_int_equal(q.rt_kbps, 50048);
	assert_int_equal(q.rc_kbps, 25533);
	assert_ref(&q, &r);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct step *s = &steps[i];
		u32 ts = r.ts, bs = r.bs;

		assert_int_equal(mplane_dcqcn_sent(&q, &p, s->bytes,
						   t2 + s->at_us * US), s->changed);
		for (; ts < s->ts; ts++)
			ref_event(&r, &p, true);
		for (; bs < s->bs; bs++)
			ref_event(&r, &p, false);
		assert_int_equal(q.rc_kbps, s->rc);
		assert_int_equal(q.rt_kbps, s->rt);
		assert_int_equal(q.last_cause, s->cause);
		assert_int_equal(q.timer_stage, s->ts);
		assert_int_equal(q.byte_stage, s->bs);
		assert_near(q.rc_kbps, r.rc, 2);
		assert_near(q.rt_kbps, r.rt, 2);
	}
}

static void test_min_dec_fac_floor(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q;

	(void)state;
	/* alpha = 1 would halve; 80 % is kept. */
	p.min_dec_fac = 80;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS));
	assert_int_equal(q.rc_kbps, 16000);
	assert_int_equal(q.rt_kbps, 20000);
	/* 2 T of fast recovery: (20000 + 16000) / 2, (20000 + 18000) / 2 */
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS + 200 * US));
	/* then 80 % of 19000 rather than its half */
	assert_int_equal(q.rt_kbps, 19000);
	assert_int_equal(q.rc_kbps, 15200);

	/* A gentler cut than the floor is not raised to it. */
	p.min_dec_fac = 50;
	p.alpha_initial = 100;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS));
	/* 20000 (1 - 100/2048) = 19023.4 */
	assert_int_equal(q.rc_kbps, 19023);

	/* 100 %: the rate never falls, though alpha and Rt move. */
	p.min_dec_fac = 100;
	p.alpha_initial = 1024;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS));
	assert_int_equal(q.rc_kbps, 20000);
	/* Out of range: as 100 %. */
	p.min_dec_fac = 250;
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS));
	assert_int_equal(q.rc_kbps, 20000);
}

static void test_min_rate_floor(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q;

	(void)state;
	p.min_kbps = 8000;
	p.min_dec_fac = 10;
	p.time_reset_ns = 0;	/* no increase between the cuts */
	mplane_dcqcn_init(&q, &p, 0);
	assert_true(mplane_dcqcn_cnp(&q, &p, 1 * MS));
	assert_int_equal(q.rc_kbps, 10000);
	assert_true(mplane_dcqcn_cnp(&q, &p, 2 * MS));
	assert_int_equal(q.rt_kbps, 10000);
	assert_int_equal(q.rc_kbps, 8000);	/* not 5000 */
	assert_true(mplane_dcqcn_cnp(&q, &p, 3 * MS));
	assert_int_equal(q.rt_kbps, 8000);
	assert_int_equal(q.rc_kbps, 8000);
	assert_int_equal(q.last_cause, MPLANE_RATE_CUT);
	/* A minimum raised above Rc does not make a cut raise it. */
	p.min_kbps = 9000;
	assert_true(mplane_dcqcn_cnp(&q, &p, 4 * MS));
	assert_int_equal(q.rc_kbps, 8000);
}

/* After a long idle, at most 64 increase events, the rest skipped. */
static void test_catchup_bound(void **state)
{
	struct mplane_dcqcn_params p = connectx(MPLANE_CC_RATE_KBPS_MAX);
	const u64 t = 1 * MS, t2 = t + 4 * US, tr = 300 * US;
	struct mplane_dcqcn q;
	u64 expiries;

	(void)state;
	/* Steps so small that 64 events leave the QP far below the line. */
	p.ai_kbps = 10;
	p.hai_kbps = 10;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, t);
	mplane_dcqcn_cnp(&q, &p, t2);
	assert_true(q.rt_kbps < MPLANE_CC_RATE_KBPS_MAX / 2 + 1000000);
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, t2 + 10 * SEC),
			 MPLANE_DCQCN_CATCHUP_MAX);
	assert_int_equal(q.timer_stage, MPLANE_DCQCN_CATCHUP_MAX);
	assert_int_equal(q.byte_stage, 0);
	expiries = (10 * SEC) / tr;
	assert_int_equal(q.timer_ns, t2 + expiries * tr);
	assert_true(mplane_dcqcn_limited(&q, &p));
	/* The skipped expiries are gone: nothing more at the same time... */
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, t2 + 10 * SEC), 0);
	/* ...and the next T is one event. */
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, t2 + (expiries + 1) * tr), 1);
	assert_int_equal(q.timer_stage, MPLANE_DCQCN_CATCHUP_MAX + 1);

	/* Bytes too: 4 GB in B = 64 is 67 million events, 64 taken. */
	p.byte_reset = MPLANE_CC_BYTE_RESET_MIN;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, t);
	mplane_dcqcn_cnp(&q, &p, t2);
	assert_int_equal(mplane_dcqcn_sent(&q, &p, UINT32_MAX, t2 + 1),
			 MPLANE_DCQCN_CATCHUP_MAX);
	assert_int_equal(q.byte_stage, MPLANE_DCQCN_CATCHUP_MAX);
	assert_int_equal(q.bytes, UINT32_MAX % MPLANE_CC_BYTE_RESET_MIN);
	/* Timer events go first and share the budget. */
	assert_int_equal(mplane_dcqcn_sent(&q, &p, UINT32_MAX, t2 + 10 * tr + 1),
			 MPLANE_DCQCN_CATCHUP_MAX);
	assert_int_equal(q.timer_stage, 10);
	assert_int_equal(q.byte_stage, 2 * MPLANE_DCQCN_CATCHUP_MAX - 10);
}

static void test_clamp_on_max_change(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q;

	(void)state;
	p.alpha_g = 1024;	/* g = 0: alpha stays 1, every cut halves */
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, 1 * MS);
	assert_int_equal(q.rc_kbps, 10000);
	assert_int_equal(q.rt_kbps, 20000);
	/* The line slows to 15000: Rt follows, Rc was below it. */
	p.max_kbps = 15000;
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, 1 * MS + 1), 0);
	assert_int_equal(q.rt_kbps, 15000);
	assert_int_equal(q.rc_kbps, 10000);
	/* To 8000: both, and the QP is no longer limited. */
	p.max_kbps = 8000;
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, 1 * MS + 2), 0);
	assert_int_equal(q.rt_kbps, 8000);
	assert_int_equal(q.rc_kbps, 8000);
	assert_false(mplane_dcqcn_limited(&q, &p));
	/* A CNP clamps before it cuts. */
	p.max_kbps = 6000;
	assert_true(mplane_dcqcn_cnp(&q, &p, 2 * MS));
	assert_int_equal(q.rt_kbps, 6000);
	assert_int_equal(q.rc_kbps, 3000);
	/* The line back at 20000: the QP climbs to it again. */
	p.max_kbps = 20000;
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, 2 * MS + 100 * US), 1);
	assert_int_equal(q.rt_kbps, 6000);
	assert_int_equal(q.rc_kbps, 4500);
	mplane_dcqcn_sent(&q, &p, 0, 2 * MS + 60 * 100 * US);
	assert_int_equal(q.rc_kbps, 20000);
	assert_int_equal(q.rt_kbps, 20000);
}

/* bytes * 8 / kbit/s, in ns, rounded up. */
static void test_tx_ns(void **state)
{
	struct mplane_dcqcn q = { .rc_kbps = 12000 };

	(void)state;
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 1500), 1 * MS);
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 0), 0);
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 1), 667);	/* 666.67 */
	q.rc_kbps = MPLANE_CC_RATE_KBPS_MAX;
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 1500), 30);
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 4096), 82);	/* 81.92 */
	q.rc_kbps = MPLANE_CC_RATE_KBPS_MIN;
	assert_int_equal(mplane_dcqcn_tx_ns(&q, UINT32_MAX),
			 4294967295ULL * 800000ULL);
	q.rc_kbps = 0;	/* never, but no division by zero */
	assert_int_equal(mplane_dcqcn_tx_ns(&q, 1), 8000000);
}

/* 400 Gbit/s with the largest steps: no u32 wraps anywhere. */
static void test_no_overflow_400g(void **state)
{
	struct mplane_dcqcn_params p = connectx(MPLANE_CC_RATE_KBPS_MAX);
	u32 last_rc, n, calls = 0;
	struct mplane_dcqcn q;
	u64 now = 1 * MS;
	struct ref r;

	(void)state;
	mplane_dcqcn_init(&q, &p, 0);
	ref_init(&r, &p);
	assert_true(mplane_dcqcn_cnp(&q, &p, now));
	ref_cut(&r, &p);
	/* 400000000 (1 - 1023/2048) = 200195312.5 */
	assert_int_equal(q.rc_kbps, 200195312);
	assert_ref(&q, &r);
	now += 4 * US;
	assert_true(mplane_dcqcn_cnp(&q, &p, now));
	assert_int_equal(q.rt_kbps, 200195312);
	assert_true(q.rc_kbps >= 200195312 / 2);

	p.hai_kbps = MPLANE_CC_RATE_KBPS_MAX;
	p.ai_kbps = MPLANE_CC_RATE_KBPS_MAX;
	last_rc = q.rc_kbps;
	do {
		now += 300 * US;
		n = mplane_dcqcn_sent(&q, &p, UINT32_MAX, now);
		assert_true(n <= MPLANE_DCQCN_CATCHUP_MAX);
		assert_true(q.rc_kbps >= last_rc);
		assert_true(q.rc_kbps <= q.rt_kbps);
		assert_true(q.rt_kbps <= MPLANE_CC_RATE_KBPS_MAX);
		last_rc = q.rc_kbps;
	} while (mplane_dcqcn_limited(&q, &p) && ++calls < 10);
	assert_int_equal(q.rc_kbps, MPLANE_CC_RATE_KBPS_MAX);
	assert_int_equal(q.rt_kbps, MPLANE_CC_RATE_KBPS_MAX);
	assert_int_equal(calls, 0);	/* one call was enough */

	/*
	 * Hyper with i R_HAI past 2^32: F = 0, 20 T then 40 B in one call,
	 * so that i reaches 20 and more while Rc closes on the line rate.
	 */
	p = connectx(MPLANE_CC_RATE_KBPS_MAX);
	p.hai_kbps = MPLANE_CC_RATE_KBPS_MAX;
	p.threshold = 0;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, now);
	mplane_dcqcn_cnp(&q, &p, now + 4 * US);
	last_rc = q.rc_kbps;
	for (n = 1; n <= 60 && mplane_dcqcn_limited(&q, &p); n++) {
		bool timer = n <= 20;

		assert_int_equal(mplane_dcqcn_sent(&q, &p, timer ? 0 :
						   MPLANE_CC_BYTE_RESET_DEFAULT,
						   now + 4 * US + (timer ? n : 20) *
						   300 * US), 1);
		assert_true(q.rc_kbps > last_rc);
		assert_true(q.rc_kbps <= q.rt_kbps);
		assert_true(q.rt_kbps <= MPLANE_CC_RATE_KBPS_MAX);
		last_rc = q.rc_kbps;
	}
	assert_int_equal(q.rc_kbps, MPLANE_CC_RATE_KBPS_MAX);
	assert_int_equal(q.last_cause, MPLANE_RATE_HYPER);
	assert_true(q.byte_stage * (u64)p.hai_kbps > UINT32_MAX);

	/* i R_HAI = 16 * 2^28 is 0 in 32 bits: Rt must still reach the line. */
	p.hai_kbps = 1U << 28;
	q.rt_kbps = 2000;
	q.rc_kbps = 1000;
	q.timer_stage = 16;
	q.byte_stage = 16;
	q.timer_ns = 0;
	q.bytes = 0;
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, p.time_reset_ns), 1);
	assert_int_equal(q.rt_kbps, MPLANE_CC_RATE_KBPS_MAX);
	assert_int_equal(q.rc_kbps, (MPLANE_CC_RATE_KBPS_MAX + 1000) / 2);
}

/* At the line rate the counters stop: stages, bytes and the timer. */
static void test_line_rate_stops_counting(void **state)
{
	struct mplane_dcqcn_params p = small();
	struct mplane_dcqcn q, before;

	(void)state;
	p.threshold = 0;
	mplane_dcqcn_init(&q, &p, 0);
	mplane_dcqcn_cnp(&q, &p, 1 * MS);
	/* Bytes alone: 10000 up to 20000 in 14 halvings rounded up. */
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 1000000, 1 * MS + 1), 14);
	assert_int_equal(q.rc_kbps, 20000);
	assert_int_equal(q.byte_stage, 14);
	assert_int_equal(q.bytes, 0);
	before = q;
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 1000000, 1 * MS + 2), 0);
	assert_int_equal(mplane_dcqcn_sent(&q, &p, 0, 1 * SEC), 0);
	assert_int_equal(q.byte_stage, before.byte_stage);
	assert_int_equal(q.timer_stage, before.timer_stage);
	assert_int_equal(q.bytes, 0);
	assert_int_equal(q.rc_kbps, 20000);
	assert_int_equal(q.timer_ns, 1 * SEC);
	/* alpha keeps decaying (the paper's K runs on after recovery). */
	assert_true(q.alpha < before.alpha);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_at_line_rate),
		cmocka_unit_test(test_first_cnp_halves),
		cmocka_unit_test(test_cnp_within_reduce_period_ignored),
		cmocka_unit_test(test_cnp_at_time_zero),
		cmocka_unit_test(test_cnp_after_period_uses_decayed_alpha),
		cmocka_unit_test(test_alpha_decay_k_periods),
		cmocka_unit_test(test_increase_sequence_small),
		cmocka_unit_test(test_increase_sequence_connectx),
		cmocka_unit_test(test_increase_connectx_two_cuts),
		cmocka_unit_test(test_min_dec_fac_floor),
		cmocka_unit_test(test_min_rate_floor),
		cmocka_unit_test(test_catchup_bound),
		cmocka_unit_test(test_clamp_on_max_change),
		cmocka_unit_test(test_tx_ns),
		cmocka_unit_test(test_no_overflow_400g),
		cmocka_unit_test(test_line_rate_stops_counting),
	};

	return cmocka_run_group_tests_name("dcqcn", tests, NULL, NULL);
}
