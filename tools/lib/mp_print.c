// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * Text laid out once it is all known: a table's cells, kept until it
 * closes, or words, which only need to know where the line is.
 */
enum layout { LAYOUT_NONE, LAYOUT_TABLE, LAYOUT_WORDS };

static struct {
	enum layout kind;
	unsigned int indent;
	/* A table: @nrows rows of @ncols cells, NULL where none came. */
	const struct mp_print_col *cols;
	unsigned int ncols;
	char **cells;
	size_t nrows;
	/* The next cell: -1 before the first row or column. */
	long row, col;
	bool by_col;
	/* Words: the line's length so far, and where it must end. */
	unsigned int len, width;
	/* Between cell_open and cell_close: the cell so far. */
	bool grouping;
	char *group;
} lay;

static bool to_json(enum mp_print_to to)
{
	return mp_json && to != MP_PRINT_TEXT;
}

static bool to_text(enum mp_print_to to)
{
	return !mp_json && to != MP_PRINT_JSON;
}

/* @fmt with @ap in memory, or NULL when there is none left. */
static char *vformat(const char *fmt, va_list ap)
{
	va_list again;
	char *s;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return NULL;
	s = malloc(n + 1);
	if (s)
		vsnprintf(s, n + 1, fmt, ap);
	return s;
}

/* Room for row @row of the table; false when memory ran out. */
static bool table_grow(size_t row)
{
	size_t n = row + 1;
	char **cells;

	if (n <= lay.nrows)
		return true;
	cells = realloc(lay.cells, n * lay.ncols * sizeof(*cells));
	if (!cells)
		return false;
	memset(cells + lay.nrows * lay.ncols, 0,
	       (n - lay.nrows) * lay.ncols * sizeof(*cells));
	lay.cells = cells;
	lay.nrows = n;
	return true;
}

/* Put @s into the table's next cell, down or across; it is ours now. */
static void table_put(char *s)
{
	long row = lay.row, col = lay.col;

	if (lay.by_col)
		lay.row++;
	else
		lay.col++;
	if (row < 0 || col < 0 || col >= lay.ncols || !table_grow(row)) {
		free(s);
		return;
	}
	free(lay.cells[row * lay.ncols + col]);
	lay.cells[row * lay.ncols + col] = s;
}

static void words_put(char *s)
{
	unsigned int len = strlen(s);

	if (lay.len && lay.len + 1 + len > lay.width) {
		putchar('\n');
		lay.len = 0;
	}
	lay.len += printf("%*s%s", lay.len ? 1 : (int)lay.indent, "", s);
	free(s);
}

static void cell_put(char *s)
{
	if (!s)
		return;
	if (lay.kind == LAYOUT_TABLE)
		table_put(s);
	else
		words_put(s);
}

/* Text goes out now, or into a cell of what is laid out later. */
static void vtext(const char *fmt, va_list ap)
{
	char *s, *both;

	if (lay.kind == LAYOUT_NONE) {
		vprintf(fmt, ap);
		return;
	}
	s = vformat(fmt, ap);
	if (!lay.grouping || !s) {
		cell_put(s);
		return;
	}
	if (!lay.group) {
		lay.group = s;
		return;
	}
	both = malloc(strlen(lay.group) + strlen(s) + 1);
	if (both)
		sprintf(both, "%s%s", lay.group, s);
	free(lay.group);
	free(s);
	lay.group = both;
}

static void text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void text(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(fmt, ap);
	va_end(ap);
}

void mp_print_cell_open(void)
{
	if (mp_json || lay.kind == LAYOUT_NONE)
		return;
	mp_print_cell_close();
	lay.grouping = true;
}

void mp_print_cell_close(void)
{
	if (!lay.grouping)
		return;
	lay.grouping = false;
	/* An empty group is still a cell: it keeps its column. */
	cell_put(lay.group ? lay.group : strdup(""));
	lay.group = NULL;
}

static unsigned int col_width(unsigned int c)
{
	const struct mp_print_col *col = &lay.cols[c];
	unsigned int w = col->width;
	const char *s;
	size_t r;

	if (col->header && strlen(col->header) > w)
		w = strlen(col->header);
	for (r = 0; r < lay.nrows; r++) {
		s = lay.cells[r * lay.ncols + c];
		if (s && strlen(s) > w)
			w = strlen(s);
	}
	return w;
}

/*
 * One line of the table, as far as its last cell that has text: what is
 * left of the line is blank, and is not printed.  That cell, aligned
 * left, is not padded either.
 */
static void table_line(const char *const *cells, const unsigned int *width)
{
	int c, last = -1;
	unsigned int w;

	for (c = 0; c < (int)lay.ncols; c++)
		if (cells[c] && cells[c][0])
			last = c;
	if (last >= 0)
		printf("%*s", (int)lay.indent, "");
	for (c = 0; c <= last; c++) {
		w = c == last && lay.cols[c].left ? 0 : width[c];
		printf(lay.cols[c].left ? "%s%-*s" : "%s%*s", c ? " " : "",
		       (int)w, cells[c] ? cells[c] : "");
	}
	putchar('\n');
}

static void table_print(void)
{
	const char **headers = calloc(lay.ncols, sizeof(*headers));
	unsigned int *width = calloc(lay.ncols, sizeof(*width));
	bool any = false;
	unsigned int c;
	size_t r;

	/* A header over nothing says nothing: a table of no rows is not printed. */
	if (!lay.nrows || !headers || !width)
		goto out;
	for (c = 0; c < lay.ncols; c++) {
		headers[c] = lay.cols[c].header;
		any |= headers[c] != NULL;
		width[c] = col_width(c);
	}
	if (any)
		table_line(headers, width);
	for (r = 0; r < lay.nrows; r++)
		table_line((const char *const *)&lay.cells[r * lay.ncols],
			   width);
out:
	free(headers);
	free(width);
}

/* Print what is laid out and forget it; nothing when none is open. */
static void layout_close(void)
{
	size_t i;

	mp_print_cell_close();
	if (lay.kind == LAYOUT_TABLE) {
		table_print();
		for (i = 0; i < lay.nrows * lay.ncols; i++)
			free(lay.cells[i]);
		free(lay.cells);
	} else if (lay.kind == LAYOUT_WORDS && lay.len) {
		putchar('\n');
	}
	memset(&lay, 0, sizeof(lay));
}

void mp_print_table_open(unsigned int indent, const struct mp_print_col *cols,
			 unsigned int ncols)
{
	if (mp_json)
		return;
	layout_close();
	lay.kind = LAYOUT_TABLE;
	lay.indent = indent;
	lay.cols = cols;
	lay.ncols = ncols;
	lay.row = -1;
	lay.col = -1;
}

/* The next row (or column) starts where the last one of its kind did. */
void mp_print_table_row(void)
{
	if (lay.kind != LAYOUT_TABLE)
		return;
	mp_print_cell_close();
	lay.by_col = false;
	lay.row = lay.row < 0 ? 0 : (long)lay.nrows;
	lay.col = 0;
}

void mp_print_table_col(void)
{
	if (lay.kind != LAYOUT_TABLE)
		return;
	mp_print_cell_close();
	lay.by_col = true;
	lay.col++;
	lay.row = 0;
}

void mp_print_table_close(void)
{
	if (lay.kind == LAYOUT_TABLE)
		layout_close();
}

void mp_print_words_open(unsigned int indent, unsigned int width)
{
	if (mp_json)
		return;
	layout_close();
	lay.kind = LAYOUT_WORDS;
	lay.indent = indent;
	lay.width = width;
}

void mp_print_words_close(void)
{
	if (lay.kind == LAYOUT_WORDS)
		layout_close();
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
		layout_close();
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
		text(fmt, val ? val : "-");
}

void mp_print_u64(enum mp_print_to to, const char *key, const char *fmt,
		  uint64_t val)
{
	if (to_json(to))
		add(key, json_object_new_uint64(val));
	if (to_text(to) && fmt)
		text(fmt, val);
}

void mp_print_s64(enum mp_print_to to, const char *key, const char *fmt,
		  int64_t val)
{
	if (to_json(to))
		add(key, json_object_new_int64(val));
	if (to_text(to) && fmt)
		text(fmt, val);
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
		text(fmt, val);
}

void mp_print_bool(enum mp_print_to to, const char *key, const char *fmt,
		   bool val)
{
	if (to_json(to))
		add(key, json_object_new_boolean(val));
	if (to_text(to) && fmt)
		text(fmt, val ? "true" : "false");
}

void mp_print_null(enum mp_print_to to, const char *key, const char *fmt)
{
	if (to_json(to))
		add(key, NULL);
	if (to_text(to) && fmt)
		text("%s", fmt);
}

void mp_print_text(const char *fmt, ...)
{
	va_list ap;

	if (mp_json)
		return;
	va_start(ap, fmt);
	vtext(fmt, ap);
	va_end(ap);
}

void mp_print_double(enum mp_print_to to, const char *key, const char *fmt,
		     double val)
{
	if (to_json(to))
		add(key, isfinite(val) ? json_object_new_double(val) : NULL);
	if (to_text(to) && fmt)
		text(fmt, val);
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
