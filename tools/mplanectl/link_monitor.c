// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl link monitor: one line per change of a plane's state, reason
 * or admin state, from the RTM_NEWLINK events of RTNLGRP_LINK compared
 * with what was known of each rail before.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mplanectl.h"
#include "link.h"

#define NSEC_PER_SEC	((uint64_t)1000000000)
#define NSEC_PER_MSEC	((uint64_t)1000000)

struct monitor_settings {
	uint64_t count, timeout_ns;
	const char *ready;
};

#define AT(member)	MP_OPT_AT(struct monitor_settings, member)
static const struct mp_opt monitor_opts[] = {
	{ "count", 'c', MP_OPT_UINT, AT(count), "N",
	  "exit after N changes; reaching --timeout before that is a failure (exit 1)",
	  .min = 1, .max = UINT32_MAX },
	{ "timeout", 't', MP_OPT_SECONDS, AT(timeout_ns), "SEC",
	  .help = "exit after SEC seconds, such as 5 or 0.5 (exit 0 without --count)" },
	{ "ready-file", 0, MP_OPT_STRING, AT(ready), "PATH",
	  .help = "create PATH once subscribed and the current states are known: from then on, no change is missed (for scripts that start it in background)" },
	{}
};
#undef AT

static const struct mp_opt_cmd monitor_cmd = {
	.usage = "link monitor [OPTIONS] [DEV]",
	.about =
"Print a line each time a plane of DEV (or of any mplane device) changes\n"
"state, reason or admin state, as the kernel announces it on rtnetlink.\n"
"Each line starts with the time of CLOCK_MONOTONIC in seconds and shows\n"
"old->new for what changed:\n"
"  812.402117 mp0 plane 1 a1: state up->down reason none->carrier admin up\n"
"Planes that appear (a rail enslaved) are taken as they are, and ones that\n"
"go are forgotten, without a line.  If the kernel drops events (a burst\n"
"overran the socket), every link is read again and what changed meanwhile\n"
"is printed then, once.\n"
"\n"
"With -j, one JSON object per line:\n"
"  {\"ts_ns\":812402117338,\"dev\":\"mp0\",\"ifindex\":5,\"plane\":1,\n"
"   \"rail\":\"a1\",\"rail_ifindex\":7,\"state\":\"down\",\"reason\":\"carrier\",\n"
"   \"admin\":\"up\",\"prev\":{\"state\":\"up\",\"reason\":\"none\",\"admin\":\"up\"}}\n"
"\n"
"It runs until SIGINT or SIGTERM (exit 0), --count or --timeout.\n",
	.opts = monitor_opts,
	.footer =
"Examples:\n"
"  mplanectl link monitor\n"
"  mplanectl -j link monitor mp0 --count 1 --timeout 5 --ready-file /tmp/r &\n"
"  while [ ! -e /tmp/r ]; do sleep 0.1; done; ip link set a1 down; wait\n",
};

/* What is compared of a plane: STATE, REASON and ADMIN, when sent. */
static const uint8_t watched[] = {
	IFLA_MPLANE_PLANE_STATE, IFLA_MPLANE_PLANE_REASON,
	IFLA_MPLANE_PLANE_ADMIN,
};

static const struct mp_names *const watched_names[] = {
	&mp_state_names, &mp_reason_names, &mp_admin_names,
};

static const char *const watched_keys[] = { "state", "reason", "admin" };

#define NR_WATCHED	(sizeof(watched) / sizeof(watched[0]))

struct rail {
	int ifindex;
	int master;
	uint32_t present;		/* bit i: watched[i] was sent */
	uint32_t val[NR_WATCHED];
};

/* An mplane device seen, for the names of masters. */
struct master {
	int ifindex;
	char name[IF_NAMESIZE];
};

struct monitor {
	int only;			/* DEV's ifindex, or 0 for every device */
	uint64_t count;			/* stop after this many; 0 = never */
	uint64_t seen;
	size_t nrails, nmasters;
	struct rail *rails;
	struct master *masters;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct rail *find_rail(struct monitor *m, int ifindex)
{
	size_t i;

	for (i = 0; i < m->nrails; i++)
		if (m->rails[i].ifindex == ifindex)
			return &m->rails[i];
	return NULL;
}

static void drop_rail(struct monitor *m, struct rail *r)
{
	*r = m->rails[--m->nrails];
}

static int add_rail(struct monitor *m, const struct rail *r)
{
	struct rail *v = realloc(m->rails, (m->nrails + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[m->nrails++] = *r;
	m->rails = v;
	return 0;
}

static int note_master(struct monitor *m, const struct mp_link *l, int type)
{
	struct master *v;
	size_t i;

	for (i = 0; i < m->nmasters; i++) {
		if (m->masters[i].ifindex != l->ifindex)
			continue;
		if (type == RTM_DELLINK)
			m->masters[i] = m->masters[--m->nmasters];
		else	/* it may have been renamed */
			memcpy(m->masters[i].name, l->name, IF_NAMESIZE);
		return 0;
	}
	if (type == RTM_DELLINK)
		return 0;
	v = realloc(m->masters, (m->nmasters + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[m->nmasters].ifindex = l->ifindex;
	memcpy(v[m->nmasters].name, l->name, IF_NAMESIZE);
	m->nmasters++;
	m->masters = v;
	return 0;
}

static const char *master_name(const struct monitor *m, int ifindex,
			       char *buf)
{
	size_t i;

	for (i = 0; i < m->nmasters; i++)
		if (m->masters[i].ifindex == ifindex)
			return m->masters[i].name;
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "%d", ifindex);
	return buf;
}

static void snapshot(const struct mp_link *l, struct rail *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->ifindex = l->ifindex;
	r->master = l->master;
	for (i = 0; i < NR_WATCHED; i++) {
		if (!(l->plane.present & (1u << watched[i])))
			continue;
		r->present |= 1u << i;
		r->val[i] = l->plane.val[watched[i]];
	}
}

static bool same(const struct rail *a, const struct rail *b)
{
	unsigned int i;

	if (a->present != b->present)
		return false;
	for (i = 0; i < NR_WATCHED; i++)
		if ((a->present & (1u << i)) && a->val[i] != b->val[i])
			return false;
	return true;
}

/* A name where the enum has one, else its number (JSON keeps it one). */
static void print_enum(enum mp_print_to to, const char *key, const char *fmt,
		       const struct mp_names *names, uint32_t v)
{
	const char *name = mp_name(names, v);
	char num[16];

	if (name) {
		mp_print_str(to, key, fmt, name);
		return;
	}
	if (to != MP_PRINT_TEXT)
		mp_print_u64(MP_PRINT_JSON, key, NULL, v);
	if (to != MP_PRINT_JSON) {
		snprintf(num, sizeof(num), "%u", v);
		mp_print_str(MP_PRINT_TEXT, NULL, fmt, num);
	}
}

/* Text has the value before the change only where it changed. */
static void print_values(const struct rail *was, const struct rail *now)
{
	unsigned int i;

	for (i = 0; i < NR_WATCHED; i++) {
		if (!(now->present & (1u << i)))
			continue;
		mp_print_str(MP_PRINT_TEXT, NULL, " %s ", watched_keys[i]);
		if ((was->present & (1u << i)) && was->val[i] != now->val[i])
			print_enum(MP_PRINT_TEXT, NULL, "%s->",
				   watched_names[i], was->val[i]);
		print_enum(MP_PRINT_ANY, watched_keys[i], "%s",
			   watched_names[i], now->val[i]);
	}
	mp_print_open_object("prev");
	for (i = 0; i < NR_WATCHED; i++)
		if (was->present & (1u << i))
			print_enum(MP_PRINT_JSON, watched_keys[i], NULL,
				   watched_names[i], was->val[i]);
	mp_print_close_object();
}

/* One line a change, in JSON one document a line. */
static void print_change(const struct monitor *m, const struct mp_link *l,
			 const struct rail *was, const struct rail *now,
			 uint64_t ts)
{
	const struct mp_plane_info *p = &l->plane;
	bool has_id = p->present & (1u << IFLA_MPLANE_PLANE_ID);
	char buf[IF_NAMESIZE], stamp[32];

	snprintf(stamp, sizeof(stamp), "%" PRIu64 ".%06" PRIu64,
		 ts / NSEC_PER_SEC, ts % NSEC_PER_SEC / 1000);
	mp_print_start();
	mp_print_u64(MP_PRINT_JSON, "ts_ns", NULL, ts);
	mp_print_str(MP_PRINT_TEXT, NULL, "%s", stamp);
	mp_print_str(MP_PRINT_ANY, "dev", " %s plane ",
		     master_name(m, l->master, buf));
	mp_print_s64(MP_PRINT_JSON, "ifindex", NULL, l->master);
	if (has_id)
		mp_print_u64(MP_PRINT_ANY, "plane", "%" PRIu64,
			     p->val[IFLA_MPLANE_PLANE_ID]);
	else
		mp_print_text("-");
	mp_print_str(MP_PRINT_ANY, "rail", " %s:", l->name);
	mp_print_s64(MP_PRINT_JSON, "rail_ifindex", NULL, l->ifindex);
	print_values(was, now);
	mp_print_text("\n");
	/* Lines go to a pipe or a file in tests: each as it happens (the
	 * end flushes). */
	mp_print_end();
}

/* A link from the baseline dump, an event, or a dump after an overrun. */
static int on_link(const struct mp_link *l, int type, void *data)
{
	struct monitor *m = data;
	struct rail *r = find_rail(m, l->ifindex), now;
	int err;

	if (mp_link_is_mplane(l)) {
		err = note_master(m, l, type);
		if (err)
			return err;
	}
	if (type == RTM_DELLINK || !mp_link_is_plane(l) ||
	    (m->only && l->master != m->only)) {
		if (r)
			drop_rail(m, r);
		return 0;
	}
	snapshot(l, &now);
	/* A new plane, or one moved to another device: known from now on. */
	if (!r || r->master != l->master) {
		if (r)
			drop_rail(m, r);
		return add_rail(m, &now);
	}
	if (same(r, &now))
		return 0;
	/* Counted before printing: past --count nothing more is printed. */
	if (m->count && m->seen >= m->count)
		return 0;
	print_change(m, l, r, &now, now_ns());
	*r = now;
	m->seen++;
	return 0;
}

static int write_ready(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		mp_err("%s: %s", path, strerror(errno));
		return MP_EXIT_ERR;
	}
	close(fd);
	return MP_EXIT_OK;
}

/* Read every link into @m: the baseline, or a catch-up after an overrun. */
static int sync_links(struct monitor *m)
{
	struct mp_nlerr e;
	struct mp_rtnl r;
	int err;

	if (link_open(&r, 0))
		return -EIO;
	err = mp_rtnl_dump_links(&r, on_link, NULL, m, &e);
	mp_rtnl_close(&r);
	if (err)
		mp_nlerr_report("dumping links", err, &e);
	return err;
}

static int resolve_only(const char *dev, struct monitor *m)
{
	struct mp_link *l = malloc(sizeof(*l));
	struct mp_nlerr e;
	struct mp_rtnl r;
	int err, ret = MP_EXIT_ERR;

	if (!l) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	if (link_open(&r, 0)) {
		free(l);
		return MP_EXIT_ERR;
	}
	err = mp_rtnl_get_link(&r, dev, l, &e);
	if (err)
		mp_nlerr_report(dev, err, &e);
	else if (!mp_link_is_mplane(l))
		link_not_mplane(l);
	else {
		m->only = l->ifindex;
		ret = MP_EXIT_OK;
	}
	mp_rtnl_close(&r);
	free(l);
	return ret;
}

static int watch(struct monitor *m, struct mp_rtnl *events, uint64_t timeout_ns)
{
	uint64_t deadline = timeout_ns ? now_ns() + timeout_ns : 0, now;
	struct pollfd pfd = { .fd = mnl_socket_get_fd(events->nl),
			      .events = POLLIN };
	int wait_ms, n, err;

	while (!stop && !(m->count && m->seen >= m->count)) {
		wait_ms = -1;
		if (deadline) {
			now = now_ns();
			if (now >= deadline)
				break;
			/* Rounded up, so that the deadline is passed. */
			wait_ms = (deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
		}
		n = poll(&pfd, 1, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mp_err("poll: %s", strerror(errno));
			return MP_EXIT_ERR;
		}
		if (!n)
			continue;
		err = mp_rtnl_read_links(events, on_link, m);
		if (err == -ENOBUFS)
			err = sync_links(m);
		if (err == -EINTR)
			continue;
		if (err) {
			mp_err("reading link events: %s", strerror(-err));
			return MP_EXIT_ERR;
		}
	}
	if (m->count && m->seen < m->count && !stop) {
		mp_err("timed out after %" PRIu64 ".%03" PRIu64 " s with %" PRIu64
		       " of %" PRIu64 " changes", timeout_ns / NSEC_PER_SEC,
		       timeout_ns % NSEC_PER_SEC / NSEC_PER_MSEC, m->seen, m->count);
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

int link_monitor_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct monitor_settings set = {};
	struct mp_opt_result res;
	struct monitor m = {};
	const char *dev = NULL;
	struct mp_rtnl events;
	int ret;

	ret = mp_opt_parse(&monitor_cmd, argc, argv, &set, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	m.count = set.count;
	if (res.argi + 1 < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi + 1]);
	if (res.argi < argc) {
		dev = argv[res.argi];
		ret = link_dev_arg("DEV", dev);
		if (ret)
			return ret;
	}
	/* No SA_RESTART: poll() returns at once and the loop sees @stop. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (dev && resolve_only(dev, &m))
		return MP_EXIT_ERR;
	/* Subscribed before the baseline is read, so that nothing falls
	 * between the two: an event already in the baseline changes
	 * nothing when it is read. */
	if (link_open(&events, RTMGRP_LINK))
		return MP_EXIT_ERR;
	ret = sync_links(&m) ? MP_EXIT_ERR : MP_EXIT_OK;
	if (!ret && set.ready)
		ret = write_ready(set.ready);
	if (!ret)
		ret = watch(&m, &events, set.timeout_ns);
	mp_rtnl_close(&events);
	free(m.rails);
	free(m.masters);
	return ret;
}
