/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * One output path for text and JSON, after iproute2's print_*(PRINT_ANY):
 * a command prints each value once, with a key for JSON and a format for
 * text, and the global -j decides which of the two comes out.  Text goes
 * to stdout as it is printed; JSON is built as a tree and printed as one
 * document, on one line, by mp_print_end().
 *
 *	mp_print_start();
 *	mp_print_str(MP_PRINT_ANY, "op", "# %s\n", "allreduce");
 *	mp_print_open_array("sizes");
 *	mp_print_open_object(NULL);
 *	mp_print_u64(MP_PRINT_ANY, "size", "%12" PRIu64, size);
 *	mp_print_float(MP_PRINT_ANY, "busbw", " %7.2f", busbw);
 *	mp_print_text("\n");
 *	mp_print_close_object();
 *	mp_print_close_array();
 *	mp_print_end();
 *
 * Text whose layout is known only once all of it is: a table, whose
 * columns are as wide as their widest cell, and words wrapped into lines.
 * While one is open, the text of each call (or of the calls between
 * mp_print_cell_open() and mp_print_cell_close()) is one cell, kept until
 * the table closes; JSON is built by the same calls as ever.  A row is
 * one object of an array, or a column is, when JSON groups by what text
 * puts across (hostacct's directions):
 *
 *	static const struct mp_print_col cols[] = {
 *		{ .header = "rail", .left = true },
 *		{ .header = "tx_packets" },
 *	};
 *
 *	mp_print_open_array("planes");
 *	mp_print_table_open(4, cols, 2);
 *	for (i = 0; i < n; i++) {
 *		mp_print_table_row();
 *		mp_print_open_object(NULL);
 *		mp_print_str(MP_PRINT_ANY, "rail", "%s", p[i].rail);
 *		mp_print_u64(MP_PRINT_ANY, "tx_packets", "%" PRIu64, p[i].tx);
 *		mp_print_close_object();
 *	}
 *	mp_print_table_close();
 *	mp_print_close_array();
 *
 * prints, and [{"rail":"a0","tx_packets":12},...] in JSON:
 *
 *	    rail tx_packets
 *	    a0           12
 *	    b1       123456
 */
#ifndef MP_PRINT_H
#define MP_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum mp_print_to {
	MP_PRINT_ANY,		/* the value goes to text and JSON */
	MP_PRINT_TEXT,		/* text only: what people read, not machines */
	MP_PRINT_JSON,		/* JSON only: what text says in other words */
};

/* Begin and end the document: JSON is one object, or one array.  End
 * closes what is still open; a start while a document is open ends it
 * first. */
void mp_print_start(void);
void mp_print_start_array(void);
void mp_print_end(void);
/* Where text and JSON go from now on, NULL for stdout again: a summary
 * on stderr, beside output on stdout, sets stderr, prints, then NULL.
 * Meanwhile stdout is @f, for anything that prints to it. */
void mp_print_set_file(FILE *f);

/* Containers: @key names them inside an object, and is NULL in an array.
 * They exist in JSON only; text shows what the values' formats print. */
void mp_print_open_object(const char *key);
void mp_print_close_object(void);
void mp_print_open_array(const char *key);
void mp_print_close_array(void);

/* A value: @fmt (printf, one conversion) for text, NULL for none. */
void mp_print_str(enum mp_print_to to, const char *key, const char *fmt,
		  const char *val);
void mp_print_u64(enum mp_print_to to, const char *key, const char *fmt,
		  uint64_t val);
void mp_print_s64(enum mp_print_to to, const char *key, const char *fmt,
		  int64_t val);
/* In JSON with six significant digits, null when not finite (NaN, inf);
 * text has its own precision. */
void mp_print_float(enum mp_print_to to, const char *key, const char *fmt,
		    double val);
/* As mp_print_float, but JSON with every digit json-c prints of a double
 * (17 significant, 1.0 for one): for values that scripts compare exactly. */
void mp_print_double(enum mp_print_to to, const char *key, const char *fmt,
		     double val);
/* Text shows @val through %s as "true" or "false". */
void mp_print_bool(enum mp_print_to to, const char *key, const char *fmt,
		   bool val);
/* JSON null; text prints @fmt as it is. */
void mp_print_null(enum mp_print_to to, const char *key, const char *fmt);

/* Text only, such as headers and newlines; a cell in a table. */
void mp_print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A number whose JSON keeps @digits after the point, as text rounds it
 * ("%.6f" for seconds to the microsecond), rather than six significant
 * digits; null when not finite.  Text prints @fmt as mp_print_float(). */
void mp_print_fixed(enum mp_print_to to, const char *key, const char *fmt,
		    int digits, double val);

/* A column of a table: its header (NULL: none) and its least width. */
struct mp_print_col {
	const char *header;
	unsigned int width;
	bool left;		/* words align left, numbers right */
};

/*
 * Open a table of @ncols @cols, each line @indent spaces in, one space
 * between columns, a header line first when a column has a header.  It
 * is filled a row at a time (mp_print_table_row(): the next cells go
 * across it) or a column at a time (mp_print_table_col(): down it);
 * close prints it.  Cells past the last column, or before the first row
 * or column, are dropped; a table without rows prints nothing, not even
 * its header.  A table, or words, while another is open
 * closes that first; so does mp_print_end().  In JSON none of these
 * does anything.
 */
void mp_print_table_open(unsigned int indent, const struct mp_print_col *cols,
			 unsigned int ncols);
void mp_print_table_row(void);
void mp_print_table_col(void);
void mp_print_table_close(void);

/* Words: each cell is a word, one space after the last, on lines @indent
 * spaces in that end before @width; a word wider stands alone. */
void mp_print_words_open(unsigned int indent, unsigned int width);
void mp_print_words_close(void);

/* What is printed between these is one cell: "flowlet-gap 100us". */
void mp_print_cell_open(void);
void mp_print_cell_close(void);

#endif /* MP_PRINT_H */
