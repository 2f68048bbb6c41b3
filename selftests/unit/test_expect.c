// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_expect.c, the acceptance expectations:
 * each line's parts and tests, the errors a bad line gets (naming its
 * line), and the presets that ship (tools/accept/expect.conf) parsed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mp_expect.h"

#define TEST_ARGS void **state __attribute__((unused))

/* parse LINE: its mp_expect_parse_line() result, the error in err. */
static struct mp_expect e;
static char err[512];

static int parse(const char *line, const char *const *const *figures)
{
	err[0] = '\0';
	return mp_expect_parse_line(line, figures, &e, err, sizeof(err));
}

static void test_line_parts(TEST_ARGS)
{
	char buf[64];

	assert_int_equal(parse("baseline ar+plb permutation_goodput >= 0.95", NULL), 1);
	assert_int_equal(e.cls, MP_EXPECT_BASELINE);
	assert_int_equal(e.policy, MP_EXPECT_AR_PLB);
	assert_string_equal(e.figure, "permutation_goodput");
	assert_int_equal(e.op, MP_EXPECT_GE);
	assert_true(e.value == 0.95);
	mp_expect_test_str(&e, buf, sizeof(buf));
	assert_string_equal(buf, ">= 0.95");

	assert_int_equal(parse("\tscale  ar+plb+cc busbw_16_over_4 ~ 1.0 10%  # why", NULL), 1);
	assert_int_equal(e.cls, MP_EXPECT_SCALE);
	assert_int_equal(e.policy, MP_EXPECT_AR_PLB_CC);
	assert_int_equal(e.op, MP_EXPECT_NEAR);
	assert_true(e.tolerance_pct);
	assert_true(fabs(e.tolerance - 0.1) < 1e-12);
	mp_expect_test_str(&e, buf, sizeof(buf));
	assert_string_equal(buf, "~ 1 10%");

	assert_int_equal(parse("resiliency ecmp flap_gap_ms < 1", NULL), 1);
	assert_int_equal(e.op, MP_EXPECT_LT);
	assert_int_equal(parse("isolation bond victim_step_ratio ~ 2 0.5", NULL), 1);
	assert_false(e.tolerance_pct);
	assert_true(e.tolerance == 0.5);
}

static void test_blank_and_comments(TEST_ARGS)
{
	assert_int_equal(parse("", NULL), 0);
	assert_int_equal(parse("   \t", NULL), 0);
	assert_int_equal(parse("# baseline ar permutation_goodput >= 1", NULL), 0);
	assert_int_equal(parse("  # indented", NULL), 0);
}

static void test_holds(TEST_ARGS)
{
	assert_int_equal(parse("baseline ar x >= 0.9", NULL), 1);
	assert_true(mp_expect_holds(&e, 0.9));
	assert_false(mp_expect_holds(&e, 0.8999));
	assert_false(mp_expect_holds(&e, NAN));
	assert_int_equal(parse("baseline ar x > 0.9", NULL), 1);
	assert_false(mp_expect_holds(&e, 0.9));
	assert_int_equal(parse("baseline ar x <= 1", NULL), 1);
	assert_true(mp_expect_holds(&e, 1));
	assert_false(mp_expect_holds(&e, 1.0001));
	assert_int_equal(parse("baseline ar x < 1", NULL), 1);
	assert_false(mp_expect_holds(&e, 1));
	assert_int_equal(parse("baseline ar x ~ 2 5%", NULL), 1);
	assert_true(mp_expect_holds(&e, 2.1));
	assert_true(mp_expect_holds(&e, 1.9));
	assert_false(mp_expect_holds(&e, 2.11));
	assert_int_equal(parse("baseline ar x ~ -2 5%", NULL), 1);
	assert_true(mp_expect_holds(&e, -2.1));
	assert_int_equal(parse("baseline ar x ~ 0 0.25", NULL), 1);
	assert_true(mp_expect_holds(&e, -0.25));
	assert_false(mp_expect_holds(&e, 0.26));
	assert_false(mp_expect_holds(&e, NAN));
}

/* bad LINE WANT: the line is refused with the error WANT. */
static void bad(const char *line, const char *const *const *figures, const char *want)
{
	assert_int_equal(parse(line, figures), -1);
	assert_string_equal(err, want);
}

static void test_errors(TEST_ARGS)
{
	static const char *const resiliency[] = { "flap_gap_ms", "plane_loss_gap_ms", NULL };
	static const char *const *const figures[MP_EXPECT_NCLASSES] = {
		[MP_EXPECT_RESILIENCY] = resiliency,
	};

	bad("basline ar x >= 1", NULL,
	    "unknown class 'basline': want baseline, isolation, resiliency or scale");
	bad("baseline ar+pbl x >= 1", NULL,
	    "unknown policy 'ar+pbl': want bond, ecmp, dcqcn, ar, ar+plb or ar+plb+cc");
	bad("baseline", NULL,
	    "no policy '': want bond, ecmp, dcqcn, ar, ar+plb or ar+plb+cc");
	bad("baseline ar", NULL, "no figure after the policy");
	bad("baseline ar Goodput >= 1", NULL,
	    "bad figure 'Goodput': want a name of lower-case letters, digits and '_', such as permutation_goodput, under 64 characters");
	bad("resiliency ar flap_gap >= 1", figures,
	    "resiliency has no figure 'flap_gap' (its figures: flap_gap_ms or plane_loss_gap_ms)");
	bad("baseline ar x", NULL,
	    "no test after the figure: want one of >=, >, <=, < or ~, then a number");
	bad("baseline ar x => 1", NULL, "bad test '=>': want one of >=, >, <=, < or ~");
	bad("baseline ar x >= one", NULL, "bad value 'one' after '>=': want a number");
	bad("baseline ar x >=", NULL, "bad value '' after '>=': want a number");
	bad("baseline ar x >= inf", NULL, "bad value 'inf' after '>=': want a number");
	bad("baseline ar x >= 1%", NULL, "bad value '1%' after '>=': want a number");
	bad("baseline ar x ~ 1", NULL,
	    "bad tolerance '' after '~ 1': want a number or a percentage, such as 0.05 or 5%");
	bad("baseline ar x ~ 1 -5%", NULL,
	    "bad tolerance '-5%' after '~ 1': want a number or a percentage, such as 0.05 or 5%");
	bad("baseline ar x >= 1 2", NULL, "'2' after the test: one expectation a line");
	bad("baseline ar x ~ 1 5% x", NULL, "'x' after the test: one expectation a line");
}

/* A file's bad line is named by its number; what came before is kept. */
static void test_file_names_the_line(TEST_ARGS)
{
	static const char text[] =
		"# presets\n"
		"baseline ar+plb permutation_goodput >= 0.9\n"
		"\n"
		"isolation ar+plb+cc victim_step_ratio <= 1.05\n"
		"scale ar+plb rank_lag <== 1.1\n"
		"scale ar+plb rank_lag <= 1.1\n";
	struct mp_expect_set set = {};
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	assert_non_null(f);
	assert_int_equal(mp_expect_parse(f, "my.conf", NULL, &set, err, sizeof(err)), -1);
	assert_string_equal(err, "my.conf:5: bad test '<==': want one of >=, >, <=, < or ~");
	assert_int_equal(set.n, 2);
	assert_int_equal(set.item[0].line, 2);
	assert_int_equal(set.item[1].line, 4);
	fclose(f);
	mp_expect_set_free(&set);
	assert_null(set.item);
}

/* The presets that ship parse, every class has some, and their tests
 * are the goals the file states. */
static void test_shipped_presets(TEST_ARGS)
{
	const char *path = MPLANE_SRC_ROOT "/tools/accept/expect.conf";
	struct mp_expect_set set = {};
	unsigned int per_class[MP_EXPECT_NCLASSES] = {}, i;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_int_equal(mp_expect_parse(f, path, NULL, &set, err, sizeof(err)), 0);
	fclose(f);
	for (i = 0; i < set.n; i++)
		per_class[set.item[i].cls]++;
	for (i = 0; i < MP_EXPECT_NCLASSES; i++)
		assert_true(per_class[i] > 0);
	for (i = 0; i < set.n; i++) {
		if (!strcmp(set.item[i].figure, "victim_step_ratio")) {
			assert_int_equal(set.item[i].policy, MP_EXPECT_AR_PLB_CC);
			assert_true(set.item[i].value == 1.05);
		}
	}
	mp_expect_set_free(&set);
}

static void test_names_round_trip(TEST_ARGS)
{
	int i;

	for (i = 0; i < MP_EXPECT_NCLASSES; i++)
		assert_int_equal(mp_expect_class_parse(mp_expect_class_name(i)), i);
	for (i = 0; i < MP_EXPECT_NPOLICIES; i++)
		assert_int_equal(mp_expect_policy_parse(mp_expect_policy_name(i)), i);
	assert_int_equal(mp_expect_class_parse("Baseline"), -1);
	assert_string_equal(mp_expect_class_name(MP_EXPECT_NCLASSES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_parts),
		cmocka_unit_test(test_blank_and_comments),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_file_names_the_line),
		cmocka_unit_test(test_shipped_presets),
		cmocka_unit_test(test_names_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
