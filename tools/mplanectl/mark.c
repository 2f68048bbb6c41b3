// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl mark: step markers on the event timeline.  The marks program
 * (bpf/marks.bpf.c) is loaded once and pinned under MARK_PIN_DIR; a mark
 * is one run of it through BPF_PROG_TEST_RUN, which stamps the record
 * with the same clock as every other event.  'mark serve' relays marks
 * from programs that may not use bpf(2), over a Unix datagram socket
 * (tools/include/mplane_mark.h is the client side).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "marks.skel.h"
#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_names.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mp_pin.h"
#include "mplane_mark.h"
#include <linux/types.h>
#include "mp_user_event.h"
#include "mplanectl.h"
#include "mplane_maps.h"

#define MARK_PIN_DIR	MPLANE_BPF_PIN_ROOT "/marks"
#define MARK_PROG_PIN	MARK_PIN_DIR "/mp_mark"

#define USER_EVENT_PROG_PIN	MARK_PIN_DIR "/mp_user_event"

static int pin_prog(struct bpf_program *prog, const char *path)
{
	int err = bpf_program__pin(prog, path);

	/* Pinned by an older mplanectl, or by a racing one: theirs serves. */
	return err == -EEXIST ? 0 : err;
}

/*
 * The program pinned at @pin (MARK_PROG_PIN or USER_EVENT_PROG_PIN): the
 * marks object is loaded and pinned, with its ring, unless that is done.
 * A ring pinned by an earlier load is reused, so every reader of the
 * marks ring sees the events of both programs.
 */
static int marks_pinned_prog(const char *pin)
{
	struct marks *skel;
	int fd, err;

	fd = bpf_obj_get(pin);
	if (fd >= 0)
		return fd;
	err = mp_pin_mkdir(MARK_PIN_DIR);
	if (err)
		return err;
	skel = marks__open();
	if (!skel)
		return -errno;
	/* Marks are rare: wake the reader for every one. */
	skel->rodata->ev_wakeup_bytes = 0;
	bpf_map__set_pin_path(skel->maps.mp_events, MARK_PIN_DIR "/mp_events");
	bpf_map__set_pin_path(skel->maps.mp_event_stats,
			      MARK_PIN_DIR "/mp_event_stats");
	bpf_map__set_pin_path(skel->maps.mp_event_readers,
			      MARK_PIN_DIR "/mp_event_readers");
	err = marks__load(skel);
	if (!err)
		err = pin_prog(skel->progs.mp_mark, MARK_PROG_PIN);
	if (!err)
		err = pin_prog(skel->progs.mp_user_event, USER_EVENT_PROG_PIN);
	if (!err) {
		mp_pin_protect(MARK_PIN_DIR "/mp_events");
		mp_pin_protect(MARK_PIN_DIR "/mp_event_stats");
		mp_pin_protect(MARK_PIN_DIR "/mp_event_readers");
		fd = bpf_obj_get(pin);
		if (fd < 0)
			err = -errno;
	}
	marks__destroy(skel);
	return err ? err : fd;
}

static int marks_prog_fd(void)
{
	return marks_pinned_prog(MARK_PROG_PIN);
}

int mark_user_event_open(void)
{
	return marks_pinned_prog(USER_EVENT_PROG_PIN);
}

int mark_user_event(int prog_fd, const struct mp_user_event_args *args)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(*args));

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	return opts.retval ? -EINVAL : 0;
}

static int emit(int prog_fd, unsigned int kind, uint64_t step, uint32_t pid,
		uint64_t app_ts_ns)
{
	struct mplane_mark_args args = {
		.step = step, .app_ts_ns = app_ts_ns, .pid = pid, .kind = kind,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &args,
		    .ctx_size_in = sizeof(args));

	return bpf_prog_test_run_opts(prog_fd, &opts) ? -errno : 0;
}

/* mark step */

struct step_settings {
	int kind;
	const char *socket;
	uint64_t repeat;
};

#define AT(member)	MP_OPT_AT(struct step_settings, member)
static const struct mp_opt step_opts[] = {
	{ "kind", 'k', MP_OPT_CHOICE, AT(kind), "KIND",
	  "step: a step begins; step-end: it ends; user: anything else",
	  .choices = mp_mark_kind_choices, .def = "step" },
	{ "socket", 's', MP_OPT_STRING, AT(socket), "PATH",
	  .help = "send through 'mark serve' at PATH (give '-' for " MPLANE_MARK_SOCKET ")" },
	{ "repeat", 'r', MP_OPT_UINT, AT(repeat), "N",
	  "put the mark N times, back to back: a burst of known size, to test a reader's drop counts",
	  .min = 1, .max = 100000000, .def = "1" },
	{}
};
#undef AT

static const struct mp_opt_cmd step_cmd = {
	.usage = "mark step [OPTIONS] N",
	.about =
"Put step N on the event timeline now: one step_mark event, stamped with\n"
"the clock of every other mplane event, that 'mplanectl events' shows next\n"
"to the fabric's ECN marks, path switches and failovers.  As root the mark\n"
"goes straight to the marks program (loaded and pinned under\n"
MARK_PIN_DIR " on first use); with --socket it goes to a running\n"
"'mplanectl mark serve', which needs no privilege.\n"
"\n"
"The mark carries the pid of the process that ran this command (a\n"
"training script calling it once a step): step times are the time from\n"
"one step mark of a pid to its next ('telemetry report', 'hist').\n"
"Programs stamp their own steps with tools/include/mplane_mark.h: one\n"
"datagram per mark, no library to link.\n",
	.opts = step_opts,
	.footer =
"Examples:\n"
"  mplanectl mark step 100\n"
"  mplanectl mark step --kind step-end 100\n"
"  mplanectl mark step --socket - 100     as any user, with mark serve\n",
};

static int step_via_socket(const char *path, unsigned int kind, uint64_t step)
{
	int fd = mplane_mark_open(strcmp(path, "-") ? path : NULL), err;

	if (fd < 0) {
		mp_err("%s: %s (is 'mplanectl mark serve' running?)",
		       strcmp(path, "-") ? path : MPLANE_MARK_SOCKET,
		       strerror(-fd));
		return MP_EXIT_ERR;
	}
	err = mplane_mark(fd, kind, step);
	close(fd);
	if (err) {
		mp_err("sending the mark: %s", strerror(-err));
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

static int mark_step_main(int argc, char **argv)
{
	struct step_settings set = { .kind = MPLANE_MARK_STEP, .repeat = 1 };
	struct mp_opt_result res;
	uint64_t step, i;
	const char *arg;
	int fd, err;

	err = mp_opt_parse(&step_cmd, argc, argv, &set, &res);
	if (err != MP_OPT_RUN)
		return err;
	arg = mp_single_arg(argc, argv, "N");
	if (!arg || mp_arg_u64("N", arg, 0, UINT64_MAX, &step))
		return MP_EXIT_USAGE;
	if (set.socket && set.repeat > 1)
		return mp_usage_err("--repeat goes straight to the marks program: not with --socket");
	if (set.socket)
		return step_via_socket(set.socket, set.kind, step);
	fd = marks_prog_fd();
	if (fd < 0) {
		mp_err("loading the marks program: %s", strerror(-fd));
		return MP_EXIT_ERR;
	}
	/* One BPF_PROG_TEST_RUN each: syscall programs take no repeat. */
	err = 0;
	for (i = 0; i < set.repeat && !err; i++)
		/* The caller's pid, not ours: a loop that runs this command
		 * once a step is one process, whose steps make step times. */
		err = emit(fd, set.kind, step, getppid(), 0);
	close(fd);
	if (err)
		mp_err("marking: %s", strerror(-err));
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

/* mark serve */

/*
 * Marks a second one user may send through 'mark serve': a training
 * step marks a few times a rank, and a host's ranks step at most some
 * hundreds of times a second.
 */
#define MARK_RATE	10000
#define MARK_RATE_STR	"10000"
#define MARK_RATE_MAX	1000000000
#define MARK_USERS	64	/* users with an allowance kept */

/*
 * One user's allowance, as a generic cell rate: each mark moves @tat
 * (the time the user's marks so far are "paid" until) on by one
 * interval, and a mark is refused when that would put it more than a
 * second ahead of now.
 */
struct mark_user {
	uid_t uid;
	bool used;
	uint64_t tat_ns;
};

struct mark_limit {
	uint64_t interval_ns;	/* 1 s / --rate; 0: no limit */
	struct mark_user users[MARK_USERS];
};

/* @uid's entry; a new user takes the place of the one idle longest. */
static struct mark_user *mark_user(struct mark_limit *l, uid_t uid)
{
	struct mark_user *u, *old = &l->users[0];

	for (u = l->users; u < l->users + MARK_USERS; u++) {
		if (u->used && u->uid == uid)
			return u;
		if (!u->used || (old->used && u->tat_ns < old->tat_ns))
			old = u;
	}
	*old = (struct mark_user){ .uid = uid, .used = true };
	return old;
}

static bool mark_allowed(struct mark_limit *l, uid_t uid, uint64_t now)
{
	struct mark_user *u;

	if (!l->interval_ns)
		return true;
	u = mark_user(l, uid);
	if (u->tat_ns < now)
		u->tat_ns = now;
	if (u->tat_ns + l->interval_ns > now + 1000000000ULL)
		return false;
	u->tat_ns += l->interval_ns;
	return true;
}

struct serve_settings {
	const char *socket;
	unsigned long mode;
	uint64_t rate;
};

/* --mode: permissions, octal as chmod(1) takes them. */
static int parse_mode(const char *opt, const char *arg, void *field)
{
	unsigned long mode;
	char *end;

	mode = strtoul(arg, &end, 8);
	if (!*arg || *end || mode > 0777)
		return mp_usage_err("bad %s '%s': want octal permissions such as 0660",
				    opt, arg);
	*(unsigned long *)field = mode;
	return MP_EXIT_OK;
}

#define AT(member)	MP_OPT_AT(struct serve_settings, member)
static const struct mp_opt serve_opts[] = {
	{ "socket", 's', MP_OPT_STRING, AT(socket), "PATH",
	  "where to listen", .def = MPLANE_MARK_SOCKET },
	{ "mode", 'm', MP_OPT_CUSTOM, AT(mode), "MODE",
	  "the socket's permissions, octal", .parse = parse_mode,
	  .def = "0666: any local program may mark" },
	{ "rate", 'r', MP_OPT_UINT, AT(rate), "N",
	  "marks a second each user may send; 0 for no limit",
	  .max = MARK_RATE_MAX, .def = MARK_RATE_STR },
	{}
};
#undef AT

static const struct mp_opt_cmd serve_cmd = {
	.usage = "mark serve [OPTIONS]",
	.about =
"Relay step marks from programs that may not use bpf(2): listen on a Unix\n"
"datagram socket and turn each struct mplane_mark_msg (mplane_mark_proto.h;\n"
"tools/include/mplane_mark.h sends them) into a step_mark event, with the\n"
"sender's pid (from the kernel, not the message) and the sender's own\n"
"timestamp.  Runs in the foreground until SIGINT or SIGTERM, then prints\n"
"how many marks it relayed, how many datagrams it refused and how many\n"
"marks it throttled.\n"
"\n"
"Any local user may mark (the socket is 0666), so each user (the uid the\n"
"kernel gives, not the message) may send --rate marks a second, and a\n"
"second's worth at once: one user's flood cannot fill the event ring that\n"
"every other program's marks and the fabric's events share.\n",
	.opts = serve_opts,
	.footer =
"Examples:\n"
"  mplanectl mark serve &\n"
"  mplanectl mark serve --socket /run/train/mark.sock --mode 0660 --rate 1000\n",
};

static int serve_socket(const char *path, mode_t mode)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, one = 1;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(path, mode)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * One datagram: the message and who sent it.  1 for a mark, 0 for a
 * datagram that is none, -1 when nothing was read (a signal came).
 */
static int read_mark(int fd, struct mplane_mark_msg *m, pid_t *pid,
		     uid_t *uid)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*pid = 0;
	*uid = (uid_t)-1;
	n = recvmsg(fd, &mh, 0);
	if (n < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS) {
			*pid = ((struct ucred *)CMSG_DATA(cm))->pid;
			*uid = ((struct ucred *)CMSG_DATA(cm))->uid;
		}
	return n == sizeof(*m) && !(mh.msg_flags & MSG_TRUNC) &&
	       m->magic == MPLANE_MARK_MAGIC &&
	       m->version == MPLANE_MARK_VERSION && m->kind < __MPLANE_MARK_MAX;
}

static int mark_serve_main(int argc, char **argv)
{
	struct serve_settings set = {
		.socket = MPLANE_MARK_SOCKET, .mode = 0666, .rate = MARK_RATE,
	};
	uint64_t relayed = 0, refused = 0, throttled = 0;
	struct mark_limit limit = {};
	struct mplane_mark_msg m;
	struct mp_opt_result res;
	int prog, sock, got, rc;
	const char *path;
	pid_t pid;
	uid_t uid;

	rc = mp_opt_parse(&serve_cmd, argc, argv, &set, &res);
	if (rc != MP_OPT_RUN)
		return rc;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	path = set.socket;
	limit.interval_ns = set.rate ? 1000000000ULL / set.rate : 0;
	prog = marks_prog_fd();
	if (prog < 0) {
		mp_err("loading the marks program: %s", strerror(-prog));
		return MP_EXIT_ERR;
	}
	mkdir("/run/mplane", 0755);
	sock = serve_socket(path, set.mode);
	if (sock < 0) {
		mp_err("%s: %s", path, strerror(-sock));
		close(prog);
		return MP_EXIT_ERR;
	}
	mp_run_stop_on_signals();
	fprintf(stderr, "mark serve: listening on %s\n", path);
	while (!mp_run_stopping) {
		got = read_mark(sock, &m, &pid, &uid);
		if (got <= 0) {
			refused += !got;
			continue;
		}
		if (!mark_allowed(&limit, uid, mp_mono_ns()))
			throttled++;
		else if (emit(prog, m.kind, m.step, pid, m.app_ts_ns))
			refused++;
		else
			relayed++;
	}
	fprintf(stderr, "mark serve: %llu marks relayed, %llu datagrams refused, %llu marks throttled\n",
		(unsigned long long)relayed, (unsigned long long)refused,
		(unsigned long long)throttled);
	unlink(path);
	close(sock);
	close(prog);
	return MP_EXIT_OK;
}

static const struct mp_cmd mark_cmds[] = {
	{ "step", mark_step_main, "put a step marker on the event timeline" },
	{ "serve", mark_serve_main, "relay marks from unprivileged programs (Unix socket)" },
	{}
};

static const struct mp_group mark_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] mark COMMAND [OPTIONS]\n"
"\n"
"Step markers: a training loop stamps its steps into the same event stream\n"
"as the fabric, so that a slow step can be laid next to what the fabric\n"
"did meanwhile ('mplanectl events --type step_mark,ecn_mark,...').\n",
	.footer =
"Run 'mplanectl mark COMMAND --help' for the options of a command.\n",
	.cmds = mark_cmds,
};

int mark_main(int argc, char **argv)
{
	return mp_group_run(&mark_group, argc - 1, argv + 1);
}
