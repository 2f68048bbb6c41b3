// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_print.c, the one output path for text and
 * JSON: the same calls print each form, values land where their
 * destination says, containers nest, JSON stays valid for values it has
 * no word for (NaN), and unbalanced or too deep nesting cannot break the
 * document; tables and wrapped words laid out from the same calls as
 * their JSON, across or down, whatever their callers get wrong.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "mp_print.h"
#include "unit_stdio.h"

/* unit.mk builds a test from its own file and tools/lib/mp_print.c
 * alone; mp_json and mp_json_print() come in here. */
#include "mp_out.c"

#define TEST_ARGS void **state __attribute__((unused))

/* One report, as a command prints it: a header, rows in an array. */
static void report(void)
{
	unsigned int i;

	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "op", "# %s", "allreduce");
	mp_print_u64(MP_PRINT_ANY, "nranks", " over %" PRIu64 " ranks\n", 4);
	mp_print_text("#     size    busbw\n");
	mp_print_open_array("sizes");
	for (i = 0; i < 2; i++) {
		mp_print_open_object(NULL);
		mp_print_u64(MP_PRINT_ANY, "size", "%10" PRIu64, 1024 << i);
		mp_print_float(MP_PRINT_ANY, "busbw", " %8.2f", 0.1 * (i + 1));
		mp_print_bool(MP_PRINT_JSON, "ok", NULL, true);
		mp_print_str(MP_PRINT_TEXT, NULL, "  %s", "ok");
		mp_print_text("\n");
		mp_print_close_object();
	}
	mp_print_close_array();
	mp_print_s64(MP_PRINT_ANY, "skew_ns", "skew %" PRId64 " ns\n", -12);
	mp_print_null(MP_PRINT_ANY, "error", "no error\n");
	mp_print_end();
}

static char *run(bool json, void (*fn)(void))
{
	struct grab g;

	mp_json = json;
	grab_start(&g, 1);
	fn();
	return grab_end(&g);
}

static void test_print_text(TEST_ARGS)
{
	char *out = run(false, report);

	assert_string_equal(out,
		"# allreduce over 4 ranks\n"
		"#     size    busbw\n"
		"      1024     0.10  ok\n"
		"      2048     0.20  ok\n"
		"skew -12 ns\n"
		"no error\n");
	free(out);
}

/* One line, one document; floats with six digits, not 17. */
static void test_print_json(TEST_ARGS)
{
	char *out = run(true, report);

	assert_string_equal(out,
		"{\"op\":\"allreduce\",\"nranks\":4,\"sizes\":["
		"{\"size\":1024,\"busbw\":0.1,\"ok\":true},"
		"{\"size\":2048,\"busbw\":0.2,\"ok\":true}],"
		"\"skew_ns\":-12,\"error\":null}\n");
	free(out);
}

static void values(void)
{
	mp_print_start_array();
	mp_print_u64(MP_PRINT_ANY, NULL, "%" PRIu64 "\n", UINT64_MAX);
	mp_print_s64(MP_PRINT_ANY, NULL, "%" PRId64 "\n", INT64_MIN);
	mp_print_float(MP_PRINT_ANY, NULL, "%.1f\n", NAN);
	mp_print_float(MP_PRINT_ANY, NULL, "%.1f\n", -INFINITY);
	mp_print_float(MP_PRINT_ANY, NULL, "%.1f\n", 1234567.0);
	mp_print_float(MP_PRINT_ANY, NULL, "%.1f\n", 2.5e-9);
	mp_print_str(MP_PRINT_ANY, NULL, "%s\n", NULL);
	mp_print_str(MP_PRINT_ANY, NULL, "%s\n", "a \"q\" \\ /path\n");
	mp_print_bool(MP_PRINT_ANY, NULL, "%s\n", false);
	mp_print_end();
}

/* The extremes of each type, and what JSON has no number for. */
static void test_print_values(TEST_ARGS)
{
	struct json_object *doc;
	char *out = run(true, values);

	assert_string_equal(out,
		"[18446744073709551615,-9223372036854775808,null,null,"
		"1.23457e+06,2.5e-09,null,\"a \\\"q\\\" \\\\ /path\\n\",false]\n");
	/* Valid JSON, as a parser reads it back. */
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_int_equal(json_object_array_length(doc), 9);
	assert_true(json_object_get_uint64(json_object_array_get_idx(doc, 0)) ==
		    UINT64_MAX);
	json_object_put(doc);
	free(out);
	out = run(false, values);
	assert_string_equal(out,
		"18446744073709551615\n-9223372036854775808\nnan\n-inf\n"
		"1234567.0\n0.0\n-\na \"q\" \\ /path\n\nfalse\n");
	free(out);
}

/* Every digit json-c has for a double, and null for what JSON lacks. */
static void doubles(void)
{
	mp_print_start();
	mp_print_double(MP_PRINT_ANY, "mean", "%.1f", 1874.4377811094453);
	mp_print_double(MP_PRINT_ANY, "p50", " %.0f", 3000);
	mp_print_double(MP_PRINT_JSON, "cv", NULL, NAN);
	mp_print_end();
}

static void test_print_double(TEST_ARGS)
{
	char *out = run(true, doubles);

	assert_string_equal(out,
		"{\"mean\":1874.4377811094453,\"p50\":3000.0,\"cv\":null}\n");
	free(out);
	out = run(false, doubles);
	assert_string_equal(out, "1874.4 3000");
	free(out);
}

/* A summary on stderr: nothing of it on stdout, and stdout after it. */
static void summary(void)
{
	mp_print_set_file(stderr);
	mp_print_start();
	mp_print_u64(MP_PRINT_ANY, "read", "# %" PRIu64 " read\n", 7);
	mp_print_end();
	mp_print_set_file(NULL);
	mp_print_start();
	mp_print_u64(MP_PRINT_ANY, "after", "after %" PRIu64 "\n", 1);
	mp_print_end();
}

static char *run_stderr(bool json, char **err)
{
	struct grab g, e;

	mp_json = json;
	grab_start(&g, 1);
	grab_start(&e, 2);
	summary();
	*err = grab_end(&e);	/* stderr's, ended first */
	return grab_end(&g);
}

static void test_print_set_file(TEST_ARGS)
{
	char *err, *out;

	out = run_stderr(false, &err);
	assert_string_equal(err, "# 7 read\n");
	assert_string_equal(out, "after 1\n");
	free(err);
	free(out);
	out = run_stderr(true, &err);
	assert_string_equal(err, "{\"read\":7}\n");
	assert_string_equal(out, "{\"after\":1}\n");
	free(err);
	free(out);
}

/* A command that forgets to close, or closes too often, still prints one
 * valid document, and the next one is separate. */
static void unbalanced(void)
{
	mp_print_start();
	mp_print_open_object("a");
	mp_print_open_array("b");
	mp_print_u64(MP_PRINT_ANY, NULL, NULL, 1);
	mp_print_end();
	mp_print_start();
	mp_print_close_object();
	mp_print_close_array();
	mp_print_u64(MP_PRINT_ANY, "c", NULL, 2);
	mp_print_end();
	/* No document started: nothing comes out, nothing breaks. */
	mp_print_u64(MP_PRINT_ANY, "d", NULL, 3);
	mp_print_open_object("e");
	mp_print_close_object();
	mp_print_end();
}

static void test_print_unbalanced(TEST_ARGS)
{
	char *out = run(true, unbalanced);

	assert_string_equal(out, "{\"a\":{\"b\":[1]}}\n{\"c\":2}\n");
	free(out);
}

/* Deeper than the stack: values go to the deepest container kept, and
 * the closes of the lost ones do not close their parents. */
static void deep(void)
{
	int i;

	mp_print_start();
	for (i = 0; i < 20; i++)
		mp_print_open_object("x");
	mp_print_u64(MP_PRINT_ANY, "v", NULL, 7);
	for (i = 0; i < 20; i++)
		mp_print_close_object();
	mp_print_u64(MP_PRINT_ANY, "after", NULL, 8);
	mp_print_end();
}

static void test_print_too_deep(TEST_ARGS)
{
	struct json_object *doc, *o, *v;
	char *out = run(true, deep);
	int levels = 0;

	doc = json_tokener_parse(out);
	assert_non_null(doc);
	/* "after" is a member of the document, not of some "x". */
	assert_true(json_object_object_get_ex(doc, "after", &v));
	assert_int_equal(json_object_get_int(v), 8);
	for (o = doc; json_object_object_get_ex(o, "x", &v); o = v)
		levels++;
	assert_int_equal(levels, 15);
	assert_true(json_object_object_get_ex(o, "v", &v));
	json_object_put(doc);
	free(out);
}

/* A document left open is printed when the next one starts. */
static void restart(void)
{
	mp_print_start();
	mp_print_u64(MP_PRINT_ANY, "first", NULL, 1);
	mp_print_start_array();
	mp_print_u64(MP_PRINT_ANY, NULL, NULL, 2);
	mp_print_end();
}

static void test_print_restart(TEST_ARGS)
{
	char *out = run(true, restart);

	assert_string_equal(out, "{\"first\":1}\n[2]\n");
	free(out);
}

static void fixed(void)
{
	mp_print_start_array();
	mp_print_fixed(MP_PRINT_ANY, NULL, "%.6f\n", 6, 1.5);
	mp_print_fixed(MP_PRINT_ANY, NULL, "%.1f\n", 1, 1234567.25);
	mp_print_fixed(MP_PRINT_ANY, NULL, "%.3f\n", 3, 0.0004);
	mp_print_fixed(MP_PRINT_ANY, NULL, "%.3f\n", 3, NAN);
	mp_print_fixed(MP_PRINT_JSON, NULL, "%.1f\n", 1, 2.0);
	mp_print_fixed(MP_PRINT_TEXT, NULL, "%.1f\n", 1, 3.0);
	mp_print_end();
}

/* The digits text shows, where six significant ones would round 1.2
 * million to 1.23457e+06; each destination still gets only its own. */
static void test_print_fixed(TEST_ARGS)
{
	char *out = run(true, fixed);

	assert_string_equal(out, "[1.500000,1234567.2,0.000,null,2.0]\n");
	free(out);
	out = run(false, fixed);
	assert_string_equal(out, "1.500000\n1234567.2\n0.000\nnan\n3.0\n");
	free(out);
}

static const struct mp_print_col plane_cols[] = {
	{ .header = "plane" },
	{ .header = "rail", .left = true },
	{ .header = "state", .left = true },
	{ .header = "tx_packets" },
	{ .header = "drops", .width = 3 },
};

/* Planes as link show prints them: a row, and an object, each. */
static void planes(void)
{
	static const char *const rails[] = { "a0", "rail-long" };
	unsigned int i;

	mp_print_start();
	mp_print_open_array("planes");
	mp_print_table_open(4, plane_cols, 5);
	for (i = 0; i < 2; i++) {
		mp_print_table_row();
		mp_print_open_object(NULL);
		mp_print_u64(MP_PRINT_ANY, "index", "%" PRIu64, i);
		mp_print_str(MP_PRINT_ANY, "rail", "%s", rails[i]);
		mp_print_bool(MP_PRINT_JSON, "up", NULL, i);
		mp_print_str(MP_PRINT_TEXT, NULL, "%s", i ? "up" : "down");
		mp_print_u64(MP_PRINT_ANY, "tx_packets", "%" PRIu64,
			     i * 1234567);
		if (i)
			mp_print_u64(MP_PRINT_ANY, "drops", "%" PRIu64, 5);
		else
			mp_print_text("-");
		mp_print_close_object();
	}
	mp_print_table_close();
	mp_print_close_array();
	mp_print_text("after\n");
	mp_print_end();
}

static void test_print_table(TEST_ARGS)
{
	char *out = run(false, planes);

	/* Widths from the widest cell, the header or the least width;
	 * numbers to the right, words to the left. */
	assert_string_equal(out,
		"    plane rail      state tx_packets drops\n"
		"        0 a0        down           0     -\n"
		"        1 rail-long up       1234567     5\n"
		"after\n");
	free(out);
	out = run(true, planes);
	assert_string_equal(out,
		"{\"planes\":["
		"{\"index\":0,\"rail\":\"a0\",\"up\":false,\"tx_packets\":0},"
		"{\"index\":1,\"rail\":\"rail-long\",\"up\":true,"
		"\"tx_packets\":1234567,\"drops\":5}]}\n");
	free(out);
}

static const struct mp_print_col dir_cols[] = {
	{ .width = 8, .left = true },
	{ .header = "ingress", .width = 8 },
	{ .header = "egress", .width = 8 },
};

/* Counters down, a direction across: the JSON objects are columns. */
static void dirs(void)
{
	static const char *const names[] = { "ingress", "egress" };
	unsigned int d;

	mp_print_start();
	mp_print_table_open(2, dir_cols, 3);
	mp_print_table_col();
	mp_print_text("hook");
	mp_print_text("packets");
	for (d = 0; d < 2; d++) {
		mp_print_table_col();
		mp_print_open_object(names[d]);
		mp_print_str(MP_PRINT_ANY, "hook", "%s", d ? "tc" : "xdp");
		mp_print_u64(MP_PRINT_ANY, "packets", "%" PRIu64, 100 * d);
		mp_print_close_object();
	}
	mp_print_table_close();
	mp_print_end();
}

static void test_print_table_by_column(TEST_ARGS)
{
	char *out = run(false, dirs);

	assert_string_equal(out,
		"            ingress   egress\n"
		"  hook          xdp       tc\n"
		"  packets         0      100\n");
	free(out);
	out = run(true, dirs);
	assert_string_equal(out,
		"{\"ingress\":{\"hook\":\"xdp\",\"packets\":0},"
		"\"egress\":{\"hook\":\"tc\",\"packets\":100}}\n");
	free(out);
}

static const struct mp_print_col two_cols[] = {
	{ .left = true }, { .left = true },
};

/* A table of no rows; cells before a row, past the last column, a row
 * left short, a group left open: the table still comes out, and the
 * text after it. */
static void ragged(void)
{
	/* No rows: not even a header. */
	mp_print_table_open(2, plane_cols, 5);
	mp_print_table_close();
	mp_print_table_open(0, two_cols, 2);
	mp_print_text("lost");
	mp_print_table_row();
	mp_print_text("a");
	mp_print_text("b");
	mp_print_text("dropped");
	mp_print_table_row();
	mp_print_cell_open();
	mp_print_text("c");
	mp_print_u64(MP_PRINT_ANY, "n", "=%" PRIu64, 1);
	mp_print_table_row();
	mp_print_text("dd");
	mp_print_cell_open();
	mp_print_text("e");
	mp_print_end();
	mp_print_text("out\n");
}

static void test_print_table_ragged(TEST_ARGS)
{
	char *out = run(false, ragged);

	/* The last column is left-aligned: no trailing blanks. */
	assert_string_equal(out, "a   b\nc=1\ndd  e\nout\n");
	free(out);
}

/* Settings as words: "keyword value" stays one word, lines wrap. */
static void words(void)
{
	static const char *const keys[] = { "a_us", "b_us", "c_us", "d_us" };
	unsigned int i;

	mp_print_start();
	mp_print_words_open(4, 30);
	for (i = 0; i < 4; i++) {
		mp_print_cell_open();
		mp_print_text("gap-%u ", i);
		mp_print_u64(MP_PRINT_ANY, keys[i], "%" PRIu64, 100 * i);
		mp_print_text("us");
		mp_print_cell_close();
	}
	mp_print_str(MP_PRINT_ANY, "word", "%s", "a-word-longer-than-the-line");
	mp_print_words_close();
	mp_print_words_open(2, 30);
	mp_print_null(MP_PRINT_ANY, "none", "none");
	mp_print_words_close();
	mp_print_end();
}

static void test_print_words(TEST_ARGS)
{
	char *out = run(false, words);

	assert_string_equal(out,
		"    gap-0 0us gap-1 100us\n"
		"    gap-2 200us gap-3 300us\n"
		"    a-word-longer-than-the-line\n"
		"  none\n");
	free(out);
	out = run(true, words);
	assert_string_equal(out,
		"{\"a_us\":0,\"b_us\":100,\"c_us\":200,\"d_us\":300,"
		"\"word\":\"a-word-longer-than-the-line\",\"none\":null}\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_text),
		cmocka_unit_test(test_print_json),
		cmocka_unit_test(test_print_values),
		cmocka_unit_test(test_print_double),
		cmocka_unit_test(test_print_set_file),
		cmocka_unit_test(test_print_unbalanced),
		cmocka_unit_test(test_print_too_deep),
		cmocka_unit_test(test_print_restart),
		cmocka_unit_test(test_print_fixed),
		cmocka_unit_test(test_print_table),
		cmocka_unit_test(test_print_table_by_column),
		cmocka_unit_test(test_print_table_ragged),
		cmocka_unit_test(test_print_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
