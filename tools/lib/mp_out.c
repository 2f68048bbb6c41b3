// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "mp_out.h"

const char *mp_progname = "mplane";
bool mp_json;

/* Command words are short and few ("bpf attach"); longer paths are cut. */
static char cmd_path[64];

void mp_cmd_path_push(const char *word)
{
	size_t len = strlen(cmd_path);

	snprintf(cmd_path + len, sizeof(cmd_path) - len, "%s%s",
		 len ? " " : "", word);
}

const char *mp_cmd_path(void)
{
	return cmd_path;
}

void mp_verr(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", mp_progname);
	if (cmd_path[0])
		fprintf(stderr, "%s: ", cmd_path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void mp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mp_verr(fmt, ap);
	va_end(ap);
}

void mp_json_print(struct json_object *obj)
{
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}
