/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A command's options as one table: the same entries drive parsing (each
 * value lands in the command's settings, checked against its range),
 * --help and the man page's option list (--help-man prints it as roff),
 * so the three never disagree.
 *
 *	struct run_settings { uint64_t iters; int op; bool verbose; };
 *	static const struct mp_opt run_opts[] = {
 *		{ "iters", 'n', MP_OPT_UINT, MP_OPT_AT(struct run_settings, iters),
 *		  "N", "timed iterations", .min = 1, .max = 100000, .def = "20" },
 *		...
 *		{}
 *	};
 *	static const struct mp_opt_cmd run_cmd = {
 *		.usage = "collective run [OPTIONS]", .about = "...",
 *		.opts = run_opts,
 *	};
 *	rc = mp_opt_parse(&run_cmd, argc, argv, &settings, &res);
 *	if (rc != MP_OPT_RUN)
 *		return rc;
 */
#ifndef MP_OPT_H
#define MP_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum mp_opt_kind {
	MP_OPT_FLAG,	/* bool; takes no argument */
	MP_OPT_STRING,	/* const char *, pointing into argv */
	MP_OPT_UINT,	/* uint64_t in [min, max] */
	MP_OPT_BYTES,	/* uint64_t in [min, max]; K, M, G are 2^10, 2^20, 2^30 */
	MP_OPT_SECONDS,	/* uint64_t nanoseconds, from seconds such as 0.5;
			 * in [min, max] ns when max is set */
	MP_OPT_CHOICE,	/* int: the index of the argument in choices */
	MP_OPT_CUSTOM,	/* parse(name, arg, field) does it */
};

struct mp_opt {
	const char *name;		/* the long name: "iters" for --iters */
	int short_name;			/* 'n' for -n, or 0 */
	enum mp_opt_kind kind;
	size_t offset;			/* of the value in the settings */
	const char *metavar;		/* "N" in "--iters N"; NULL for flags */
	const char *help;		/* one sentence or more; wrapped */
	/* UINT, BYTES and SECONDS; a max of 0 is no upper bound.  --help
	 * shows the range when max is set. */
	uint64_t min, max;
	const char *const *choices;	/* CHOICE: the words, NULL ended */
	/* CUSTOM: "--name" as @opt, MP_EXIT_OK or MP_EXIT_USAGE (reported). */
	int (*parse)(const char *opt, const char *arg, void *field);
	const char *def;		/* the default, as --help shows it */
};

#define MP_OPT_AT(type, member)	offsetof(type, member)

struct mp_opt_cmd {
	/* After "Usage: PROG [GLOBAL OPTIONS] ": "collective run [OPTIONS]" */
	const char *usage;
	const char *about;		/* what the command does, preformatted */
	/* Optional: after about, what only the program knows at run time
	 * (a table of settings); then about_end. */
	void (*about_table)(FILE *f);
	const char *about_end;
	const struct mp_opt *opts;	/* ends with an entry without name */
	/* Options end at the first operand: what follows is a command line
	 * of its own (fabric exec NODE CMD -x), even without "--". */
	bool options_first;
	const char *footer;		/* examples, preformatted */
};

struct mp_opt_result {
	int argi;			/* argv index of the first operand */
	uint64_t seen;			/* bit i: opts[i] was on the line */
};

/* What mp_opt_parse() returns when the command is to run. */
#define MP_OPT_RUN	(-1)

/*
 * Parse argv (argv[0] is the command's name) into @settings, which holds
 * the defaults on entry.  MP_OPT_RUN, or the status to exit with:
 * MP_EXIT_OK after --help or --help-man, MP_EXIT_USAGE for a bad line
 * (reported, naming the option and what it wants), MP_EXIT_ERR for a
 * table that cannot be parsed with (more than 64 options).  Options and
 * operands may mix: the operands are argv[res->argi..argc-1] after it;
 * "--" ends the options (as does the first operand, with options_first).
 * -h is --help unless the table takes -h itself.
 */
int mp_opt_parse(const struct mp_opt_cmd *cmd, int argc, char **argv,
		 void *settings, struct mp_opt_result *res);

/* True if the option called @name was given. */
bool mp_opt_given(const struct mp_opt_cmd *cmd,
		  const struct mp_opt_result *res, const char *name);

void mp_opt_help(const struct mp_opt_cmd *cmd, FILE *f);
/* The option list as man(7) roff: one .TP paragraph per option. */
void mp_opt_man(const struct mp_opt_cmd *cmd, FILE *f);

/* "64M" (as nccl-tests takes sizes) into bytes: 0, or -1 if it is not. */
int mp_opt_bytes(const char *arg, uint64_t *bytes);

#endif /* MP_OPT_H */
