/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Output of mplane tools: error messages and JSON. */
#ifndef MP_OUT_H
#define MP_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <json-c/json.h>

/* The tool's name, first word of every message. */
extern const char *mp_progname;

/* Set by the global -j/--json: commands print one JSON document. */
extern bool mp_json;

/*
 * The words of the command being run ("bpf attach"), which every message
 * names; mp_group_run() adds each word as it descends.
 */
void mp_cmd_path_push(const char *word);
const char *mp_cmd_path(void);

/* "prog: cmd path: message\n" on stderr, e.g. "mplanectl: bpf attach: ..." */
void mp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mp_verr(const char *fmt, va_list ap);

/* Print @obj on one line of stdout and drop the reference to it. */
void mp_json_print(struct json_object *obj);

#endif /* MP_OUT_H */
