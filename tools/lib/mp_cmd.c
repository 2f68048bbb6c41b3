// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "mp_cmd.h"
#include "mp_out.h"

void mp_group_help(const struct mp_group *group, FILE *f)
{
	const struct mp_cmd *cmd;

	fputs(group->usage, f);
	fputs("\nCommands:\n", f);
	for (cmd = group->cmds; cmd->name; cmd++)
		fprintf(f, "  %-12s %s\n", cmd->name, cmd->summary);
	if (group->footer)
		fprintf(f, "\n%s", group->footer);
}

static bool is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

int mp_group_run(const struct mp_group *group, int argc, char **argv)
{
	const struct mp_cmd *cmd;

	if (argc < 1) {
		mp_group_help(group, stderr);
		return MP_EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		mp_group_help(group, stdout);
		return MP_EXIT_OK;
	}
	for (cmd = group->cmds; cmd->name; cmd++) {
		if (strcmp(cmd->name, argv[0]))
			continue;
		mp_cmd_path_push(cmd->name);
		/* The command parses its own argv from the start. */
		optind = 0;
		return cmd->run(argc, argv);
	}
	return mp_usage_err("unknown command '%s'", argv[0]);
}

int mp_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts)
{
	int c;

	/* Our messages name the command; getopt's would name only argv[0]. */
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == ':') {
		mp_usage_err("option '%s' needs an argument", argv[optind - 1]);
		return '?';
	}
	if (c == '?') {
		/* A long option is named in full; a short one may sit in a
		 * cluster such as "-jx", where only optopt names it. */
		if (!strncmp(argv[optind - 1], "--", 2))
			mp_usage_err("bad option '%s'", argv[optind - 1]);
		else
			mp_usage_err("unknown option '-%c'", optopt);
	}
	return c;
}

const char *mp_single_arg(int argc, char **argv, const char *what)
{
	if (optind >= argc) {
		mp_usage_err("missing %s", what);
		return NULL;
	}
	if (optind + 1 < argc) {
		mp_usage_err("unexpected argument '%s'", argv[optind + 1]);
		return NULL;
	}
	return argv[optind];
}

int mp_usage_err(const char *fmt, ...)
{
	const char *path = mp_cmd_path();
	va_list ap;

	va_start(ap, fmt);
	mp_verr(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s%s%s --help'.\n", mp_progname,
		path[0] ? " " : "", path);
	return MP_EXIT_USAGE;
}
