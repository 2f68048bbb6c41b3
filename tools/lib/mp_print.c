// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "mp_out.h"
#include "mp_print.h"

/* Objects nest as deep as output is read by people; deeper is a bug. */
#define PRINT_MAX_DEPTH	16

static struct json_object *stack[PRINT_MAX_DEPTH];
static int depth = -1;
/* Containers opened past PRINT_MAX_DEPTH, or with no document: their
 * values go to the deepest one kept (or nowhere), and their closes are
 * counted off here, so that every close still matches its open. */
static unsigned int too_deep;

static bool to_json(enum mp_print_to to)
{
	return mp_json && to != MP_PRINT_TEXT;
}

static bool to_text(enum mp_print_to to)
{
	return !mp_json && to != MP_PRINT_JSON;
}

/* Put @val into the innermost container, under @key in an object. */
static void add(const char *key, struct json_object *val)
{
	struct json_object *top;

	if (depth < 0) {
		/* No document was started: a bug of the caller, kept quiet. */
		json_object_put(val);
		return;
	}
	top = stack[depth];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, val);
	else
		json_object_object_add(top, key ? key : "", val);
}

/* A container inside the document; outside one (none started), it is
 * dropped as one too deep is. */
static void push(const char *key, struct json_object *c)
{
	if (depth < 0 || depth + 1 >= PRINT_MAX_DEPTH) {
		json_object_put(c);
		too_deep++;
		return;
	}
	add(key, json_object_get(c));
	stack[++depth] = c;
}

static void pop(void)
{
	if (too_deep) {
		too_deep--;
		return;
	}
	if (depth > 0)
		json_object_put(stack[depth--]);
}

/* A document still open is a caller's bug: it comes out before the next. */
static void start(struct json_object *root)
{
	if (depth >= 0)
		mp_print_end();
	too_deep = 0;
	stack[++depth] = root;
}

void mp_print_start(void)
{
	if (mp_json)
		start(json_object_new_object());
}

void mp_print_start_array(void)
{
	if (mp_json)
		start(json_object_new_array());
}

void mp_print_end(void)
{
	if (!mp_json) {
		fflush(stdout);
		return;
	}
	/* The outermost container is printed once, when it closes. */
	too_deep = 0;
	while (depth > 0)
		pop();
	if (depth == 0) {
		mp_json_print(stack[0]);
		depth = -1;
	}
	fflush(stdout);
}

void mp_print_open_object(const char *key)
{
	if (mp_json)
		push(key, json_object_new_object());
}

void mp_print_close_object(void)
{
	if (mp_json)
		pop();
}

void mp_print_open_array(const char *key)
{
	if (mp_json)
		push(key, json_object_new_array());
}

void mp_print_close_array(void)
{
	mp_print_close_object();
}

void mp_print_str(enum mp_print_to to, const char *key, const char *fmt,
		  const char *val)
{
	if (to_json(to))
		add(key, val ? json_object_new_string(val) : NULL);
	if (to_text(to) && fmt)
		printf(fmt, val ? val : "-");
}

void mp_print_u64(enum mp_print_to to, const char *key, const char *fmt,
		  uint64_t val)
{
	if (to_json(to))
		add(key, json_object_new_uint64(val));
	if (to_text(to) && fmt)
		printf(fmt, val);
}

void mp_print_s64(enum mp_print_to to, const char *key, const char *fmt,
		  int64_t val)
{
	if (to_json(to))
		add(key, json_object_new_int64(val));
	if (to_text(to) && fmt)
		printf(fmt, val);
}

void mp_print_float(enum mp_print_to to, const char *key, const char *fmt,
		    double val)
{
	char buf[32];

	if (to_json(to)) {
		/* JSON has no NaN or infinity: null says "no value". */
		if (!isfinite(val)) {
			add(key, NULL);
		} else {
			/* json-c would print all 17 digits of 0.1. */
			snprintf(buf, sizeof(buf), "%.6g", val);
			add(key, json_object_new_double_s(val, buf));
		}
	}
	if (to_text(to) && fmt)
		printf(fmt, val);
}

void mp_print_bool(enum mp_print_to to, const char *key, const char *fmt,
		   bool val)
{
	if (to_json(to))
		add(key, json_object_new_boolean(val));
	if (to_text(to) && fmt)
		printf(fmt, val ? "true" : "false");
}

void mp_print_null(enum mp_print_to to, const char *key, const char *fmt)
{
	if (to_json(to))
		add(key, NULL);
	if (to_text(to) && fmt)
		fputs(fmt, stdout);
}

void mp_print_text(const char *fmt, ...)
{
	va_list ap;

	if (mp_json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void mp_print_double(enum mp_print_to to, const char *key, const char *fmt,
		     double val)
{
	if (to_json(to))
		add(key, isfinite(val) ? json_object_new_double(val) : NULL);
	if (to_text(to) && fmt)
		printf(fmt, val);
}

/*
 * Every path of text and JSON here (and mp_json_print()) writes to
 * stdout: pointing stdout itself elsewhere for a while moves them all,
 * as glibc lets a program assign it.
 */
void mp_print_set_file(FILE *f)
{
	static FILE *saved;

	fflush(stdout);
	if (f && !saved) {
		saved = stdout;
		stdout = f;
	} else if (!f && saved) {
		stdout = saved;
		saved = NULL;
	}
}

void mp_print_fixed(enum mp_print_to to, const char *key, const char *fmt,
		    int digits, double val)
{
	char buf[64];

	/* Not finite, or text only: mp_print_float() says it as well. */
	if (to_json(to) && isfinite(val)) {
		snprintf(buf, sizeof(buf), "%.*f", digits, val);
		add(key, json_object_new_double_s(val, buf));
		to = MP_PRINT_TEXT;
	}
	mp_print_float(to, key, fmt, val);
}
