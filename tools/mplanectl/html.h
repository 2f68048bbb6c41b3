/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mplanectl's HTML pages share (accept --html, telemetry report
 * --html): one self-contained file, its CSS inline, no script and nothing
 * fetched, so that it opens anywhere, mailed or archived.
 */
#ifndef MPLANECTL_HTML_H
#define MPLANECTL_HTML_H

#include <stdio.h>

/* @s with &, <, >, " and ' escaped; NULL prints nothing. */
void html_esc(FILE *f, const char *s);

/* From <!DOCTYPE> to <body>, with @title (escaped) in <title>. */
void html_head(FILE *f, const char *title);
void html_tail(FILE *f);

/*
 * The telemetry of capture @path as sections of a page (telemetry_html.c):
 * the symmetry of every group as bars with its index, the planes' and
 * ports' figures, one timeline of queue depth, ECN marks, CNPs, step ends,
 * faults and state changes (paged), and the step-time distribution.
 * @heading starts each section's title (NULL: none).  0, or -1 reported.
 */
int telemetry_html_sections(FILE *f, const char *path, const char *heading);

#endif /* MPLANECTL_HTML_H */
