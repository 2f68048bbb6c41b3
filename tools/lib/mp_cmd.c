// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "mp_cmd.h"
#include "mp_out.h"

void mp_group_commands(const struct mp_group *group, FILE *f)
{
	const struct mp_cmd *cmd;

	fputs("Commands:\n", f);
	for (cmd = group->cmds; cmd->name; cmd++)
		fprintf(f, "  %-12s %s\n", cmd->name, cmd->summary);
}

void mp_group_help(const struct mp_group *group, FILE *f)
{
	fputs(group->usage, f);
	fputc('\n', f);
	mp_group_commands(group, f);
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

/* The most long options one command has, with room for --json. */
#define LONGOPTS_MAX	64

/*
 * @shortopts and @longopts with -j/--json added, unless the command has
 * its own -j: the global option is taken after the command too, as
 * bpftool's is.  Made again at each call: callers build their tables on
 * the stack (mp_opt.c), where one table's address may be another's.
 */
static void with_json(const char **shortopts, const struct option **longopts)
{
	static char s[128];
	static struct option l[LONGOPTS_MAX + 2];
	unsigned int n = 0;

	if (strchr(*shortopts, 'j') || strlen(*shortopts) + 2 > sizeof(s))
		return;
	while (*longopts && (*longopts)[n].name && n < LONGOPTS_MAX)
		n++;
	if (*longopts && (*longopts)[n].name)
		return;		/* too many to copy: as they are */
	if (n)
		memcpy(l, *longopts, n * sizeof(*l));
	l[n] = (struct option){ "json", no_argument, NULL, 'j' };
	l[n + 1] = (struct option){};
	snprintf(s, sizeof(s), "%sj", *shortopts);
	*shortopts = s;
	*longopts = l;
}

int mp_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts)
{
	bool own_j = strchr(shortopts, 'j');
	int c;

	with_json(&shortopts, &longopts);
	/* Our messages name the command; getopt's would name only argv[0]. */
	opterr = 0;
	do {
		c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == 'j' && !own_j)
			mp_json = true;
	} while (c == 'j' && !own_j);
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
