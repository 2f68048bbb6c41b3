// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The rings are read by the caller's thread; the pollers run in a thread
 * of their own on an absolute CLOCK_MONOTONIC schedule, so that a long
 * drain of a busy ring does not stretch their ticks.  Both hand frames
 * to the consumer under one lock: the consumer sees one frame at a time.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mp_bpf.h"
#include "mp_capture.h"
#include "mp_ev_reader.h"
#include "mp_fabric.h"
#include "mp_feed.h"
#include "mp_netns.h"
#include "mp_poll.h"
#include "mp_rtnl.h"
#include "mp_run.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_maps.h"

/*
 * libbpf reads a ring until it finds it empty, so producers that write
 * as fast as a slow reader reads would keep one read going for ever, and
 * a signal or the end of a recording would never be seen.  A read stops
 * after this many records (a few MB): the callback returns BATCH_FULL,
 * which libbpf passes back once the record is consumed.
 */
#define BATCH_MAX	65536
#define BATCH_FULL	(-EXFULL)

#define MAX_RINGS	512

struct ring_src {
	struct mp_feed *feed;
	unsigned int id;		/* the frames' source number */
	char label[128];		/* the pin directory, below the root */
	int ring_fd;			/* what is read: mp_events, or ours */
	uint32_t events_id;		/* the object's mp_events */
	struct mp_ev_reader own;	/* own_rings: our slot's ring */
	int stats_fd;			/* -1 when the object pins none */
	struct mplane_event_stats before;
	uint64_t recorded;
	/*
	 * A source is its label: an object that is unloaded and loaded
	 * again (a policy change, a fabric re-made) goes on as the same
	 * source, read from its new ring, so that its counts never go
	 * back.  gone: its object went, its ring is closed, and what its
	 * producers counted is in @carried; fresh: (re)opened by the
	 * current scan, to be read and announced.
	 */
	bool gone, fresh;
	bool in_rb;			/* in f->rb, libbpf's ring manager */
	struct mplane_event_stats carried;
};

struct mp_feed {
	struct mp_feed_opts o;
	char root[PATH_MAX];
	mp_frame_cb cb;
	void *data;
	pthread_mutex_t lock;		/* one frame at a time to cb */
	int err;			/* what stopped the feed, or 0 */
	struct ring_src *src;
	unsigned int nsrc;
	struct ring_buffer *rb;
	struct mp_poller *poller;
	unsigned int poll_id;		/* the pollers' source number */
	pthread_t thread;
	bool thread_running;
	volatile bool stop;
	uint64_t batch;			/* frames of the current mp_feed_poll */
	uint64_t batch_limit;		/* then the rings wait for the next */
	uint32_t unread[MAX_RINGS];	/* own_rings: mp_events left unread, */
	unsigned int nunread;		/* each said once */
};

static struct mp_feed *walk_feed;	/* nftw() passes no context */

/*
 * Hand one frame over; the first error of the consumer is kept.  The
 * lock is only needed while the pollers' thread runs: without it, every
 * record of a busy ring would pay for a lock nobody else takes.
 */
static int deliver(struct mp_feed *f, unsigned int kind, unsigned int source,
		   const void *payload, size_t len)
{
	bool shared = f->thread_running;
	int err;

	if (shared)
		pthread_mutex_lock(&f->lock);
	err = f->err;
	if (!err) {
		err = f->cb(f->data, kind, source, payload, len);
		if (err)
			f->err = err;
	}
	if (shared)
		pthread_mutex_unlock(&f->lock);
	return err;
}

/* Finding the rings */

/* Of the fabric rings, only fabric/<opts.fabric>/ ones are wanted. */
static bool wanted_label(const struct mp_feed *f, const char *label)
{
	size_t n = strlen(f->o.fabric ? f->o.fabric : "");

	if (!f->o.fabric || strncmp(label, "fabric/", 7))
		return true;
	return !strncmp(label + 7, f->o.fabric, n) && label[7 + n] == '/';
}

static bool stats_layout_ok(int fd)
{
	struct bpf_map_info info;

	return !mp_map_info(fd, &info) &&
	       info.value_size == sizeof(struct mplane_event_stats);
}

static uint32_t map_id(int fd)
{
	struct bpf_map_info info;

	return mp_map_info(fd, &info) ? 0 : info.id;
}

/* One ring pinned twice (a shared object) is read once, under the first
 * name: two readers of one ring would race for its records. */
static bool seen_ring(const struct mp_feed *f, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < f->nsrc; i++)
		if (!f->src[i].gone && f->src[i].events_id == id)
			return true;
	return false;
}

static struct ring_src *src_of_label(struct mp_feed *f, const char *label)
{
	unsigned int i;

	for (i = 0; i < f->nsrc; i++)
		if (!strcmp(f->src[i].label, label))
			return &f->src[i];
	return NULL;
}

/*
 * With own_rings, read a ring of our own in the object's reader slots
 * instead of mp_events.  An object with no free slot (or none at all:
 * loaded by an older mplanectl) is not read, as reading mp_events would
 * take records from its reader; it is said once, and tried again at the
 * next rescan.
 */
static int use_own_ring(struct mp_feed *f, struct ring_src *s,
			const char *events_pin, int base)
{
	char pin[PATH_MAX];
	unsigned int i;
	int err;

	snprintf(pin, sizeof(pin), "%.*smp_event_readers", base, events_pin);
	err = mp_ev_reader_claim(&s->own, pin);
	if (!err) {
		s->ring_fd = s->own.ring_fd;
		return 0;
	}
	for (i = 0; i < f->nunread; i++)
		if (f->unread[i] == s->events_id)
			return err;
	if (f->nunread < MAX_RINGS)
		f->unread[f->nunread++] = s->events_id;
	fprintf(stderr, "mplanectl: not reading %s: %s\n", s->label,
		err == -ENOENT ? "it has no reader slots (its programs come from an older mplanectl: detach and attach them again)" :
		err == -EBUSY ? "every reader slot is taken" : strerror(-err));
	return err;
}

static int add_ring(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	struct mp_feed *f = walk_feed;
	const char *base = path + ftw->base;
	static const char pin_root[] = MPLANE_BPF_PIN_ROOT "/";
	struct ring_src new = {}, *s = &new, *old;
	int start, len;
	char stats[PATH_MAX];

	(void)sb;
	if (type != FTW_F || strcmp(base, "mp_events"))
		return 0;
	/* Labels are below the pin root even when the walk starts deeper
	 * (--pin), so that a ring has one name wherever it is read from. */
	start = strncmp(path, pin_root, sizeof(pin_root) - 1) ?
		(int)strlen(f->root) + 1 : (int)sizeof(pin_root) - 1;
	len = ftw->base - 1 - start;
	/* "fabric/mpf/p0l0": the directory, below the root. */
	if (len > 0)
		snprintf(s->label, sizeof(s->label), "%.*s", len, path + start);
	else
		snprintf(s->label, sizeof(s->label), ".");
	if (!wanted_label(f, s->label))
		return 0;
	old = src_of_label(f, s->label);
	if ((old && !old->gone) || (!old && f->nsrc >= MAX_RINGS))
		return 0;
	s->own.readers_fd = s->own.ring_fd = -1;
	s->ring_fd = bpf_obj_get(path);
	if (s->ring_fd < 0)
		return 0;
	s->events_id = map_id(s->ring_fd);
	if (seen_ring(f, s->events_id)) {
		close(s->ring_fd);
		return 0;
	}
	if (f->o.own_rings) {
		close(s->ring_fd);
		if (use_own_ring(f, s, path, ftw->base))
			return 0;
	}
	snprintf(stats, sizeof(stats), "%.*smp_event_stats", ftw->base, path);
	s->stats_fd = bpf_obj_get(stats);
	/* An older mplanectl's counters have another size: read as ours,
	 * they would be nonsense, so the ring goes without. */
	if (s->stats_fd >= 0 && !stats_layout_ok(s->stats_fd)) {
		close(s->stats_fd);
		s->stats_fd = -1;
	}
	s->feed = f;
	s->fresh = true;
	if (old) {
		s->id = old->id;
		s->recorded = old->recorded;
		s->carried = old->carried;
		*old = *s;
	} else {
		s->id = f->nsrc;
		f->src[f->nsrc++] = *s;
	}
	return 0;
}

static int find_rings(struct mp_feed *f)
{
	if (!f->src)
		f->src = calloc(MAX_RINGS, sizeof(*f->src));
	if (!f->src)
		return -ENOMEM;
	walk_feed = f;
	if (nftw(f->root, add_ring, 16, FTW_PHYS) && errno != ENOENT)
		return -errno;
	return 0;
}

/* What the producers of @s tried and what the full ring refused (ours,
 * with own_rings), since they were loaded: the per-CPU counts summed. */
static void read_stats(const struct ring_src *s, struct mplane_event_stats *sum)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	struct mplane_event_stats st[ncpu > 0 ? ncpu : 1];
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (s->gone || s->stats_fd < 0 || ncpu <= 0 ||
	    bpf_map_lookup_elem(s->stats_fd, &zero, st))
		return;
	for (c = 0; c < ncpu; c++) {
		sum->produced += st[c].produced;
		if (s->own.readers_fd < 0)
			sum->dropped += st[c].dropped;
		else if (s->own.slot < MPLANE_EV_READERS)
			sum->dropped += st[c].reader_dropped[s->own.slot];
	}
}

/* Naming interfaces: a source's ifindexes are those of its namespace. */

/* The named namespace whose inode is @ino, for "dev/<ino>/<ifname>". */
static int netns_by_inode(unsigned long ino)
{
	char path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dir = opendir(MP_NETNS_RUN_DIR);
	int fd = -ENOENT;

	if (!dir)
		return -errno;
	while (fd < 0 && (d = readdir(dir))) {
		snprintf(path, sizeof(path), MP_NETNS_RUN_DIR "/%s", d->d_name);
		if (d->d_name[0] != '.' && !stat(path, &st) && st.st_ino == ino)
			fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(dir);
	return fd;
}

/* The namespace of a fabric node, "fabric/<prefix>/<node>": as the
 * fabric's state file says (PREFIX-NODE). */
static int netns_of_node(const char *label)
{
	char prefix[32], node[32];
	const struct mp_fabric_node *n;
	struct mp_fabric fab;
	int fd = -ENOENT;

	if (sscanf(label, "fabric/%31[^/]/%31[^/]", prefix, node) != 2 ||
	    mp_fabric_load(prefix, &fab))
		return -ENOENT;
	n = mp_fabric_node(&fab, node);
	if (n)
		fd = mp_netns_open(n->netns);
	mp_fabric_free(&fab);
	return fd;
}

/* The namespace of @label's links: an fd, or -errno for the current one. */
static int netns_of(const char *label)
{
	unsigned long ino;

	if (!strncmp(label, "fabric/", 7))
		return netns_of_node(label);
	if (sscanf(label, "dev/%lu/", &ino) == 1)
		return netns_by_inode(ino);
	return -ENOENT;
}

struct name_ctx {
	struct mp_feed *f;
	unsigned int source;
	uint32_t netns;			/* as CF_IFNAME says it: 0 is home */
};

static int name_link(const struct mp_link *l, int type, void *data)
{
	struct name_ctx *c = data;
	struct mplane_capture_ifname n = {
		.ifindex = l->ifindex, .netns = c->netns,
	};

	(void)type;
	snprintf(n.name, sizeof(n.name), "%s", l->name);
	return deliver(c->f, MPLANE_CF_IFNAME, c->source, &n, sizeof(n));
}

/* CF_IFNAME for every link of the thread's namespace, said to be @netns. */
static int name_links_ns(struct mp_feed *f, unsigned int source,
			 uint32_t netns)
{
	struct name_ctx c = { .f = f, .source = source, .netns = netns };
	struct mp_nlerr e;
	struct mp_rtnl r;
	int err;

	if (mp_rtnl_open(&r, 0))
		return 0;	/* names are a help, not a must */
	err = mp_rtnl_dump_links(&r, name_link, NULL, &c, &e);
	mp_rtnl_close(&r);
	/* Only the consumer's refusal matters: names are best effort. */
	return err && f->err ? f->err : 0;
}

static int name_links(struct mp_feed *f, unsigned int source)
{
	return name_links_ns(f, source, 0);
}

/* Enter @label's namespace (if it has one of its own) to name its links. */
static int name_links_of(struct mp_feed *f, unsigned int source,
			 const char *label)
{
	int ns = netns_of(label), home, err;

	if (ns < 0)
		return name_links(f, source);
	home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0 || mp_netns_return(ns)) {
		if (home >= 0)
			close(home);
		close(ns);
		return name_links(f, source);
	}
	err = name_links(f, source);
	/* Back home; failing that, the thread is in the wrong namespace for
	 * everything after, so the feed must not go on. */
	if (mp_netns_return(home) && !err)
		err = -errno;
	close(home);
	close(ns);
	return err;
}

/* CF_NETNS: namespace @inode is called @name ("" for ours). */
static int name_netns(struct mp_feed *f, unsigned int source, uint32_t inode,
		      const char *name)
{
	struct mplane_capture_netns *n;
	size_t len;
	int err;

	n = mp_capture_netns_new(inode, name, &len);
	if (!n)
		return -ENOMEM;
	err = deliver(f, MPLANE_CF_NETNS, source, n, len);
	free(n);
	return err;
}

/* Name the named namespace @name (inode @ino) and its links, from inside
 * it; @home takes the thread back.  Only a failed return is an error. */
static int name_one_netns(struct mp_feed *f, unsigned int source,
			  const char *name, uint32_t ino, int home)
{
	int ns, err, back;

	err = name_netns(f, source, ino, name);
	if (err)
		return err;
	ns = mp_netns_open(name);
	if (ns < 0)
		return 0;
	if (mp_netns_return(ns)) {
		close(ns);
		return 0;	/* unnamed links: names are a help */
	}
	close(ns);
	err = name_links_ns(f, source, ino);
	/* Failing to go back leaves the thread where nothing after would
	 * be right, so the feed must not go on. */
	back = mp_netns_return(home);
	return back ? back : err;
}

struct netns_walk {
	struct mp_feed *f;
	unsigned int source;
	int home;
};

static int name_walked(const char *name, unsigned long inode, void *data)
{
	struct netns_walk *w = data;

	return name_one_netns(w->f, w->source, name, inode, w->home);
}

/*
 * The kmod relay sees the mplane devices of every namespace, and its
 * events carry the device's namespace inode in hdr.flags: name our own
 * namespace ("") and every one under /run/netns (a fabric's hosts), each
 * with its links.  A namespace with two names is named once.
 */
static int name_all_netns(struct mp_feed *f, unsigned int source)
{
	struct netns_walk w = {
		.f = f, .source = source,
		.home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC),
	};
	struct stat st;
	int err;

	if (w.home < 0 || fstat(w.home, &st)) {
		if (w.home >= 0)
			close(w.home);
		return name_links(f, source);
	}
	err = name_netns(f, source, st.st_ino, "");
	if (!err)
		err = name_links(f, source);
	if (!err)
		err = mp_netns_each(name_walked, &w);
	close(w.home);
	return err;
}

/* The source whose events name devices of any namespace: the relay of
 * mplane.ko's tracepoints, pinned under MPLANE_BPF_PIN_ROOT/kmod. */
static bool all_netns_source(const char *label)
{
	return !strcmp(label, "kmod");
}

/* Announce every source: label, then its interface names. */
static int announce_rings(struct mp_feed *f)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < f->nsrc && !err; i++) {
		const char *label = f->src[i].label;

		if (!f->src[i].fresh)
			continue;
		f->src[i].fresh = false;

		err = deliver(f, MPLANE_CF_SOURCE, i, label, strlen(label) + 1);
		if (err || f->o.no_names)
			continue;
		if (all_netns_source(label))
			err = name_all_netns(f, i);
		else
			err = name_links_of(f, i, label);
	}
	return err;
}

/* The rings */

static int on_record(void *ctx, void *data, size_t size)
{
	const struct mplane_event_hdr *h = data;
	struct ring_src *s = ctx;
	struct mp_feed *f = s->feed;
	int err;

	if (f->o.type_mask && size >= sizeof(*h) &&
	    (h->type >= 32 || !(f->o.type_mask & (1U << h->type))))
		return 0;
	err = deliver(f, MPLANE_CF_EVENT, s->id, data, size);
	if (err)
		return err < 0 ? err : -ECANCELED;
	s->recorded++;
	f->batch++;
	return f->batch >= f->batch_limit ? BATCH_FULL : 0;
}

static int open_rings(struct mp_feed *f)
{
	unsigned int i;

	for (i = 0; i < f->nsrc; i++) {
		struct ring_src *s = &f->src[i];

		if (s->fresh)
			read_stats(s, &s->before);
		if (s->gone || s->in_rb)
			continue;
		if (!f->rb) {
			f->rb = ring_buffer__new(s->ring_fd, on_record, s, NULL);
			if (!f->rb)
				return -errno;
		} else if (ring_buffer__add(f->rb, s->ring_fd, on_record, s)) {
			return -errno;
		}
		s->in_rb = true;
	}
	return 0;
}

/* The pollers */

static int poll_name(void *data, uint32_t id, uint32_t kind, uint32_t ifindex,
		     const char *name)
{
	size_t len = sizeof(struct mplane_capture_counter_name) + strlen(name) + 1;
	struct mplane_capture_counter_name *n = calloc(1, len);
	struct mp_feed *f = data;
	int err;

	if (!n)
		return -ENOMEM;
	n->id = id;
	n->kind = kind;
	n->ifindex = ifindex;
	strcpy(n->name, name);
	err = deliver(f, MPLANE_CF_COUNTER_NAME, f->poll_id, n, len);
	free(n);
	return err;
}

static int poll_event(void *data, const struct mplane_event *e)
{
	struct mp_feed *f = data;

	return deliver(f, MPLANE_CF_EVENT, f->poll_id, e, sizeof(*e));
}

static void ts_add(struct timespec *t, uint64_t ns)
{
	ns += t->tv_nsec;
	t->tv_sec += ns / 1000000000ULL;
	t->tv_nsec = ns % 1000000000ULL;
}

/*
 * Tick k is due at start + k * period, whatever the previous tick cost.
 * After a stall of many periods (the machine was busy) the schedule
 * moves on instead of firing a burst of back-to-back ticks.
 */
static void *poll_thread(void *arg)
{
	struct mp_feed *f = arg;
	uint64_t period = 1000000000ULL / f->o.poll_hz, due;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!f->stop) {
		ts_add(&next, period);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (f->stop)
			break;
		due = next.tv_sec * 1000000000ULL + next.tv_nsec;
		if (mp_mono_ns() > due + 100 * period)
			clock_gettime(CLOCK_MONOTONIC, &next);
		if (mp_poll_tick(f->poller, false, poll_event, f))
			break;
	}
	return NULL;
}

static int open_pollers(struct mp_feed *f)
{
	struct mp_poll_opts po = {
		.ifaces = f->o.poll_ifaces,
		.netdev = true,
		.ethtool = f->o.poll_ethtool,
		.rdma = f->o.poll_rdma,
	};
	sigset_t all, old;
	char what[64];
	int err;

	err = mp_poll_open(&f->poller, &po, what, sizeof(what));
	if (err)
		return err;
	/* Past every ring's: rings found later take the next numbers. */
	f->poll_id = MAX_RINGS;
	err = deliver(f, MPLANE_CF_SOURCE, f->poll_id, MP_FEED_POLL_SOURCE,
		      sizeof(MP_FEED_POLL_SOURCE));
	if (!err)
		err = name_links(f, f->poll_id);
	if (!err)
		err = mp_poll_names(f->poller, poll_name, f);
	/* Every counter once at the start: the baseline of its series. */
	if (!err)
		err = mp_poll_tick(f->poller, true, poll_event, f);
	if (err)
		return err;
	/* Signals are for the caller's thread, whose waits they cut short. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* Set before the thread exists, so that both sides lock from its
	 * first frame on. */
	f->thread_running = true;
	err = -pthread_create(&f->thread, NULL, poll_thread, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	f->thread_running = !err;
	return err;
}

static void stop_pollers(struct mp_feed *f)
{
	if (!f->thread_running)
		return;
	f->stop = true;
	pthread_join(f->thread, NULL);
	f->thread_running = false;
}

static void close_src(struct ring_src *s)
{
	if (s->gone)
		return;
	if (s->own.readers_fd >= 0)
		mp_ev_reader_release(&s->own);
	else
		close(s->ring_fd);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->ring_fd = s->stats_fd = -1;
}

static void feed_free(struct mp_feed *f)
{
	unsigned int i;

	stop_pollers(f);
	ring_buffer__free(f->rb);
	mp_poll_free(f->poller);
	for (i = 0; i < f->nsrc; i++)
		close_src(&f->src[i]);
	free(f->src);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

int mp_feed_open(struct mp_feed **feed, const struct mp_feed_opts *opts,
		 mp_frame_cb cb, void *data)
{
	struct mp_feed *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	f->o = *opts;
	f->cb = cb;
	f->data = data;
	pthread_mutex_init(&f->lock, NULL);
	snprintf(f->root, sizeof(f->root), "%s",
		 opts->root ? opts->root : MPLANE_BPF_PIN_ROOT);
	err = find_rings(f);
	if (!err && !f->nsrc && !opts->poll_hz && !opts->allow_empty)
		err = -ENOENT;
	if (!err)
		err = open_rings(f);
	if (!err)
		err = announce_rings(f);
	if (!err && opts->poll_hz)
		err = open_pollers(f);
	if (err) {
		feed_free(f);
		return err;
	}
	*feed = f;
	return 0;
}

static int stopped(struct mp_feed *f)
{
	int err;

	pthread_mutex_lock(&f->lock);
	err = f->err;
	pthread_mutex_unlock(&f->lock);
	return err < 0 ? err : (err ? -ECANCELED : 0);
}

/* Whether @s's object is still there: its pin, holding the same ring. */
static bool still_pinned(const struct mp_feed *f, const struct ring_src *s)
{
	char pin[PATH_MAX + sizeof(s->label) + 16];	/* as add_ring() saw */
	uint32_t id;
	int fd;

	if (!strcmp(s->label, "."))
		snprintf(pin, sizeof(pin), "%s/mp_events", f->root);
	else if (strncmp(f->root, MPLANE_BPF_PIN_ROOT,
			 sizeof(MPLANE_BPF_PIN_ROOT) - 1))
		snprintf(pin, sizeof(pin), "%s/%s/mp_events", f->root, s->label);
	else
		snprintf(pin, sizeof(pin), MPLANE_BPF_PIN_ROOT "/%s/mp_events",
			 s->label);
	fd = bpf_obj_get(pin);
	if (fd < 0)
		return errno != ENOENT;	/* only a pin that is gone says so */
	id = map_id(fd);
	close(fd);
	return id == s->events_id;
}

/*
 * Let go of the rings whose objects went: what they still hold is read
 * first, their producers' counts are carried over to the source, and
 * libbpf's ring manager (which cannot drop one ring) is made anew over
 * the rest.  Without this, a reader ring (1 MiB, every page touched)
 * stayed mapped for every object that was ever loaded.
 */
static int retire_gone(struct mp_feed *f)
{
	struct mplane_event_stats now;
	bool went[MAX_RINGS];
	unsigned int i, n = 0;

	for (i = 0; i < f->nsrc; i++) {
		went[i] = !f->src[i].gone && !still_pinned(f, &f->src[i]);
		n += went[i];
	}
	if (!n)
		return 0;
	f->batch = 0;
	f->batch_limit = (uint64_t)BATCH_MAX * f->nsrc;
	if (f->rb)
		ring_buffer__consume(f->rb);
	ring_buffer__free(f->rb);
	f->rb = NULL;
	for (i = 0; i < f->nsrc; i++) {
		struct ring_src *s = &f->src[i];

		if (went[i]) {
			read_stats(s, &now);
			s->carried.produced += now.produced - s->before.produced;
			s->carried.dropped += now.dropped - s->before.dropped;
			memset(&s->before, 0, sizeof(s->before));
			close_src(s);
			s->gone = true;
			s->events_id = 0;
		}
		s->in_rb = false;	/* open_rings() adds the rest again */
	}
	return n;
}

int mp_feed_rescan(struct mp_feed *feed)
{
	unsigned int i, added = 0;
	int err;

	retire_gone(feed);
	err = find_rings(feed);
	for (i = 0; i < feed->nsrc; i++)
		added += feed->src[i].fresh;
	if (!err)
		err = open_rings(feed);
	if (!err)
		err = announce_rings(feed);
	return err ? err : (int)added;
}

int mp_feed_poll(struct mp_feed *feed, int timeout_ms)
{
	struct epoll_event ev[8];
	int n, err;

	feed->batch = 0;
	feed->batch_limit = BATCH_MAX;
	if (feed->rb) {
		/* Producers batch their wakeups: a quiet ring never signals,
		 * so every ring is read after each wait. */
		n = epoll_wait(ring_buffer__epoll_fd(feed->rb), ev, 8, timeout_ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		err = ring_buffer__consume(feed->rb);
		if (err < 0 && err != -EINTR && err != BATCH_FULL)
			return stopped(feed) ?: err;
	} else if (timeout_ms > 0) {
		usleep(timeout_ms * 1000);
	}
	err = stopped(feed);
	if (err)
		return err;
	if (feed->o.throttle_us && feed->batch)
		usleep(feed->o.throttle_us);
	return feed->batch > INT32_MAX ? INT32_MAX : (int)feed->batch;
}

static int put_stats(struct mp_feed *f, struct ring_src *s,
		     const struct mplane_event_stats *after)
{
	struct mplane_capture_stats cs = {
		.produced = s->carried.produced +
			    (s->gone ? 0 : after->produced - s->before.produced),
		.dropped = s->carried.dropped +
			   (s->gone ? 0 : after->dropped - s->before.dropped),
		.recorded = s->recorded,
	};
	uint64_t written = cs.produced - cs.dropped;

	/* Records made before the window (left in the ring) were read too. */
	if (cs.recorded > written)
		cs.in_flight = cs.recorded - written;
	return deliver(f, MPLANE_CF_STATS, s->id, &cs, sizeof(cs));
}

int mp_feed_stats(struct mp_feed *f)
{
	struct mplane_event_stats now;
	unsigned int i;
	int err = 0;

	for (i = 0; i < f->nsrc && !err; i++) {
		read_stats(&f->src[i], &now);
		err = put_stats(f, &f->src[i], &now);
	}
	return err;
}

int mp_feed_finish(struct mp_feed *f)
{
	struct mplane_event_stats *after;
	unsigned int i;
	int err;

	stop_pollers(f);
	after = calloc(f->nsrc ? f->nsrc : 1, sizeof(*after));
	if (!after) {
		feed_free(f);
		return -ENOMEM;
	}
	/* Counts first, then the drain: whatever they counted as written is
	 * in the ring by now and gets read. */
	for (i = 0; i < f->nsrc; i++)
		read_stats(&f->src[i], &after[i]);
	/* Up to what every ring can hold: producers that go on writing
	 * must not keep the drain going. */
	f->batch = 0;
	f->batch_limit = (uint64_t)BATCH_MAX * (f->nsrc ? f->nsrc : 1);
	if (f->rb)
		ring_buffer__consume(f->rb);
	/* Every counter once at the end, so each series spans the capture. */
	if (f->poller)
		mp_poll_tick(f->poller, true, poll_event, f);
	for (i = 0; i < f->nsrc; i++)
		put_stats(f, &f->src[i], &after[i]);
	free(after);
	err = stopped(f);
	feed_free(f);
	return err;
}
