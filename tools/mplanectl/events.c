// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl events: read the event rings of every mplane BPF object
 * pinned under MPLANE_BPF_PIN_ROOT and print the records in timestamp
 * order, as text or JSON lines.  The producers batch their wakeups, so
 * the reader polls with a short timeout rather than waiting for one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_out.h"
#include "mplanectl.h"

#define MAX_SOURCES	512
#define POLL_MS		20

struct source {
	char label[128];	/* the pin directory, below the root */
	int ring_fd;
	int stats_fd;		/* -1 when the object pins none */
};

struct reader {
	const char *root;
	struct source src[MAX_SOURCES];
	unsigned int nsrc;
	unsigned int type_mask;	/* 1 << type; 0 for every type */
	uint64_t count;		/* stop after this many; 0: never */
	uint64_t printed;
	uint64_t bad;		/* records that did not decode */
	struct mp_evq q;
};

static struct reader *walk_reader;	/* nftw() passes no context */
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int add_source(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	struct reader *r = walk_reader;
	const char *base = path + ftw->base;
	char stats[PATH_MAX];
	struct source *s;
	int rootlen = strlen(r->root), start, len;

	(void)sb;
	if (type != FTW_F || strcmp(base, "mp_events") || r->nsrc >= MAX_SOURCES)
		return 0;
	s = &r->src[r->nsrc];
	s->ring_fd = bpf_obj_get(path);
	if (s->ring_fd < 0)
		return 0;
	/* "fabric/mpf/p0l0": the directory, below the root. */
	start = rootlen + 1;
	len = ftw->base - 1 - start;
	if (len > 0)
		snprintf(s->label, sizeof(s->label), "%.*s", len, path + start);
	else
		snprintf(s->label, sizeof(s->label), ".");
	snprintf(stats, sizeof(stats), "%.*smp_event_stats", ftw->base, path);
	s->stats_fd = bpf_obj_get(stats);
	r->nsrc++;
	return 0;
}

static int find_sources(struct reader *r)
{
	walk_reader = r;
	if (nftw(r->root, add_source, 16, FTW_PHYS) && errno != ENOENT)
		return -errno;
	return r->nsrc ? 0 : -ENOENT;
}

static void print_text(const struct mp_event_item *it, const char *label)
{
	const struct mplane_event *e = &it->ev;
	const char *type = mp_event_type_name(e->hdr.type), *vn;
	unsigned int i;

	printf("%llu.%09llu cpu%-3u %-14s %-15s if%-4u",
	       (unsigned long long)(e->hdr.ts_ns / 1000000000ULL),
	       (unsigned long long)(e->hdr.ts_ns % 1000000000ULL),
	       e->hdr.cpu, label, type ? type : "?", e->hdr.ifindex);
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		printf(" plane %u", e->hdr.plane);
	for (i = 0; i < 4; i++) {
		vn = mp_event_val_name(e->hdr.type, i);
		if (vn)
			printf(" %s=%llu", vn, (unsigned long long)e->val[i]);
		else if (!type)
			printf(" v%u=%llu", i, (unsigned long long)e->val[i]);
	}
	putchar('\n');
}

static struct json_object *event_json(const struct mp_event_item *it,
				      const char *label)
{
	const struct mplane_event *e = &it->ev;
	const char *type = mp_event_type_name(e->hdr.type), *vn;
	struct json_object *o = json_object_new_object();
	unsigned int i;

	json_object_object_add(o, "ts_ns", json_object_new_uint64(e->hdr.ts_ns));
	json_object_object_add(o, "type", type ?
			       json_object_new_string(type) :
			       json_object_new_int(e->hdr.type));
	json_object_object_add(o, "source", json_object_new_string(label));
	json_object_object_add(o, "cpu", json_object_new_int(e->hdr.cpu));
	json_object_object_add(o, "ifindex",
			       json_object_new_uint64(e->hdr.ifindex));
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		json_object_object_add(o, "plane",
				       json_object_new_int(e->hdr.plane));
	for (i = 0; i < 4; i++) {
		char key[8];

		vn = mp_event_val_name(e->hdr.type, i);
		if (!vn && type)
			continue;
		if (!vn) {
			snprintf(key, sizeof(key), "v%u", i);
			vn = key;
		}
		json_object_object_add(o, vn, json_object_new_uint64(e->val[i]));
	}
	return o;
}

static void print_event(const struct mp_event_item *it, void *data)
{
	struct reader *r = data;
	const char *label = r->src[it->source].label;

	if (r->count && r->printed >= r->count)
		return;
	r->printed++;
	if (mp_json)
		mp_json_print(event_json(it, label));
	else
		print_text(it, label);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct source *s = ctx;
	struct reader *r = walk_reader;
	struct mplane_event e;

	if (mp_event_decode(data, size, &e)) {
		r->bad++;
		return 0;
	}
	if (r->type_mask && !(r->type_mask & (1U << e.hdr.type)))
		return 0;
	return mp_evq_push(&r->q, &e, s - r->src);
}

/* What every producer tried, and what its full ring refused, since it
 * was loaded: per-CPU counters summed. */
static void read_stats(const struct source *s, uint64_t *produced,
		       uint64_t *dropped)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	struct mplane_event_stats st[ncpu > 0 ? ncpu : 1];
	__u32 zero = 0;

	*produced = *dropped = 0;
	if (s->stats_fd < 0 || ncpu <= 0 ||
	    bpf_map_lookup_elem(s->stats_fd, &zero, st))
		return;
	for (c = 0; c < ncpu; c++) {
		*produced += st[c].produced;
		*dropped += st[c].dropped;
	}
}

static void print_summary(const struct reader *r)
{
	uint64_t produced, dropped, tp = 0, td = 0;
	struct json_object *o, *srcs, *so;
	unsigned int i;

	srcs = json_object_new_array();
	for (i = 0; i < r->nsrc; i++) {
		read_stats(&r->src[i], &produced, &dropped);
		tp += produced;
		td += dropped;
		so = json_object_new_object();
		json_object_object_add(so, "source",
				       json_object_new_string(r->src[i].label));
		json_object_object_add(so, "produced",
				       json_object_new_uint64(produced));
		json_object_object_add(so, "dropped",
				       json_object_new_uint64(dropped));
		json_object_array_add(srcs, so);
	}
	if (mp_json) {
		o = json_object_new_object();
		json_object_object_add(o, "read", json_object_new_uint64(r->printed));
		json_object_object_add(o, "produced", json_object_new_uint64(tp));
		json_object_object_add(o, "dropped", json_object_new_uint64(td));
		json_object_object_add(o, "undecodable", json_object_new_uint64(r->bad));
		json_object_object_add(o, "late", json_object_new_uint64(r->q.late));
		json_object_object_add(o, "sources", srcs);
		fprintf(stderr, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return;
	}
	fprintf(stderr, "# %llu events read from %u rings; since load: %llu produced, %llu dropped on a full ring",
		(unsigned long long)r->printed, r->nsrc,
		(unsigned long long)tp, (unsigned long long)td);
	if (r->bad || r->q.late)
		fprintf(stderr, "; %llu undecodable, %llu out of order",
			(unsigned long long)r->bad, (unsigned long long)r->q.late);
	fputc('\n', stderr);
	json_object_put(srcs);
}

static struct ring_buffer *open_rings(struct reader *r)
{
	struct ring_buffer *rb = NULL;
	unsigned int i;

	for (i = 0; i < r->nsrc; i++) {
		if (!rb)
			rb = ring_buffer__new(r->src[i].ring_fd, on_record,
					      &r->src[i], NULL);
		else if (ring_buffer__add(rb, r->src[i].ring_fd, on_record,
					  &r->src[i]))
			mp_err("%s: %s", r->src[i].label, strerror(errno));
		if (!rb) {
			mp_err("%s: %s", r->src[i].label, strerror(errno));
			return NULL;
		}
	}
	return rb;
}

static int read_loop(struct reader *r, uint64_t duration_ns, uint64_t hold_ns)
{
	uint64_t start = mono_ns(), now;
	struct ring_buffer *rb;
	int err = 0;

	rb = open_rings(r);
	if (!rb)
		return -EIO;
	while (!stopping && (!r->count || r->printed < r->count)) {
		err = ring_buffer__poll(rb, POLL_MS);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		err = 0;
		now = mono_ns();
		mp_evq_release(&r->q, now > hold_ns ? now - hold_ns : 0,
			       print_event, r);
		fflush(stdout);
		if (duration_ns && now - start >= duration_ns)
			break;
	}
	ring_buffer__consume(rb);
	mp_evq_release(&r->q, ~0ULL, print_event, r);
	ring_buffer__free(rb);
	return err;
}

static void events_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] events [OPTIONS]\n"
"\n"
"Print the events of mplane's BPF programs as they happen: queue samples,\n"
"ECN marks, CNPs, path and flowlet switches, port state changes.  Every\n"
"program that is attached and pinned under " MPLANE_BPF_PIN_ROOT " is read\n"
"(or only those of --fabric, or of --pin DIR), and the records of all of\n"
"them are merged in timestamp order (CLOCK_MONOTONIC ns): each is held\n"
"--hold-ms before it is printed, so that a slower ring can catch up.\n"
"\n"
"One line per event: time, CPU, source (the pin directory), type, the\n"
"ifindex in the source's network namespace, and the values.  With -j,\n"
"one JSON object per line.  On exit a summary goes to stderr: the events\n"
"read and, since the programs were loaded, how many each tried to emit\n"
"and how many a full ring refused.\n"
"\n"
"Options:\n"
"  -f, --fabric PREFIX   only the switches of fabric PREFIX\n"
"  -p, --pin DIR         only the objects pinned below DIR\n"
"  -t, --type T[,T...]   only these types (queue_sample, ecn_mark, cnp,\n"
"                        path_switch, flowlet_switch, port_state, ...)\n"
"  -c, --count N         stop after N events\n"
"  -d, --duration SEC    stop after SEC seconds (e.g. 2 or 0.5)\n"
"      --hold-ms MS      reorder window, 0..1000 (default 5)\n"
"  -h, --help            show this help\n"
"\n"
"Examples:\n"
"  mplanectl events --fabric mpf --type ecn_mark,path_switch\n"
"  mplanectl -j events --duration 10 > events.jsonl\n");
}

static const struct option events_opts[] = {
	{ "fabric",	required_argument,	NULL, 'f' },
	{ "pin",	required_argument,	NULL, 'p' },
	{ "type",	required_argument,	NULL, 't' },
	{ "count",	required_argument,	NULL, 'c' },
	{ "duration",	required_argument,	NULL, 'd' },
	{ "hold-ms",	required_argument,	NULL, 'H' },
	{ "help",	no_argument,		NULL, 'h' },
	{}
};

static int parse_types(const char *arg, unsigned int *mask)
{
	char buf[256], *tok, *save = NULL;
	int t;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		t = mp_event_type_parse(tok);
		if (t < 0)
			return mp_usage_err("bad --type '%s': unknown event type (see --help)",
					    tok);
		*mask |= 1U << t;
	}
	return 0;
}

int events_main(int argc, char **argv)
{
	static char root[PATH_MAX];
	static struct reader r;
	uint64_t duration = 0, hold_ms = 5;
	struct sigaction sa = { .sa_handler = on_signal };
	int c, err;

	r.root = MPLANE_BPF_PIN_ROOT;
	while ((c = mp_getopt(argc, argv, ":f:p:t:c:d:h", events_opts)) != -1) {
		switch (c) {
		case 'f':
			snprintf(root, sizeof(root), MPLANE_BPF_PIN_ROOT "/fabric/%s",
				 optarg);
			r.root = root;
			break;
		case 'p':
			snprintf(root, sizeof(root), "%s", optarg);
			r.root = root;
			break;
		case 't':
			if (parse_types(optarg, &r.type_mask))
				return MP_EXIT_USAGE;
			break;
		case 'c':
			if (mp_arg_u64("--count", optarg, 1, UINT64_MAX, &r.count))
				return MP_EXIT_USAGE;
			break;
		case 'd':
			if (mp_arg_seconds("--duration", optarg, &duration))
				return MP_EXIT_USAGE;
			break;
		case 'H':
			if (mp_arg_u64("--hold-ms", optarg, 0, 1000, &hold_ms))
				return MP_EXIT_USAGE;
			break;
		case 'h':
			events_help();
			return MP_EXIT_OK;
		default:
			return MP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	err = find_sources(&r);
	if (err) {
		mp_err("no event rings under %s (attach a program first, e.g. 'mplanectl bpf attach --fabric mpf')",
		       r.root);
		return MP_EXIT_ERR;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = read_loop(&r, duration, hold_ms * 1000000ULL);
	print_summary(&r);
	mp_evq_free(&r.q);
	if (err)
		mp_err("reading events: %s", strerror(-err));
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
