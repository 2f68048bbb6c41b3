// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for what reads a capture file that someone else
 * wrote: the reader (mp_capture_open, mp_capture_next), the model
 * (mp_tm_frame, mp_tm_finish, mp_tm_copy) and the views as the command
 * line runs them ('telemetry dump', 'dump --sorted', 'report', 'report
 * --json', 'report --html', 'hist').  Built by 'make fuzz' with ASan and
 * UBSan (tools/fuzz/fuzz.mk); its corpus is tools/fuzz/corpus/capture.
 *
 * Each input is written to a memfd and read back by path, as a file on
 * disk would be.  What the views print goes to /dev/null: the stdio
 * streams are swapped, and the sanitizers, which write to fd 2 itself,
 * still report.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mp_capture.h"
#include "mp_out.h"
#include "mp_tm.h"
#include "telemetry.h"
#include "mplane_capture.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	stdout = devnull;
	stderr = devnull;
	return 0;
}

/* The reader and the model, as the views drive them, and a copy. */
static void model(const char *path)
{
	struct mplane_capture_frame fr;
	struct mp_capture_reader r;
	struct mp_tm tm, copy;
	const void *p;

	if (mp_capture_open(&r, path))
		return;
	if (mp_tm_init(&tm, NULL)) {
		mp_capture_close(&r);
		return;
	}
	while (mp_capture_next(&r, &fr, &p) > 0)
		if (mp_tm_frame(&tm, fr.kind, fr.source, p, fr.len))
			break;
	mp_tm_finish(&tm);
	if (!mp_tm_copy(&copy, &tm)) {
		mp_tm_refresh(&copy);
		mp_tm_free(&copy);
	}
	mp_tm_free(&tm);
	mp_capture_close(&r);
}

/* One view, as 'mplanectl telemetry WORDS...' would run it. */
static void view(int (*run)(int, char **), const char *const *words,
		 const char *path)
{
	char *argv[8];
	int argc = 0;

	while (*words && argc < 6)
		argv[argc++] = (char *)*words++;
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	optind = 0;
	/* As a command line: -j only where the words say (report --json
	 * sets it for good, and would take text from the views after it). */
	mp_json = false;
	run(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dump[] = { "dump", NULL };
	static const char *const sorted[] = { "dump", "--sorted", NULL };
	static const char *const report[] = { "report", NULL };
	static const char *const json[] = { "report", "--json", NULL };
	static const char *const html[] = { "report", "--html", "/dev/null",
					    NULL };
	static const char *const hist[] = { "hist", NULL };
	char path[64];
	int fd;

	fd = memfd_create("capture", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	model(path);
	view(telemetry_dump_main, dump, path);
	view(telemetry_dump_main, sorted, path);
	view(telemetry_report_main, report, path);
	view(telemetry_report_main, json, path);
	view(telemetry_report_main, html, path);
	view(telemetry_hist_main, hist, path);
	close(fd);
	return 0;
}
