// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"

/* getopt values of long-only options: past every character. */
#define OPT_LONG_BASE	0x100
#define OPT_HELP	(OPT_LONG_BASE - 1)
#define OPT_HELP_MAN	(OPT_LONG_BASE - 2)
/* Bits of mp_opt_result.seen. */
#define OPT_MAX		64

#define HELP_WIDTH	79
#define HELP_COLUMN	24

static unsigned int opt_count(const struct mp_opt_cmd *cmd)
{
	unsigned int n = 0;

	while (cmd->opts[n].name)
		n++;
	return n;
}

int mp_opt_bytes(const char *arg, uint64_t *bytes)
{
	unsigned int shift = 0;
	char *end;
	uint64_t v;

	if (!isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (shift) {
		end++;
		/* "64KB" and "64KiB" mean what "64K" does. */
		if (!strcasecmp(end, "b") || !strcasecmp(end, "ib"))
			end += strlen(end);
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*bytes = v << shift;
	return 0;
}

/* Whether some option of @cmd takes -@c (then -h is not --help's). */
static bool short_taken(const struct mp_opt_cmd *cmd, int c)
{
	const struct mp_opt *o;

	for (o = cmd->opts; o->name; o++)
		if (o->short_name == c)
			return true;
	return false;
}

static void choices_str(const char *const *choices, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; choices[i] && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				choices[i]);
}

static int parse_choice(const struct mp_opt *o, const char *opt,
			const char *arg, int *val)
{
	char words[256];
	int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(arg, o->choices[i])) {
			*val = i;
			return MP_EXIT_OK;
		}
	}
	choices_str(o->choices, words, sizeof(words));
	return mp_usage_err("bad %s '%s': want one of %s", opt, arg, words);
}

/* A table that leaves max out means no upper bound, not "0 only". */
static uint64_t opt_max(const struct mp_opt *o)
{
	return o->max ? o->max : UINT64_MAX;
}

/* A value that is refused leaves the setting as it was. */
static int parse_bytes(const struct mp_opt *o, const char *opt,
		       const char *arg, uint64_t *val)
{
	uint64_t v;

	if (!mp_opt_bytes(arg, &v) && v >= o->min && v <= opt_max(o)) {
		*val = v;
		return MP_EXIT_OK;
	}
	return mp_usage_err("bad %s '%s': want a size such as 4096, 64K or 1M, from %" PRIu64 " to %" PRIu64 " bytes",
			    opt, arg, o->min, opt_max(o));
}

static int parse_seconds(const struct mp_opt *o, const char *opt,
			 const char *arg, uint64_t *ns)
{
	uint64_t v;
	int rc = mp_arg_seconds(opt, arg, &v);

	if (rc != MP_EXIT_OK)
		return rc;
	if (!o->max || (v >= o->min && v <= o->max)) {
		*ns = v;
		return MP_EXIT_OK;
	}
	return mp_usage_err("bad %s '%s': want from %g to %g seconds", opt,
			    arg, o->min / 1e9, o->max / 1e9);
}

/* The value of option @o from @arg into its field of @settings. */
static int parse_value(const struct mp_opt *o, const char *arg,
		       void *settings)
{
	void *field = (char *)settings + o->offset;
	char opt[64];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->kind) {
	case MP_OPT_FLAG:
		*(bool *)field = true;
		return MP_EXIT_OK;
	case MP_OPT_STRING:
		*(const char **)field = arg;
		return MP_EXIT_OK;
	case MP_OPT_UINT:
		return mp_arg_u64(opt, arg, o->min, opt_max(o), field);
	case MP_OPT_BYTES:
		return parse_bytes(o, opt, arg, field);
	case MP_OPT_SECONDS:
		return parse_seconds(o, opt, arg, field);
	case MP_OPT_CHOICE:
		return parse_choice(o, opt, arg, field);
	case MP_OPT_CUSTOM:
		if (o->parse)
			return o->parse(opt, arg, field);
		break;
	}
	mp_err("%s: no parser in the option table", opt);
	return MP_EXIT_ERR;
}

/* getopt_long()'s tables for @cmd, and --help and --help-man. */
static int build_getopt(const struct mp_opt_cmd *cmd, char *shortopts,
			struct option *longopts)
{
	unsigned int i, n = opt_count(cmd);
	char *s = shortopts;

	if (n > OPT_MAX)
		return -1;
	/* '+' stops at the first operand; without it operands and options
	 * mix. */
	if (cmd->options_first)
		*s++ = '+';
	*s++ = ':';
	for (i = 0; i < n; i++) {
		const struct mp_opt *o = &cmd->opts[i];
		bool arg = o->kind != MP_OPT_FLAG;

		longopts[i] = (struct option){
			o->name, arg ? required_argument : no_argument, NULL,
			o->short_name ? o->short_name : (int)(OPT_LONG_BASE + i),
		};
		if (o->short_name) {
			*s++ = o->short_name;
			if (arg)
				*s++ = ':';
		}
	}
	if (!short_taken(cmd, 'h'))
		*s++ = 'h';
	*s = '\0';
	longopts[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	longopts[n++] = (struct option){ "help-man", no_argument, NULL,
					 OPT_HELP_MAN };
	longopts[n] = (struct option){};
	return 0;
}

/* The entry of @cmd that getopt's @c stands for, or -1. */
static int opt_index(const struct mp_opt_cmd *cmd, int c)
{
	unsigned int i, n = opt_count(cmd);

	if (c >= OPT_LONG_BASE && (unsigned int)(c - OPT_LONG_BASE) < n)
		return c - OPT_LONG_BASE;
	if (c >= OPT_LONG_BASE - 2)
		return -1;	/* --help, --help-man */
	for (i = 0; i < n; i++)
		if (cmd->opts[i].short_name == c)
			return i;
	return -1;
}

int mp_opt_parse(const struct mp_opt_cmd *cmd, int argc, char **argv,
		 void *settings, struct mp_opt_result *res)
{
	struct option longopts[OPT_MAX + 3];
	char shortopts[2 * OPT_MAX + 3];
	int c, i, rc;

	*res = (struct mp_opt_result){};
	if (build_getopt(cmd, shortopts, longopts)) {
		mp_err("too many options in one table (%d at most)", OPT_MAX);
		return MP_EXIT_ERR;
	}
	/* argv[0] is the command: parse from argv[1], whatever ran before
	 * (a second table, a test), with getopt's state started afresh. */
	optind = 0;
	while ((c = mp_getopt(argc, argv, shortopts, longopts)) != -1) {
		if (c == OPT_HELP || (c == 'h' && !short_taken(cmd, 'h'))) {
			mp_opt_help(cmd, stdout);
			return MP_EXIT_OK;
		}
		if (c == OPT_HELP_MAN) {
			mp_opt_man(cmd, stdout);
			return MP_EXIT_OK;
		}
		i = opt_index(cmd, c);
		if (i < 0)
			return MP_EXIT_USAGE;
		rc = parse_value(&cmd->opts[i], optarg, settings);
		if (rc != MP_EXIT_OK)
			return rc;
		res->seen |= 1ULL << i;
	}
	res->argi = optind;
	return MP_OPT_RUN;
}

bool mp_opt_given(const struct mp_opt_cmd *cmd,
		  const struct mp_opt_result *res, const char *name)
{
	unsigned int i, n = opt_count(cmd);

	for (i = 0; i < n; i++)
		if (!strcmp(cmd->opts[i].name, name))
			return res->seen & (1ULL << i);
	return false;
}

/* "64K" for 65536: sizes as people write them, when exact. */
static void bytes_str(uint64_t v, char *buf, size_t size)
{
	static const char units[] = "KMG";
	int i = -1;

	while (i < 2 && v && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	snprintf(buf, size, "%" PRIu64 "%.*s", v, i >= 0, i >= 0 ? &units[i] : "");
}

/* "1 to 100000", for the kinds that have a range and a table that set one. */
static void range_str(const struct mp_opt *o, char *buf, size_t size)
{
	char lo[32], hi[32];

	buf[0] = '\0';
	if (!o->max)
		return;
	if (o->kind == MP_OPT_UINT) {
		snprintf(buf, size, "%" PRIu64 " to %" PRIu64, o->min, o->max);
	} else if (o->kind == MP_OPT_BYTES) {
		bytes_str(o->min, lo, sizeof(lo));
		bytes_str(o->max, hi, sizeof(hi));
		snprintf(buf, size, "%s to %s", lo, hi);
	} else if (o->kind == MP_OPT_SECONDS) {
		snprintf(buf, size, "%g to %g s", o->min / 1e9, o->max / 1e9);
	}
}

/* What --help adds after an option's own text: its words, range, default. */
static void help_suffix(const struct mp_opt *o, char *buf, size_t size)
{
	char words[256] = "";
	size_t len = 0;

	buf[0] = '\0';
	range_str(o, words, sizeof(words));
	if (words[0])
		len += snprintf(buf + len, size - len, "%s", words);
	if (o->kind == MP_OPT_CHOICE && len < size) {
		choices_str(o->choices, words, sizeof(words));
		len += snprintf(buf + len, size - len, "%sone of: %s",
				len ? "; " : "", words);
	}
	if (o->def && len < size)
		len += snprintf(buf + len, size - len, "%sdefault %s",
				len ? "; " : "", o->def);
	if (len >= size)
		buf[size - 1] = '\0';
}

/* @text from column @col, words wrapped at HELP_WIDTH, lines indented. */
static void wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t word = strcspn(text, " \n");

		if (at > col && at + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, word, f);
		at += word;
		text += word;
		while (*text == ' ' || *text == '\n')
			text++;
	}
	fputc('\n', f);
}

static void help_option(FILE *f, const struct mp_opt *o)
{
	char left[96], suffix[300], text[1024];
	int len;

	len = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s",
		       o->short_name ? '-' : ' ',
		       o->short_name ? o->short_name : ' ',
		       o->short_name ? ", " : "  ", o->name,
		       o->metavar ? " " : "", o->metavar ? o->metavar : "");
	help_suffix(o, suffix, sizeof(suffix));
	snprintf(text, sizeof(text), "%s%s%s%s", o->help ? o->help : "",
		 suffix[0] && o->help ? " (" : suffix[0] ? "(" : "",
		 suffix, suffix[0] ? ")" : "");
	fputs(left, f);
	if (!text[0]) {
		fputc('\n', f);
		return;
	}
	if (len + 2 > HELP_COLUMN)
		fprintf(f, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(f, "%*s", HELP_COLUMN - len, "");
	wrap(f, text, HELP_COLUMN);
}

void mp_opt_help(const struct mp_opt_cmd *cmd, FILE *f)
{
	const struct mp_opt *o;

	fprintf(f, "Usage: %s [GLOBAL OPTIONS] %s\n", mp_progname, cmd->usage);
	if (cmd->about)
		fprintf(f, "\n%s", cmd->about);
	if (cmd->about_table)
		cmd->about_table(f);
	if (cmd->about_end)
		fprintf(f, "\n%s", cmd->about_end);
	fputs("\nOptions:\n", f);
	for (o = cmd->opts; o->name; o++)
		help_option(f, o);
	help_option(f, &(struct mp_opt){ "help",
		    short_taken(cmd, 'h') ? 0 : 'h', MP_OPT_FLAG,
		    .help = "show this help" });
	if (cmd->footer)
		fprintf(f, "\n%s", cmd->footer);
}

/* @s for roff: '-' and '\' escaped, and no line that starts with '.' or
 * '\'' (a request): "\&" in front of one keeps it text. */
static void roff(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
		if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
			fputs("\\&", f);
	}
}

void mp_opt_man(const struct mp_opt_cmd *cmd, FILE *f)
{
	const struct mp_opt *o;
	char suffix[300];

	for (o = cmd->opts; o->name; o++) {
		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", f);
		roff(f, o->name);
		fputs("\\fR", f);
		if (o->metavar) {
			fputs(" \\fI", f);
			roff(f, o->metavar);
			fputs("\\fR", f);
		}
		fputs("\n\\&", f);
		roff(f, o->help ? o->help : "");
		help_suffix(o, suffix, sizeof(suffix));
		if (suffix[0]) {
			fputs(" (", f);
			roff(f, suffix);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}
