/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Acceptance expectations: what a fabric should show, one line each, in
 * a file that ships with mplane (tools/accept/expect.conf) and that users
 * edit for their own fabric.  A line names the acceptance class, the
 * policy, the measured figure and what it must be:
 *
 *	# CLASS     POLICY     FIGURE                 TEST
 *	baseline    ar+plb     permutation_goodput    >= 0.95
 *	isolation   ar+plb+cc  victim_step_ratio      <= 1.05
 *	scale       ar+plb     busbw_16_over_4        ~ 1.0 10%
 *
 * TEST is one of >= > <= < followed by a number, or "~ VALUE TOL": within
 * TOL of VALUE, TOL a number or a percentage of VALUE.  '#' starts a
 * comment; blank lines are skipped.  Every error names its line.
 */
#ifndef MP_EXPECT_H
#define MP_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum mp_expect_class {
	MP_EXPECT_BASELINE,
	MP_EXPECT_ISOLATION,
	MP_EXPECT_RESILIENCY,
	MP_EXPECT_SCALE,
	MP_EXPECT_NCLASSES,
};

/* The policies compared side by side: the baselines to beat, then
 * mplane's loops added one at a time. */
enum mp_expect_policy {
	MP_EXPECT_BOND,		/* bonding over the rails */
	MP_EXPECT_ECMP,		/* the kernel's multipath routes */
	MP_EXPECT_DCQCN,	/* ECMP with DCQCN in mp0 */
	MP_EXPECT_AR,		/* adaptive routing in the switches */
	MP_EXPECT_AR_PLB,	/* AR and mp0's plane load balancing */
	MP_EXPECT_AR_PLB_CC,	/* all three loops */
	MP_EXPECT_NPOLICIES,
};

enum mp_expect_op {
	MP_EXPECT_GE,
	MP_EXPECT_GT,
	MP_EXPECT_LE,
	MP_EXPECT_LT,
	MP_EXPECT_NEAR,
};

#define MP_EXPECT_FIGURE_MAX	64

struct mp_expect {
	enum mp_expect_class cls;
	enum mp_expect_policy policy;
	char figure[MP_EXPECT_FIGURE_MAX];
	enum mp_expect_op op;
	double value;
	double tolerance;	/* ~ only: absolute, or a share of value */
	bool tolerance_pct;
	unsigned int line;
};

struct mp_expect_set {
	struct mp_expect *item;
	size_t n, cap;
};

/* Names, as the file spells them. */
const char *mp_expect_class_name(enum mp_expect_class cls);
const char *mp_expect_policy_name(enum mp_expect_policy policy);
const char *mp_expect_op_name(enum mp_expect_op op);
int mp_expect_class_parse(const char *name);
int mp_expect_policy_parse(const char *name);

/*
 * One line: 1 with @e filled in, 0 for a blank or comment line, -1 with
 * what is wrong in @err (without the line's number).  @figures, when not
 * NULL, holds for each class (indexed by enum mp_expect_class) the
 * NULL-terminated list of the figures it knows of, or NULL: any figure.
 */
int mp_expect_parse_line(const char *line, const char *const *const *figures,
			 struct mp_expect *e, char *err, size_t errlen);

/*
 * Every line of @f into @set (appended); 0, or -1 with "PATH:LINE: what
 * is wrong" in @err.  @set is left with the lines before the bad one.
 */
int mp_expect_parse(FILE *f, const char *path, const char *const *const *figures,
		    struct mp_expect_set *set, char *err, size_t errlen);

void mp_expect_set_free(struct mp_expect_set *set);

/* Does @measured meet @e?  NaN (not measured) never does. */
bool mp_expect_holds(const struct mp_expect *e, double measured);

/* "TEST" as the file wrote it, e.g. ">= 0.95" or "~ 1 10%". */
int mp_expect_test_str(const struct mp_expect *e, char *buf, size_t len);

#endif
