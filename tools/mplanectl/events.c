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
#include <inttypes.h>
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
#include "mp_print.h"
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

/* One event a line of text, or a JSON document of its own. */
static void print_one(const struct mp_event_item *it, const char *label)
{
	const struct mplane_event *e = &it->ev;
	const char *type = mp_event_type_name(e->hdr.type);
	unsigned int i;

	mp_print_start();
	mp_print_u64(MP_PRINT_JSON, "ts_ns", NULL, e->hdr.ts_ns);
	mp_print_text("%" PRIu64 ".%09" PRIu64,
		      (uint64_t)(e->hdr.ts_ns / 1000000000),
		      (uint64_t)(e->hdr.ts_ns % 1000000000));
	mp_print_u64(MP_PRINT_ANY, "cpu", " cpu%-3" PRIu64, e->hdr.cpu);
	mp_print_str(MP_PRINT_ANY, "source", " %-14s", label);
	/* type_id always: a newer type has no name in this build. */
	mp_print_u64(MP_PRINT_JSON, "type_id", NULL, e->hdr.type);
	if (type)
		mp_print_str(MP_PRINT_ANY, "type", " %-15s", type);
	else
		mp_print_text(" %-15s", "?");
	mp_print_u64(MP_PRINT_ANY, "ifindex", " if%-4" PRIu64, e->hdr.ifindex);
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		mp_print_u64(MP_PRINT_ANY, "plane", " plane %" PRIu64,
			     e->hdr.plane);
	if (e->hdr.flags)
		mp_print_u64(MP_PRINT_ANY, "flags", " flags=%" PRIu64,
			     e->hdr.flags);
	for (i = 0; i < 4; i++)
		mp_event_print_val(e, i, MP_PRINT_ANY);
	if (e->hdr.type == MPLANE_EV_FAULT)
		mp_fault_print(e, MP_PRINT_ANY, " %s");
	mp_print_text("\n");
	mp_print_end();
}

static void print_event(const struct mp_event_item *it, void *data)
{
	struct reader *r = data;
	const char *label = r->label[it->source] ? r->label[it->source] : "?";

	if (r->count && r->printed >= r->count)
		return;
	r->printed++;
	print_one(it, label);
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

/* On stderr, text or JSON as the events are. */
static void print_summary(const struct reader *r)
{
	uint64_t tp = 0, td = 0;
	unsigned int i, rings = 0;
	enum mp_print_to odd;

	for (i = 0; i < r->nsrc; i++) {
		if (!r->label[i])
			continue;
		rings++;
		tp += r->st[i].produced;
		td += r->st[i].dropped;
	}
	mp_print_set_file(stderr);
	mp_print_start();
	mp_print_u64(MP_PRINT_ANY, "read", "# %" PRIu64 " events read",
		     r->printed);
	mp_print_text(" from %u rings", rings);
	mp_print_u64(MP_PRINT_ANY, "produced",
		     "; meanwhile %" PRIu64 " produced", tp);
	mp_print_u64(MP_PRINT_ANY, "dropped",
		     ", %" PRIu64 " dropped on a full ring", td);
	/* Text names the two only when they happened; JSON always. */
	odd = r->bad || r->q.late ? MP_PRINT_ANY : MP_PRINT_JSON;
	mp_print_u64(odd, "undecodable", "; %" PRIu64 " undecodable", r->bad);
	mp_print_u64(odd, "late", ", %" PRIu64 " out of order", r->q.late);
	mp_print_text("\n");
	mp_print_open_array("sources");
	for (i = 0; i < r->nsrc; i++) {
		if (!r->label[i])
			continue;
		mp_print_open_object(NULL);
		mp_print_str(MP_PRINT_JSON, "source", NULL, r->label[i]);
		mp_print_u64(MP_PRINT_JSON, "produced", NULL,
			     r->st[i].produced);
		mp_print_u64(MP_PRINT_JSON, "dropped", NULL,
			     r->st[i].dropped);
		mp_print_close_object();
	}
	mp_print_close_array();
	mp_print_end();
	mp_print_set_file(NULL);
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
"ifindex in the source's network namespace, and the values, enums by\n"
"name (state=down).  With -j, one JSON object per line; an enum's number\n"
"is under NAME_id (\"state_id\":1) and its name, when known, under NAME\n"
"(\"state\":\"down\").  On exit a summary goes to stderr: the events\n"
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
