// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_run.h"

volatile sig_atomic_t mp_run_stopping;

static void on_signal(int sig)
{
	(void)sig;
	mp_run_stopping = 1;
}

void mp_run_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

uint64_t mp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int mp_run_event_types(const char *opt, const char *arg, uint32_t *mask)
{
	char buf[256], *tok, *save = NULL;
	int t;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		t = mp_event_type_parse(tok);
		if (t < 0)
			return mp_usage_err("bad %s '%s': unknown event type (see 'mplanectl events --help')",
					    opt, tok);
		*mask |= 1U << t;
	}
	return 0;
}

int mp_run_event_types_opt(const char *opt, const char *arg, void *mask)
{
	return mp_run_event_types(opt, arg, mask);
}

int mp_run_pidfile_write(const char *path, int pid, const char *what)
{
	char tmp[4096];
	FILE *fp;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fp = fopen(tmp, "w");
	if (!fp)
		return -errno;
	fprintf(fp, "%d\n", pid);
	if (what)
		fprintf(fp, "%s\n", what);
	if (fclose(fp))
		return -errno;
	return rename(tmp, path) ? -errno : 0;
}
