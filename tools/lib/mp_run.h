/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the long-running commands (events, mark serve, the telemetry
 * recorder and views) share: stopping cleanly on SIGINT or SIGTERM, and
 * the clock every mplane event is stamped with.
 */
#ifndef MP_RUN_H
#define MP_RUN_H

#include <signal.h>
#include <stdint.h>
#include "mplane_events.h"

/* Set once SIGINT or SIGTERM came, after mp_run_stop_on_signals(). */
extern volatile sig_atomic_t mp_run_stopping;

/*
 * Catch SIGINT and SIGTERM without SA_RESTART, so that a blocking wait
 * (poll, epoll, recv) returns at once with EINTR and the loop around it
 * sees mp_run_stopping.
 */
void mp_run_stop_on_signals(void);

/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock. */
uint64_t mp_mono_ns(void);

/*
 * A comma-separated list of event types ("ecn_mark,cnp") for option @opt,
 * as a mask of 1 << enum mplane_event_type: 0, or MP_EXIT_USAGE with the
 * unknown name reported.
 */
int mp_run_event_types(const char *opt, const char *arg, uint32_t *mask);

/* mp_run_event_types() as an MP_OPT_CUSTOM parser (mp_opt.h): @mask is
 * a uint32_t, and each --type given adds its types to it. */
int mp_run_event_types_opt(const char *opt, const char *arg, void *mask);

/*
 * A pid file, written aside and renamed so that a reader never sees half
 * of one: @pid on the first line (what 'fabric down' reads), then @what
 * when not NULL.  0 or -errno.
 */
int mp_run_pidfile_write(const char *path, int pid, const char *what);

#endif /* MP_RUN_H */
