// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl events: read the event rings of every mplane BPF object
 * pinned under MPLANE_BPF_PIN_ROOT and print the records in timestamp
 * order, as text or JSON lines.  The rings come from the telemetry feed
 * (tools/lib/mp_feed.h), as for 'telemetry record'.  The producers batch
 * their wakeups, so the reader polls with a short timeout rather than
 * waiting for one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_fault.h"
#include "mp_feed.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mplanectl.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_maps.h"

#define MAX_SOURCES	1024
#define POLL_MS		20

struct reader {
	char *label[MAX_SOURCES];	/* the pin directory, below the root */
	struct mplane_capture_stats st[MAX_SOURCES];
	bool has_stats[MAX_SOURCES];
	unsigned int nsrc;		/* the highest source + 1 */
	const char *strip;		/* the root, below the pin root, + "/" */
	uint64_t count;			/* stop after this many; 0: never */
	uint64_t printed;
	uint64_t bad;			/* records that did not decode */
	struct mp_evq q;
};

static void print_text(const struct mp_event_item *it, const char *label)
{
	const struct mplane_event *e = &it->ev;
	const char *type = mp_event_type_name(e->hdr.type), *vn;
	const char *vlabel;
	unsigned int i;

	printf("%llu.%09llu cpu%-3u %-14s %-15s if%-4u",
	       (unsigned long long)(e->hdr.ts_ns / 1000000000ULL),
	       (unsigned long long)(e->hdr.ts_ns % 1000000000ULL),
	       e->hdr.cpu, label, type ? type : "?", e->hdr.ifindex);
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		printf(" plane %u", e->hdr.plane);
	if (e->hdr.flags)
		printf(" flags=%u", e->hdr.flags);
	for (i = 0; i < 4; i++) {
		vn = mp_event_val_name(e->hdr.type, i);
		vlabel = mp_event_val_label(e->hdr.type, i, e->val[i]);
		if (vn && vlabel)
			printf(" %s=%s", vn, vlabel);
		else if (vn && mp_event_val_hex(e->hdr.type, i))
			printf(" %s=%#llx", vn, (unsigned long long)e->val[i]);
		else if (vn)
			printf(" %s=%llu", vn, (unsigned long long)e->val[i]);
		else if (!type)
			printf(" v%u=%llu", i, (unsigned long long)e->val[i]);
	}
	if (e->hdr.type == MPLANE_EV_FAULT) {
		char where[48], words[96];

		printf(" %s %s", mp_fault_where(e, where, sizeof(where)),
		       mp_fault_words(e, words, sizeof(words)));
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
	if (e->hdr.flags)
		json_object_object_add(o, "flags",
				       json_object_new_uint64(e->hdr.flags));
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
		mp_event_label_json(o, e, i);
	}
	if (e->hdr.type == MPLANE_EV_FAULT)
		mp_fault_json(o, e);
	return o;
}

static void print_event(const struct mp_event_item *it, void *data)
{
	struct reader *r = data;
	const char *label = r->label[it->source] ? r->label[it->source] : "?";

	if (r->count && r->printed >= r->count)
		return;
	r->printed++;
	if (mp_json)
		mp_json_print(event_json(it, label));
	else
		print_text(it, label);
}

/* The feed's frames: sources are named, events held for reordering,
 * and each ring's counts over the run kept for the summary. */
static int on_frame(void *data, unsigned int kind, unsigned int source,
		    const void *payload, size_t len)
{
	struct reader *r = data;
	struct mplane_event e;

	if (source >= MAX_SOURCES)
		return 0;
	if (source >= r->nsrc)
		r->nsrc = source + 1;
	switch (kind) {
	case MPLANE_CF_SOURCE:
		/* Labels below --fabric's or --pin's directory, not the
		 * feed's pin root: "p0l0", not "fabric/mpf/p0l0". */
		if (r->strip && !strncmp(payload, r->strip, strlen(r->strip))) {
			payload = (const char *)payload + strlen(r->strip);
			len -= strlen(r->strip);
		}
		free(r->label[source]);
		r->label[source] = strndup(payload, len);
		return 0;
	case MPLANE_CF_STATS:
		if (len < sizeof(r->st[source]))
			return 0;
		memcpy(&r->st[source], payload, sizeof(r->st[source]));
		r->has_stats[source] = true;
		return 0;
	case MPLANE_CF_EVENT:
		if (mp_event_decode(payload, len, &e)) {
			r->bad++;
			return 0;
		}
		return mp_evq_push(&r->q, &e, source);
	default:
		return 0;
	}
}

static void print_summary(const struct reader *r)
{
	uint64_t tp = 0, td = 0;
	struct json_object *o, *srcs, *so;
	unsigned int i, rings = 0;

	srcs = json_object_new_array();
	for (i = 0; i < r->nsrc; i++) {
		if (!r->label[i])
			continue;
		rings++;
		tp += r->st[i].produced;
		td += r->st[i].dropped;
		so = json_object_new_object();
		json_object_object_add(so, "source",
				       json_object_new_string(r->label[i]));
		json_object_object_add(so, "produced",
				       json_object_new_uint64(r->st[i].produced));
		json_object_object_add(so, "dropped",
				       json_object_new_uint64(r->st[i].dropped));
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
	fprintf(stderr, "# %llu events read from %u rings; meanwhile %llu produced, %llu dropped on a full ring",
		(unsigned long long)r->printed, rings,
		(unsigned long long)tp, (unsigned long long)td);
	if (r->bad || r->q.late)
		fprintf(stderr, "; %llu undecodable, %llu out of order",
			(unsigned long long)r->bad, (unsigned long long)r->q.late);
	fputc('\n', stderr);
	json_object_put(srcs);
}

static int read_loop(struct reader *r, struct mp_feed *feed,
		     uint64_t duration_ns, uint64_t hold_ns)
{
	uint64_t start = mp_mono_ns(), now;
	int err = 0;

	while (!mp_run_stopping && (!r->count || r->printed < r->count)) {
		err = mp_feed_poll(feed, POLL_MS);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		err = 0;
		now = mp_mono_ns();
		mp_evq_release(&r->q, now > hold_ns ? now - hold_ns : 0,
			       print_event, r);
		fflush(stdout);
		if (duration_ns && now - start >= duration_ns)
			break;
	}
	return err;
}

struct events_settings {
	char root[PATH_MAX];	/* --fabric's or --pin's; "" for the pin root */
	uint32_t type_mask;
	uint64_t count, duration_ns, hold_ms;
};

static int root_too_long(const char *opt, const char *arg)
{
	return mp_usage_err("bad %s '%s': the path is longer than %d bytes",
			    opt, arg, PATH_MAX - 1);
}

/* --fabric and --pin both name the root to read: the last one given wins. */
static int parse_fabric(const char *opt, const char *arg, void *field)
{
	if (snprintf(field, PATH_MAX, MPLANE_BPF_PIN_ROOT "/fabric/%s",
		     arg) >= PATH_MAX)
		return root_too_long(opt, arg);
	return MP_EXIT_OK;
}

static int parse_pin(const char *opt, const char *arg, void *field)
{
	if (snprintf(field, PATH_MAX, "%s", arg) >= PATH_MAX)
		return root_too_long(opt, arg);
	return MP_EXIT_OK;
}

#define AT(member)	MP_OPT_AT(struct events_settings, member)
static const struct mp_opt events_opts[] = {
	{ "fabric", 'f', MP_OPT_CUSTOM, AT(root), "PREFIX",
	  "only the switches of fabric PREFIX", .parse = parse_fabric },
	{ "pin", 'p', MP_OPT_CUSTOM, AT(root), "DIR",
	  "only the objects pinned below DIR", .parse = parse_pin },
	{ "type", 't', MP_OPT_CUSTOM, AT(type_mask), "T[,T...]",
	  "only these types: queue_sample, ecn_mark, cnp, path_switch, flowlet_switch, port_state, plane_state, failover, plane_sample, plane_select, port_sample, step_mark, counter, collective, fault, rate_update",
	  .parse = mp_run_event_types_opt },
	{ "count", 'c', MP_OPT_UINT, AT(count), "N",
	  "stop after N events", .min = 1 },
	{ "duration", 'd', MP_OPT_SECONDS, AT(duration_ns), "SEC",
	  .help = "stop after SEC seconds (e.g. 2 or 0.5)" },
	{ "hold-ms", 0, MP_OPT_UINT, AT(hold_ms), "MS",
	  "the reorder window: each event waits MS ms before it is printed, so that a slower ring can catch up",
	  .max = 1000, .def = "5" },
	{}
};
#undef AT

static const struct mp_opt_cmd events_cmd = {
	.usage = "events [OPTIONS]",
	.about =
"Print the events of mplane's BPF programs as they happen: queue samples,\n"
"ECN marks, CNPs, path and flowlet switches, port state changes, and\n"
"what user space puts on the timeline: step marks, collectives, faults\n"
"('fabric fault', named: \"p0l0:s1 down (link, admin)\").  Every\n"
"program that is attached and pinned under " MPLANE_BPF_PIN_ROOT " is read\n"
"(or only those of --fabric, or of --pin DIR), and the records of all of\n"
"them are merged in timestamp order (CLOCK_MONOTONIC ns): each is held\n"
"--hold-ms before it is printed, so that a slower ring can catch up.\n"
"\n"
"One line per event: time, CPU, source (the pin directory), type, the\n"
"ifindex in the source's network namespace, and the values.  With -j,\n"
"one JSON object per line.  On exit a summary goes to stderr: the events\n"
"read and, while it read, how many each ring's producers tried to emit\n"
"and how many a full ring refused.  One reader of a ring at a time: two\n"
"readers ('events', 'telemetry record', 'top') take each other's records.\n",
	.opts = events_opts,
	.footer =
"Examples:\n"
"  mplanectl events --fabric mpf --type ecn_mark,path_switch\n"
"  mplanectl -j events --duration 10 > events.jsonl\n",
};

/* "fabric/mpf/" of "/sys/fs/bpf/mplane/fabric/mpf"; NULL for the pin
 * root itself or a directory elsewhere. */
static const char *root_below_pin_root(const char *root, char *buf,
				       size_t size)
{
	static const char pin_root[] = MPLANE_BPF_PIN_ROOT "/";
	size_t n = strlen(root);

	if (strncmp(root, pin_root, sizeof(pin_root) - 1) ||
	    n < sizeof(pin_root))
		return NULL;
	snprintf(buf, size, "%s%s", root + sizeof(pin_root) - 1,
		 root[n - 1] == '/' ? "" : "/");
	return buf;
}

int events_main(int argc, char **argv)
{
	static char strip[PATH_MAX];
	static struct reader r;
	struct events_settings s = { .hold_ms = 5 };
	struct mp_feed_opts o = { .root = MPLANE_BPF_PIN_ROOT, .no_names = true };
	struct mp_opt_result res;
	struct mp_feed *feed;
	unsigned int i;
	int err, ferr;

	err = mp_opt_parse(&events_cmd, argc, argv, &s, &res);
	if (err != MP_OPT_RUN)
		return err;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	if (s.root[0])
		o.root = s.root;
	o.type_mask = s.type_mask;
	r.count = s.count;
	r.strip = root_below_pin_root(o.root, strip, sizeof(strip));
	mp_run_stop_on_signals();
	err = mp_feed_open(&feed, &o, on_frame, &r);
	if (err == -ENOENT) {
		mp_err("no event rings under %s (attach a program first, e.g. 'mplanectl bpf attach --fabric mpf')",
		       o.root);
		return MP_EXIT_ERR;
	} else if (err) {
		mp_err("opening the rings under %s: %s", o.root, strerror(-err));
		return MP_EXIT_ERR;
	}
	err = read_loop(&r, feed, s.duration_ns, s.hold_ms * 1000000ULL);
	/* The rest of the rings, then everything still held. */
	ferr = mp_feed_finish(feed);
	mp_evq_release(&r.q, ~0ULL, print_event, &r);
	print_summary(&r);
	mp_evq_free(&r.q);
	for (i = 0; i < r.nsrc; i++)
		free(r.label[i]);
	if (!err)
		err = ferr;
	if (err)
		mp_err("reading events: %s", strerror(-err));
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
