/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Command dispatch for mplane tools: a tool is a tree of command tables
 * (groups such as "bpf", then subcommands such as "attach"); each leaf
 * parses its own options with mp_getopt() and prints its own --help.
 */
#ifndef MP_CMD_H
#define MP_CMD_H

#include <getopt.h>
#include <stdio.h>

enum {
	MP_EXIT_OK	= 0,
	MP_EXIT_ERR	= 1,	/* the command ran and failed */
	MP_EXIT_USAGE	= 2,	/* the command line was wrong */
};

/* One entry of a command table; a table ends with an entry without name. */
struct mp_cmd {
	const char *name;
	/* argv[0] is the command's own name, as for main(). */
	int (*run)(int argc, char **argv);
	const char *summary;
};

struct mp_group {
	const char *usage;	/* first lines of --help, before the list */
	const char *footer;	/* options and examples, after the list */
	const struct mp_cmd *cmds;
};

/*
 * Run the command named argv[0] in @group with the rest of argv; no
 * command is a usage error, and "help", -h or --help show the group.
 */
int mp_group_run(const struct mp_group *group, int argc, char **argv);
/* The "Commands:" list of @group, as its help shows it. */
void mp_group_commands(const struct mp_group *group, FILE *f);
void mp_group_help(const struct mp_group *group, FILE *f);

/*
 * getopt_long() for one command.  @shortopts must start with ':' (or "+:"),
 * so that a missing argument is told apart from an unknown option.  Bad
 * options are reported here and come back as '?': the caller then returns
 * MP_EXIT_USAGE.
 */
int mp_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts);

/* The single operand @what left after the options, or NULL (reported). */
const char *mp_single_arg(int argc, char **argv, const char *what);

/* Report a command-line mistake with a pointer to --help; MP_EXIT_USAGE. */
int mp_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MP_CMD_H */
