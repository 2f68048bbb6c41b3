// SPDX-License-Identifier: GPL-2.0
/*
 * Faults in time.  The steps of a fault (one, or a flap's downs and ups)
 * run each at its CLOCK_MONOTONIC time, the clock of the timeline, so a
 * step lands where it was asked to within the wake-up latency of a
 * sleep.  A schedule that starts later runs in a process of its own, in
 * its own session, with nothing of the caller's open (a shell that reads
 * our output is not held), and with a pid file that 'fabric down' stops
 * like any other of the fabric's, and that 'fault clear' and 'fault
 * show' find: MP_FABRIC_RUN_DIR/PREFIX.fault.PID.pid, the pid on its
 * first line and what it does on the second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mp_cmd.h"
#include "mp_fault.h"
#include "mp_out.h"
#include "mp_run.h"
#include "fabric_fault.h"

#define STOP_WAIT_MS	2000

/* Sleep until @at_ns (CLOCK_MONOTONIC): false when a signal stopped us. */
static bool sleep_until(uint64_t at_ns)
{
	struct timespec ts = {
		.tv_sec = at_ns / 1000000000ULL,
		.tv_nsec = at_ns % 1000000000ULL,
	};

	while (!mp_run_stopping) {
		if (!clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			return true;
	}
	return false;
}

int fault_sched_run(struct fault_ctx *c, const struct fault_target *t,
		    struct fault_step *steps, unsigned int n,
		    void (*done)(const struct fault_ctx *c,
				 const struct fault_target *t,
				 const struct fault_step *s))
{
	unsigned int i;
	int err = 0;

	mp_run_stop_on_signals();
	for (i = 0; i < n; i++) {
		if (!sleep_until(steps[i].at_ns))
			break;
		if (fault_apply(c, t, &steps[i]) && !err)
			err = steps[i].err;
		if (done)
			done(c, t, &steps[i]);
	}
	return err;
}

static int pid_path(const char *prefix, pid_t pid, char *buf, size_t size)
{
	int n = snprintf(buf, size, MP_FABRIC_RUN_DIR "/%s.fault.%d.pid",
			 prefix, (int)pid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int write_pid_file(const char *path, pid_t pid,
			  const struct fault_target *t,
			  const struct fault_step *s, unsigned int n)
{
	char what[96];

	snprintf(what, sizeof(what), "%s %s", t->name,
		 n > 1 ? "flap" : mp_fault_action_name(s->action));
	return mp_run_pidfile_write(path, pid, what);
}

/* The child: detached from the caller, and on its own descriptors. */
static void child(struct fault_ctx *c, const struct fault_target *t,
		  struct fault_step *steps, unsigned int n, int go)
{
	char path[256], byte;
	int fd, err;

	/* The parent writes the pid file first, then lets us go. */
	while (read(go, &byte, 1) < 0 && errno == EINTR)
		;
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(MP_EXIT_ERR);
	close_range(3, ~0U, 0);
	fault_ctx_forget_fds(c);
	err = fault_sched_run(c, t, steps, n, NULL);
	if (!pid_path(c->f.prefix, getpid(), path, sizeof(path)))
		unlink(path);
	_exit(err ? MP_EXIT_ERR : MP_EXIT_OK);
}

int fault_sched_start(struct fault_ctx *c, const struct fault_target *t,
		      struct fault_step *steps, unsigned int n, pid_t *pid)
{
	char path[256];
	int go[2], err;

	if (mkdir(MP_FABRIC_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	if (!*pid) {
		close(go[1]);
		child(c, t, steps, n, go[0]);
	}
	close(go[0]);
	err = pid_path(c->f.prefix, *pid, path, sizeof(path));
	if (!err)
		err = write_pid_file(path, *pid, t, steps, n);
	if (err)
		kill(*pid, SIGKILL);
	close(go[1]);
	return err;
}

/* Running, and not a zombie that nobody reaps (as in some containers). */
static bool alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	bool live = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (fgets(buf, sizeof(buf), fp)) {
		p = strrchr(buf, ')');
		live = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	}
	fclose(fp);
	return live;
}

/* Ours: a pid reused by another program since is left alone. */
static bool is_ours(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (!fgets(comm, sizeof(comm), fp))
		comm[0] = '\0';
	fclose(fp);
	return !strncmp(comm, "mplanectl", 9);
}

/* A pid file's pid and what it does: 0, or -1 for one that is not. */
static int read_pid_file(const char *path, struct fault_sched_info *s)
{
	FILE *fp = fopen(path, "r");
	int pid = 0, ok;

	if (!fp)
		return -1;
	ok = fscanf(fp, "%d\n", &pid) == 1 && pid > 1 &&
	     fgets(s->what, sizeof(s->what), fp);
	fclose(fp);
	if (!ok)
		return -1;
	s->what[strcspn(s->what, "\n")] = '\0';
	s->pid = pid;
	return 0;
}

/* @cb on every schedule of @prefix; a file whose process is gone goes. */
static unsigned int walk_scheds(const char *prefix,
				   bool (*cb)(const struct fault_sched_info *s,
					      const char *path, void *data),
				   void *data)
{
	struct fault_sched_info s;
	char pattern[256];
	unsigned int n = 0;
	glob_t g;
	size_t i;

	snprintf(pattern, sizeof(pattern), MP_FABRIC_RUN_DIR "/%s.fault.*.pid",
		 prefix);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		if (read_pid_file(g.gl_pathv[i], &s))
			continue;
		if (!alive(s.pid) || !is_ours(s.pid)) {
			unlink(g.gl_pathv[i]);
			continue;
		}
		n += cb(&s, g.gl_pathv[i], data);
	}
	globfree(&g);
	return n;
}

struct stop_args {
	const char *name;
};

static bool stop_one(const struct fault_sched_info *s, const char *path,
		     void *data)
{
	const struct stop_args *a = data;
	size_t len = a->name ? strlen(a->name) : 0;
	int ms;

	/* "p0l0:s1 flap": the target, then what. */
	if (a->name && (strncmp(s->what, a->name, len) || s->what[len] != ' '))
		return false;
	kill(s->pid, SIGTERM);
	for (ms = 0; ms < STOP_WAIT_MS && alive(s->pid); ms += 10)
		usleep(10000);
	if (alive(s->pid))
		kill(s->pid, SIGKILL);
	unlink(path);
	return true;
}

unsigned int fault_sched_stop(const char *prefix, const char *name)
{
	struct stop_args a = { .name = name };

	return walk_scheds(prefix, stop_one, &a);
}

struct list_args {
	struct fault_sched_info *s;
	unsigned int n, max;
};

static bool list_one(const struct fault_sched_info *s, const char *path,
		     void *data)
{
	struct list_args *a = data;

	(void)path;
	if (a->n >= a->max)
		return false;
	a->s[a->n++] = *s;
	return true;
}

unsigned int fault_sched_list(const char *prefix, struct fault_sched_info *s,
			      unsigned int max)
{
	struct list_args a = { .s = s, .max = max };

	return walk_scheds(prefix, list_one, &a);
}
