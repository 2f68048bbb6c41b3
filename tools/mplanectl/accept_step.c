// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl accept: one step, such as `fabric up` or `collective run`, run
 * as a child of this very program with -j, its JSON read back; and the
 * progress line.  A step is a child rather than a call so that what a
 * person would type and what acceptance runs are the same command, and a
 * step that hangs or crashes takes only itself down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mp_out.h"
#include "mp_run.h"
#include "accept.h"

#define ARGS_MAX	48

/*
 * This program with -j and @args, or, when @args[0] is a path, that
 * program with the rest (a script such as tools/torch/launch.sh).
 */
static pid_t spawn(const char *const *args, int *out_fd, bool quiet,
		   bool keep_stdout)
{
	const char *argv[ARGS_MAX + 3] = { "mplanectl", "-j" };
	const char *prog = "/proc/self/exe";
	unsigned int n = 2;
	int fds[2], null;
	pid_t pid;

	if (args[0][0] == '/') {
		prog = args[0];
		n = 0;
	}
	while (*args && n < ARGS_MAX + 2)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		/* A group of its own: a stop reaches every process of the
		 * step (a collective's ranks), and the terminal's Ctrl-C
		 * reaches this program, which stops the step itself. */
		setpgid(0, 0);
		dup2(fds[1], STDOUT_FILENO);
		/* A background job's words and figures are not wanted, and
		 * nobody reads a pipe it could fill. */
		null = quiet ? open("/dev/null", O_WRONLY) : -1;
		if (null >= 0) {
			if (!keep_stdout)
				dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	/* Here too: a stop that comes before the child's own call. */
	setpgid(pid, pid);
	close(fds[1]);
	*out_fd = fds[0];
	return pid;
}

/* Everything the child prints, until it closes its stdout; a stop or the
 * step's deadline is passed on to its group as SIGTERM, then SIGKILL,
 * and 2 s after that it is given up on, whoever still holds the pipe. */
static char *read_all(struct accept_run *run, pid_t pid, int fd, bool *late)
{
	uint64_t deadline = mp_mono_ns() + run->s->timeout_ns;
	size_t len = 0, cap = 0;
	bool termed = false, killed = false;
	char *buf = NULL, *more;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t got;

	for (;;) {
		/* The fabric's removal runs to its end, stop or not. */
		if ((mp_run_stopping && !run->cleaning && !termed) ||
		    mp_mono_ns() > deadline) {
			if (killed)
				break;
			*late = !mp_run_stopping;
			kill(-pid, termed ? SIGKILL : SIGTERM);
			killed = termed;
			termed = true;
			deadline = mp_mono_ns() + (killed ? 2 : 5) * 1000000000ULL;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (len + 4096 > cap) {
			more = realloc(buf, cap * 2 + 8192);
			if (!more)
				break;
			buf = more;
			cap = cap * 2 + 8192;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += got;
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

int accept_exec(struct accept_run *run, const char *what,
		struct json_object **out, const char *const *args)
{
	bool late = false, ok;
	int fd, status = 0;
	char *text;
	pid_t pid;

	if (out)
		*out = NULL;
	pid = spawn(args, &fd, false, true);
	if (pid < 0) {
		mp_err("%s: %s", what, strerror(errno));
		return -1;
	}
	text = read_all(run, pid, fd, &late);
	close(fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (mp_run_stopping && !run->cleaning)
		run->interrupted = true;
	ok = !late && !run->interrupted && WIFEXITED(status) &&
	     !WEXITSTATUS(status);
	if (late)
		mp_err("%s: still running after %llu s: stopped",
		       what, (unsigned long long)(run->s->timeout_ns / 1000000000ULL));
	else if (!run->interrupted && WIFSIGNALED(status))
		mp_err("%s: killed by signal %d", what, WTERMSIG(status));
	else if (!run->interrupted && !ok)
		mp_err("%s: failed (exit status %d)", what,
		       WEXITSTATUS(status));
	if (ok && out) {
		*out = text ? json_tokener_parse(text) : NULL;
		ok = *out;
		if (!ok)
			mp_err("%s: printed no JSON", what);
	}
	free(text);
	return ok ? 0 : -1;
}

double accept_json_num(struct json_object *o, const char *key, int index,
		       const char *member)
{
	struct json_object *v;
	size_t n;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NAN;
	if (json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		if (!n)
			return NAN;
		v = json_object_array_get_idx(v, index < 0 ? n - 1 : (size_t)index);
		if (!member || !json_object_object_get_ex(v, member, &v))
			return NAN;
	}
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return NAN;
	return json_object_get_double(v);
}

void accept_progress(struct accept_run *run, const char *step)
{
	uint64_t spent = mp_mono_ns() - run->start_ns;
	char left[48] = "";

	if (run->steps_done && run->steps_done < run->steps_total)
		snprintf(left, sizeof(left), ", about %llu s left",
			 (unsigned long long)(spent / run->steps_done *
			 (run->steps_total - run->steps_done) / 1000000000ULL));
	fprintf(stderr, "%saccept %s: %s (%u of %u): %s, step %u of %u%s%s",
		isatty(STDERR_FILENO) ? "\r\033[K" : "",
		mp_expect_class_name(run->cls->cls),
		mp_expect_policy_name(run->policy), run->policy_index + 1,
		run->npolicies, step, run->steps_done + 1, run->steps_total,
		left, isatty(STDERR_FILENO) ? "" : "\n");
	run->steps_done++;
}

void accept_progress_end(struct accept_run *run)
{
	(void)run;
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

int accept_start(struct accept_run *run, const char *what,
		 const char *const *args, struct accept_job *job)
{
	(void)run;
	job->what = what;
	job->out = NULL;
	job->pid = spawn(args, &job->fd, true, job->keep_stdout);
	if (job->pid < 0) {
		mp_err("%s: %s", what, strerror(errno));
		return -1;
	}
	return 0;
}

int accept_stop(struct accept_run *run, struct accept_job *job)
{
	int status = 0;
	pid_t got;

	(void)run;
	got = waitpid(job->pid, &status, WNOHANG);
	if (!got) {
		kill(-job->pid, SIGTERM);
		while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(job->fd);
	if (got) {
		mp_err("%s: ended before it was stopped (%s %d)", job->what,
		       WIFSIGNALED(status) ? "signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

int accept_wait(struct accept_run *run, struct accept_job *job)
{
	bool late = false;
	int status = 0;
	char *text;

	text = read_all(run, job->pid, job->fd, &late);
	close(job->fd);
	while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR)
		;
	job->out = !late && WIFEXITED(status) && !WEXITSTATUS(status) && text ?
		   json_tokener_parse(text) : NULL;
	free(text);
	if (!job->out && !run->interrupted)
		mp_err("%s: %s", job->what, late ? "did not end in time" :
		       "failed, or printed no JSON");
	return job->out ? 0 : -1;
}
