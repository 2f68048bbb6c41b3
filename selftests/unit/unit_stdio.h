/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What code under test writes to stdout or stderr, caught for the test
 * to read: the descriptor is pointed at a temporary file meanwhile, so
 * printf(), puts() and fprintf(stderr) all land there.
 */
#ifndef MPLANE_UNIT_STDIO_H
#define MPLANE_UNIT_STDIO_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct grab {
	int fd;				/* 1 or 2 */
	int saved;			/* the descriptor as it was */
	FILE *tmp;
};

static inline void grab_start(struct grab *g, int fd)
{
	fflush(stdout);
	fflush(stderr);
	g->fd = fd;
	g->tmp = tmpfile();
	g->saved = dup(fd);
	if (!g->tmp || g->saved < 0 || dup2(fileno(g->tmp), fd) < 0)
		abort();
}

/* What was written since grab_start(), NUL-terminated; free() it. */
static inline char *grab_end(struct grab *g)
{
	long len;
	char *s;

	fflush(stdout);
	fflush(stderr);
	if (dup2(g->saved, g->fd) < 0)
		abort();
	close(g->saved);
	/* Written through the descriptor, not the FILE: ask the file. */
	len = lseek(fileno(g->tmp), 0, SEEK_END);
	s = calloc(1, len + 1);
	if (!s || pread(fileno(g->tmp), s, len, 0) != len)
		abort();
	fclose(g->tmp);
	return s;
}

#endif /* MPLANE_UNIT_STDIO_H */
