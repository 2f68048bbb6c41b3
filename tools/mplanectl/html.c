// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl's HTML pages: escaping, and the head every page has.
 */
#include "html.h"

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char style[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}\n"
"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\n"
"h3{font-size:1em}table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}\n"
"th{border-bottom:1px solid #999}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
".PASS td.v{background:#c8f0c8}.FAIL td.v{background:#f6c0c0}.SKIP td.v{background:#eee}\n"
"figure{display:inline-block;margin:0 2em 1em 0;vertical-align:top}\n"
"svg text{font:11px system-ui,sans-serif}.bar{fill:#4a7ebb}.slow{fill:#d9534f}\n"
".bound{stroke:#333;stroke-dasharray:4 3}.none{fill:#bbb}.flag{color:#b00}\n"
".q{fill:#4a7ebb}.ecn{fill:#e08a00}.cnp{fill:#8e44ad}.step{fill:#2e8b57}\n"
".mark{stroke:#d9534f;stroke-width:1.5}.axis{stroke:#999}\n";

void html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	html_esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n", style);
}

void html_tail(FILE *f)
{
	fputs("</body></html>\n", f);
}
