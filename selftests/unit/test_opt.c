// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_opt.c, the option table behind parsing,
 * --help and the man page's option list: every kind of value, ranges,
 * defaults kept, options and operands mixed, "--", bad lines and what
 * they say, --help's layout and words, the roff of --help-man, and a
 * table parsed twice in one process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_opt.h"
#include "unit_stdio.h"

/* unit.mk builds a test from its own file and tools/lib/mp_opt.c alone;
 * what mp_opt.c uses comes in here. */
#include "mp_arg.c"
#include "mp_cmd.c"
#include "mp_out.c"

#define TEST_ARGS void **state __attribute__((unused))
#define ARGC(a)	((int)(sizeof(a) / sizeof((a)[0])) - 1)

struct settings {
	uint64_t iters, size, wait_ns, any;
	int op;
	bool verbose;
	const char *name;
	int custom;
};

static const char *const ops[] = { "allreduce", "allgather", "broadcast", NULL };
static int custom_calls;
static char custom_opt[32];

/* Takes "odd" numbers only, to tell its verdict from the table's. */
static int parse_odd(const char *opt, const char *arg, void *field)
{
	int v = atoi(arg);

	custom_calls++;
	snprintf(custom_opt, sizeof(custom_opt), "%s", opt);
	if (!(v & 1))
		return mp_usage_err("bad %s '%s': want an odd number", opt, arg);
	*(int *)field = v;
	return MP_EXIT_OK;
}

static const struct mp_opt opts[] = {
	{ "iters", 'n', MP_OPT_UINT, MP_OPT_AT(struct settings, iters), "N",
	  "timed iterations", .min = 1, .max = 100000, .def = "20" },
	{ "size", 's', MP_OPT_BYTES, MP_OPT_AT(struct settings, size), "BYTES",
	  "bytes per rank", .min = 4, .max = 1ULL << 30 },
	{ "wait", 0, MP_OPT_SECONDS, MP_OPT_AT(struct settings, wait_ns), "SEC",
	  .help = "how long to wait" },
	{ "any", 0, MP_OPT_UINT, MP_OPT_AT(struct settings, any), "N",
	  .help = "an integer with no upper bound" },
	{ "op", 'o', MP_OPT_CHOICE, MP_OPT_AT(struct settings, op), "OP",
	  "the collective", .choices = ops, .def = "allreduce" },
	{ "verbose", 'v', MP_OPT_FLAG, MP_OPT_AT(struct settings, verbose), NULL,
	  .help = "say more" },
	{ "name", 0, MP_OPT_STRING, MP_OPT_AT(struct settings, name), "NAME",
	  .help = "a name, kept as given" },
	{ "odd", 0, MP_OPT_CUSTOM, MP_OPT_AT(struct settings, custom), "N",
	  "an odd number", .parse = parse_odd },
	{}
};

static const struct mp_opt_cmd cmd = {
	.usage = "test run [OPTIONS] FILE...",
	.about = "Run a test.\n",
	.opts = opts,
	.footer = "Examples:\n  test run -n 5 f\n",
};

static struct settings defaults(void)
{
	return (struct settings){ .iters = 20, .op = 0, .name = "def" };
}

/* mp_opt_parse() on @argv, its stderr in *@err (free it) when @err. */
static int parse(int argc, char **argv, struct settings *s,
		 struct mp_opt_result *res, char **err)
{
	struct grab g;
	int rc;

	grab_start(&g, 2);
	rc = mp_opt_parse(&cmd, argc, argv, s, res);
	if (err)
		*err = grab_end(&g);
	else
		free(grab_end(&g));
	return rc;
}

static void test_opt_values(TEST_ARGS)
{
	char *argv[] = { "run", "-n", "7", "--size", "64K", "--wait", "0.25",
			 "-o", "broadcast", "-v", "--name", "x1", "--odd=3",
			 "--any", "0x10", NULL };
	struct settings s = defaults();
	struct mp_opt_result res;

	assert_int_equal(parse(ARGC(argv), argv, &s, &res, NULL), MP_OPT_RUN);
	assert_int_equal(s.iters, 7);
	assert_int_equal(s.size, 65536);
	assert_int_equal(s.wait_ns, 250000000);
	assert_int_equal(s.op, 2);
	assert_true(s.verbose);
	/* A string points into argv: nothing is copied. */
	assert_ptr_equal(s.name, argv[11]);
	assert_int_equal(s.custom, 3);
	assert_string_equal(custom_opt, "--odd");
	assert_int_equal(s.any, 16);
	assert_int_equal(res.argi, ARGC(argv));
	assert_true(mp_opt_given(&cmd, &res, "iters"));
	assert_true(mp_opt_given(&cmd, &res, "odd"));
	assert_false(mp_opt_given(&cmd, &res, "nosuch"));
}

/* What is not on the line keeps its default, and is not "given". */
static void test_opt_defaults_kept(TEST_ARGS)
{
	char *argv[] = { "run", "-v", NULL };
	struct settings s = defaults();
	struct mp_opt_result res;

	assert_int_equal(parse(ARGC(argv), argv, &s, &res, NULL), MP_OPT_RUN);
	assert_int_equal(s.iters, 20);
	assert_string_equal(s.name, "def");
	assert_int_equal(s.op, 0);
	assert_false(mp_opt_given(&cmd, &res, "iters"));
	assert_true(mp_opt_given(&cmd, &res, "verbose"));
	assert_int_equal(res.seen, 1ULL << 5);
}

/* Operands may come before, between and after options; "--" ends them. */
static void test_opt_operands(TEST_ARGS)
{
	char *argv[] = { "run", "a", "-n", "3", "b", "--", "-v", NULL };
	struct settings s = defaults();
	struct mp_opt_result res;

	assert_int_equal(parse(ARGC(argv), argv, &s, &res, NULL), MP_OPT_RUN);
	assert_int_equal(s.iters, 3);
	assert_false(s.verbose);
	assert_int_equal(ARGC(argv) - res.argi, 3);
	assert_string_equal(argv[res.argi], "a");
	assert_string_equal(argv[res.argi + 1], "b");
	assert_string_equal(argv[res.argi + 2], "-v");
}

/* A second parse in one process starts from argv[1] again: getopt's
 * state is not left over from the first. */
static void test_opt_parse_twice(TEST_ARGS)
{
	char *a1[] = { "run", "-n", "4", "x", NULL };
	char *a2[] = { "run", "-n", "5", NULL };
	struct settings s = defaults();
	struct mp_opt_result res;

	assert_int_equal(parse(ARGC(a1), a1, &s, &res, NULL), MP_OPT_RUN);
	assert_int_equal(s.iters, 4);
	s = defaults();
	assert_int_equal(parse(ARGC(a2), a2, &s, &res, NULL), MP_OPT_RUN);
	assert_int_equal(s.iters, 5);
	assert_int_equal(res.argi, 3);
}

/* @text holds @want, or the test fails showing both. */
static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("\n%s\n--- does not hold ---\n%s", text, want);
}

static unsigned int lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct bad_line {
	const char *args[4];
	const char *says;
};

/* Each bad line is refused with exit 2 and one line that names the
 * option and what it wants, then the pointer to --help. */
static void test_opt_bad_lines(TEST_ARGS)
{
	static const struct bad_line bad[] = {
		{ { "-n", "0" }, "bad --iters '0': want an integer from 1 to 100000" },
		{ { "-n", "100001" }, "from 1 to 100000" },
		{ { "-n", "-1" }, "bad --iters '-1'" },
		{ { "-n", "5x" }, "bad --iters '5x'" },
		{ { "--size", "2" }, "bad --size '2': want a size such as 4096, 64K or 1M, from 4 to 1073741824 bytes" },
		{ { "--size", "2G" }, "bad --size '2G'" },
		{ { "--size", "64Q" }, "bad --size '64Q'" },
		{ { "--wait", "-1" }, "bad --wait '-1': want seconds" },
		{ { "--wait", "1e3" }, "bad --wait '1e3'" },
		{ { "-o", "reduce" }, "bad --op 'reduce': want one of allreduce, allgather, broadcast" },
		{ { "--odd", "4" }, "bad --odd '4': want an odd number" },
		{ { "--bogus" }, "bad option '--bogus'" },
		{ { "-x" }, "unknown option '-x'" },
		{ { "-n" }, "option '-n' needs an argument" },
		{ { "--iters" }, "option '--iters' needs an argument" },
		{ { "--verbose=1" }, "--verbose" },
	};
	struct mp_opt_result res;
	struct settings s;
	unsigned int i;
	char *argv[5], *err;
	int argc;

	mp_progname = "mplanectl";
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[0] = "run";
		for (argc = 1; argc < 4 && bad[i].args[argc - 1]; argc++)
			argv[argc] = (char *)bad[i].args[argc - 1];
		argv[argc] = NULL;
		s = defaults();
		assert_int_equal(parse(argc, argv, &s, &res, &err),
				 MP_EXIT_USAGE);
		if (!strstr(err, bad[i].says))
			fail_msg("%s %s: '%s' does not say '%s'", argv[1],
				 argc > 2 ? argv[2] : "", err, bad[i].says);
		assert_non_null(strstr(err, "Try 'mplanectl --help'."));
		/* One line of what is wrong, one of where to look. */
		assert_int_equal(lines(err), 2);
		/* A refused value leaves the setting as it was. */
		assert_int_equal(s.iters, 20);
		free(err);
	}
}

static void test_opt_bytes(TEST_ARGS)
{
	static const struct {
		const char *arg;
		uint64_t bytes;
	} good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 },
		{ "64KB", 65536 }, { "64KiB", 65536 }, { "1M", 1 << 20 },
		{ "3G", 3ULL << 30 }, { "17179869183G", 17179869183ULL << 30 },
	};
	static const char *const bad[] = {
		"", "K", "-1", " 1", "1 K", "1KK", "1Kb2", "1T", "1.5M", "0x10",
		"17179869184G", "18446744073709551616",
	};
	uint64_t v;
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 1;
		assert_int_equal(mp_opt_bytes(good[i].arg, &v), 0);
		assert_int_equal(v, good[i].bytes);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (!mp_opt_bytes(bad[i], &v))
			fail_msg("'%s' was taken as %llu bytes", bad[i],
				 (unsigned long long)v);
		assert_int_equal(v, 7);
	}
}

/* SECONDS keeps to a range when the table sets one. */
static void test_opt_seconds_range(TEST_ARGS)
{
	static const struct mp_opt t[] = {
		{ "period", 0, MP_OPT_SECONDS, 0, "SEC", "the period",
		  .min = 1000000, .max = 60000000000ULL },
		{}
	};
	static const struct mp_opt_cmd c = { .usage = "x", .opts = t };
	char *ok[] = { "x", "--period", "0.001", NULL };
	char *lo[] = { "x", "--period", "0.0005", NULL };
	char *hi[] = { "x", "--period", "61", NULL };
	struct mp_opt_result res;
	uint64_t ns = 0;
	struct grab g;
	char *err;

	assert_int_equal(mp_opt_parse(&c, ARGC(ok), ok, &ns, &res), MP_OPT_RUN);
	assert_int_equal(ns, 1000000);
	grab_start(&g, 2);
	assert_int_equal(mp_opt_parse(&c, ARGC(lo), lo, &ns, &res), MP_EXIT_USAGE);
	assert_int_equal(mp_opt_parse(&c, ARGC(hi), hi, &ns, &res), MP_EXIT_USAGE);
	err = grab_end(&g);
	assert_non_null(strstr(err, "bad --period '61': want from 0.001 to 60 seconds"));
	free(err);
}

/* A table that takes -h for itself keeps it; --help still helps. */
static void test_opt_own_h(TEST_ARGS)
{
	static const struct mp_opt t[] = {
		{ "host", 'h', MP_OPT_STRING, 0, "HOST", .help = "the host" },
		{}
	};
	static const struct mp_opt_cmd c = { .usage = "x [OPTIONS]", .opts = t };
	char *argv[] = { "x", "-h", "h3", NULL };
	char *help[] = { "x", "--help", NULL };
	const char *host = NULL;
	struct mp_opt_result res;
	struct grab g;
	char *out;

	assert_int_equal(mp_opt_parse(&c, ARGC(argv), argv, &host, &res),
			 MP_OPT_RUN);
	assert_string_equal(host, "h3");
	grab_start(&g, 1);
	assert_int_equal(mp_opt_parse(&c, ARGC(help), help, &host, &res),
			 MP_EXIT_OK);
	out = grab_end(&g);
	assert_has(out, "  -h, --host HOST");
	assert_has(out, "      --help");
	assert_null(strstr(out, "-h, --help"));
	free(out);
}

static void test_opt_too_many(TEST_ARGS)
{
	static struct mp_opt t[66];
	static char names[65][8];
	struct mp_opt_cmd c = { .usage = "x", .opts = t };
	char *argv[] = { "x", NULL };
	struct mp_opt_result res;
	unsigned int i;
	bool flags[65];
	struct grab g;
	char *err;

	for (i = 0; i < 65; i++) {
		snprintf(names[i], sizeof(names[i]), "o%u", i);
		t[i] = (struct mp_opt){ names[i], 0, MP_OPT_FLAG,
					i * sizeof(bool), NULL,
					.help = "a flag" };
	}
	grab_start(&g, 2);
	assert_int_equal(mp_opt_parse(&c, 1, argv, flags, &res), MP_EXIT_ERR);
	err = grab_end(&g);
	assert_non_null(strstr(err, "too many options in one table (64 at most)"));
	free(err);
	/* 64 is the most, and the last of them is seen. */
	t[64] = (struct mp_opt){};
	argv[0] = "x";
	{
		char *a[] = { "x", "--o63", NULL };

		memset(flags, 0, sizeof(flags));
		assert_int_equal(mp_opt_parse(&c, 2, a, flags, &res), MP_OPT_RUN);
		assert_true(flags[63]);
		assert_true(mp_opt_given(&c, &res, "o63"));
	}
}

/* --help: usage, about, one entry per option and -h, footer; every line
 * within 79 columns, the text in one column; ranges, words, defaults. */
static void test_opt_help(TEST_ARGS)
{
	char *argv[] = { "run", "--help", NULL };
	struct mp_opt_result res;
	struct settings s = defaults();
	char *out, *line, *save;
	struct grab g;

	mp_progname = "mplanectl";
	grab_start(&g, 1);
	assert_int_equal(mp_opt_parse(&cmd, ARGC(argv), argv, &s, &res),
			 MP_EXIT_OK);
	out = grab_end(&g);
	assert_true(!strncmp(out, "Usage: ", 7));
	assert_has(out, "Usage: mplanectl [GLOBAL OPTIONS] test run [OPTIONS] FILE...\n\nRun a test.\n\nOptions:\n");
	assert_has(out, "  -n, --iters N         timed iterations (1 to 100000; default 20)\n");
	assert_has(out, "  -s, --size BYTES      bytes per rank (4 to 1G)\n");
	assert_has(out, "      --wait SEC        how long to wait\n");
	/* No upper bound set: no range shown, and nothing made up. */
	assert_has(out, "      --any N           an integer with no upper bound\n");
	assert_has(out, "  -o, --op OP           the collective (one of: allreduce, allgather,\n"
				    "                        broadcast; default allreduce)\n");
	assert_has(out, "  -v, --verbose         say more\n");
	assert_has(out, "  -h, --help            show this help\n");
	assert_has(out, "\nExamples:\n  test run -n 5 f\n");
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 79)
			fail_msg("line over 79 columns: '%s'", line);
	free(out);
}

/* Long words wrap, and an option too wide for the column moves its
 * text to the next line. */
static void test_opt_help_wrap(TEST_ARGS)
{
	static const struct mp_opt t[] = {
		{ "a-very-long-option", 0, MP_OPT_STRING, 0, "METAVAR",
		  .help = "one two three four five six seven eight nine ten eleven twelve thirteen" },
		{ "nohelp", 0, MP_OPT_FLAG, .offset = 0 },
		{}
	};
	static const struct mp_opt_cmd c = { .usage = "x", .opts = t };
	struct grab g;
	char *out;

	grab_start(&g, 1);
	mp_opt_help(&c, stdout);
	out = grab_end(&g);
	assert_has(out,
		"      --a-very-long-option METAVAR\n"
		"                        one two three four five six seven eight nine ten eleven\n"
		"                        twelve thirteen\n");
	/* No text, no padding after the option. */
	assert_has(out, "\n      --nohelp\n");
	free(out);
}

/* The man page's list: .TP per option, '-' escaped, no line that roff
 * would take for a request. */
static void test_opt_man(TEST_ARGS)
{
	static const struct mp_opt t[] = {
		{ "iters", 'n', MP_OPT_UINT, 0, "N", "timed iterations",
		  .min = 1, .max = 9, .def = "2" },
		{ "dot", 0, MP_OPT_FLAG, 0, NULL,
		  .help = ".starts with a dot\n'and a quote" },
		{ "nohelp", 0, MP_OPT_FLAG, .offset = 0 },
		{}
	};
	static const struct mp_opt_cmd c = { .usage = "x", .opts = t };
	char *argv[] = { "x", "--help-man", NULL };
	struct mp_opt_result res;
	uint64_t v[4] = {};
	struct grab g;
	char *out;

	grab_start(&g, 1);
	assert_int_equal(mp_opt_parse(&c, ARGC(argv), argv, v, &res), MP_EXIT_OK);
	out = grab_end(&g);
	assert_string_equal(out,
		".TP\n"
		"\\fB\\-n\\fR, \\fB\\-\\-iters\\fR \\fIN\\fR\n"
		"\\&timed iterations (1 to 9; default 2)\n"
		".TP\n"
		"\\fB\\-\\-dot\\fR\n"
		"\\&.starts with a dot\n"
		"\\&'and a quote\n"
		".TP\n"
		"\\fB\\-\\-nohelp\\fR\n"
		"\\&\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_values),
		cmocka_unit_test(test_opt_defaults_kept),
		cmocka_unit_test(test_opt_operands),
		cmocka_unit_test(test_opt_parse_twice),
		cmocka_unit_test(test_opt_bad_lines),
		cmocka_unit_test(test_opt_bytes),
		cmocka_unit_test(test_opt_seconds_range),
		cmocka_unit_test(test_opt_own_h),
		cmocka_unit_test(test_opt_too_many),
		cmocka_unit_test(test_opt_help),
		cmocka_unit_test(test_opt_help_wrap),
		cmocka_unit_test(test_opt_man),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
