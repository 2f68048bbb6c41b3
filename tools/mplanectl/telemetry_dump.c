// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry dump: a capture file as JSON lines, one per frame,
 * for scripts and tests.  Events are decoded with their values named;
 * counter events carry the name their CF_COUNTER_NAME frame gave.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_capture.h"
#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_fault.h"
#include "mp_names.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "telemetry.h"
#include "mplane_capture.h"
#include "mplane_events.h"

/*
 * The counter names one dump keeps, over every source: a table by id per
 * source, and a forged file could otherwise name id 65535 in each of
 * 65536 sources (32 GB of table).  A host's pollers name a few thousand.
 */
#define MAX_COUNTER_SLOTS	(4 * MP_CAPTURE_MAX_COUNTERS)

struct dump_source {
	char *label;
	char **ctr;		/* counter names by id */
	unsigned int nctr;
};

struct dumper {
	struct dump_source *src;	/* by the frames' source */
	unsigned int nsrc;
	unsigned int ctr_slots;		/* of every source's ctr */
	bool sorted;
	struct mp_evq q;
	uint64_t bad;
};

/* A frame's document begins with what it is and where it came from;
 * mp_print_end() ends it.  Dump prints JSON only (telemetry_dump_main). */
static void frame_start(const char *frame, unsigned int source,
			const struct dumper *d)
{
	mp_print_start();
	mp_print_str(MP_PRINT_JSON, "frame", NULL, frame);
	mp_print_u64(MP_PRINT_JSON, "source_id", NULL, source);
	if (source < d->nsrc && d->src[source].label)
		mp_print_str(MP_PRINT_JSON, "label", NULL,
			     d->src[source].label);
}

static void print_event(const struct mp_event_item *it, void *data)
{
	const struct dumper *d = data;
	static const struct dump_source none;
	const struct mplane_event *e = &it->ev;
	const struct dump_source *s = it->source < d->nsrc ?
				      &d->src[it->source] : &none;
	const char *type = mp_event_type_name(e->hdr.type);
	unsigned int i;

	frame_start("event", it->source, d);
	mp_print_u64(MP_PRINT_JSON, "ts_ns", NULL, e->hdr.ts_ns);
	/* type_id always: a newer type has no name in this build. */
	mp_print_u64(MP_PRINT_JSON, "type_id", NULL, e->hdr.type);
	if (type)
		mp_print_str(MP_PRINT_JSON, "type", NULL, type);
	mp_print_u64(MP_PRINT_JSON, "cpu", NULL, e->hdr.cpu);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, e->hdr.ifindex);
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		mp_print_u64(MP_PRINT_JSON, "plane", NULL, e->hdr.plane);
	mp_print_u64(MP_PRINT_JSON, "flags", NULL, e->hdr.flags);
	if (e->hdr.type == MPLANE_EV_COUNTER && e->hdr.flags < s->nctr &&
	    s->ctr[e->hdr.flags])
		mp_print_str(MP_PRINT_JSON, "counter", NULL,
			     s->ctr[e->hdr.flags]);
	for (i = 0; i < 4; i++)
		mp_event_print_val(e, i, MP_PRINT_ANY);
	if (e->hdr.type == MPLANE_EV_FAULT)
		mp_fault_print(e, MP_PRINT_JSON, NULL);
	mp_print_end();
}

static int keep_counter_name(struct dumper *d, struct dump_source *s,
			     const void *p, size_t len)
{
	const struct mplane_capture_counter_name *n = p;
	unsigned int cap;
	char **ctr;

	if (len < sizeof(*n) + 1 || n->id >= MP_CAPTURE_MAX_COUNTERS)
		return -EBADMSG;
	if (n->id >= s->nctr) {
		cap = n->id + 64;
		if (d->ctr_slots - s->nctr + cap > MAX_COUNTER_SLOTS)
			return -E2BIG;
		d->ctr_slots += cap - s->nctr;
		ctr = realloc(s->ctr, cap * sizeof(*ctr));
		if (!ctr)
			return -ENOMEM;
		memset(ctr + s->nctr, 0, (cap - s->nctr) * sizeof(*ctr));
		s->ctr = ctr;
		s->nctr = cap;
	}
	free(s->ctr[n->id]);
	s->ctr[n->id] = strndup(n->name, len - sizeof(*n));
	return 0;
}

static void print_counter_name(const struct dumper *d, unsigned int source,
			       const void *p)
{
	const struct mplane_capture_counter_name *n = p;
	const char *kind;

	frame_start("counter_name", source, d);
	mp_print_u64(MP_PRINT_JSON, "id", NULL, n->id);
	/* kind_id always: a newer kind has no name in this build. */
	mp_print_u64(MP_PRINT_JSON, "kind_id", NULL, n->kind);
	kind = mp_name(&mp_counter_kind_names, n->kind);
	if (kind)
		mp_print_str(MP_PRINT_JSON, "kind", NULL, kind);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, n->ifindex);
	mp_print_str(MP_PRINT_JSON, "name", NULL, d->src[source].ctr[n->id]);
	mp_print_end();
}

static void print_ifname(const struct dumper *d, unsigned int source,
			 const void *p, size_t len)
{
	const struct mplane_capture_ifname *n = p;
	char name[sizeof(n->name) + 1];

	/* Older captures wrote no netns: 20 bytes, netns 0. */
	if (len < offsetof(struct mplane_capture_ifname, netns))
		return;
	frame_start("ifname", source, d);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, n->ifindex);
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(n->name), n->name);
	mp_print_str(MP_PRINT_JSON, "name", NULL, name);
	mp_print_u64(MP_PRINT_JSON, "netns_inode", NULL,
		     len >= sizeof(*n) ? n->netns : 0);
	mp_print_end();
}

static void print_netns(const struct dumper *d, unsigned int source,
			const void *p, size_t len)
{
	const struct mplane_capture_netns *n = p;
	char *name;

	if (len < sizeof(*n))
		return;
	/* The name runs to the frame's end, unterminated. */
	name = strndup(n->name, len - sizeof(*n));
	frame_start("netns", source, d);
	mp_print_u64(MP_PRINT_JSON, "inode", NULL, n->inode);
	mp_print_str(MP_PRINT_JSON, "name", NULL, name ? name : "");
	mp_print_end();
	free(name);
}

static void print_stats(const struct dumper *d, unsigned int source,
			const void *p, size_t len)
{
	const struct mplane_capture_stats *st = p;

	if (len < sizeof(*st))
		return;
	frame_start("stats", source, d);
	mp_print_u64(MP_PRINT_JSON, "produced", NULL, st->produced);
	mp_print_u64(MP_PRINT_JSON, "dropped", NULL, st->dropped);
	mp_print_u64(MP_PRINT_JSON, "recorded", NULL, st->recorded);
	mp_print_u64(MP_PRINT_JSON, "in_flight", NULL, st->in_flight);
	mp_print_end();
}

static int on_event(struct dumper *d, unsigned int source, const void *p,
		    size_t len)
{
	struct mp_event_item it = { .source = source };

	if (mp_event_decode(p, len, &it.ev)) {
		d->bad++;
		return 0;
	}
	if (d->sorted)
		return mp_evq_push(&d->q, &it.ev, source);
	print_event(&it, d);
	return 0;
}

/* The source @id, the table grown to hold it: NULL when out of memory. */
static struct dump_source *source_of(struct dumper *d, unsigned int id)
{
	struct dump_source *src;

	if (id < d->nsrc)
		return &d->src[id];
	src = realloc(d->src, (id + 1) * sizeof(*src));
	if (!src)
		return NULL;
	memset(src + d->nsrc, 0, (id + 1 - d->nsrc) * sizeof(*src));
	d->src = src;
	d->nsrc = id + 1;
	return &src[id];
}

static int on_frame(struct dumper *d, const struct mplane_capture_frame *fr,
		    const void *p)
{
	struct dump_source *s = source_of(d, fr->source);
	int err;

	if (!s)
		return -ENOMEM;
	switch (fr->kind) {
	case MPLANE_CF_SOURCE:
		free(s->label);
		s->label = strndup(p, fr->len);
		frame_start("source", fr->source, d);
		mp_print_end();
		break;
	case MPLANE_CF_IFNAME:
		print_ifname(d, fr->source, p, fr->len);
		break;
	case MPLANE_CF_NETNS:
		print_netns(d, fr->source, p, fr->len);
		break;
	case MPLANE_CF_COUNTER_NAME:
		err = keep_counter_name(d, s, p, fr->len);
		if (err)
			return err;
		print_counter_name(d, fr->source, p);
		break;
	case MPLANE_CF_EVENT:
		return on_event(d, fr->source, p, fr->len);
	case MPLANE_CF_STATS:
		/* The stats close the capture: the sorted events go first. */
		mp_evq_release(&d->q, ~0ULL, print_event, d);
		print_stats(d, fr->source, p, fr->len);
		break;
	default:
		break;	/* a newer writer's kind: skipped, as the format says */
	}
	return 0;
}

static const struct mp_opt dump_opts[] = {
	{ "sorted", 's', MP_OPT_FLAG, MP_OPT_AT(struct dumper, sorted), NULL,
	  .help = "events in timestamp order, after the other frames and before the stats" },
	{}
};

static const struct mp_opt_cmd dump_cmd = {
	.usage = "telemetry dump [OPTIONS] FILE",
	.about =
"Print every frame of a capture made by 'mplanectl telemetry record' as one\n"
"JSON object per line, in file order, for scripts (jq) and tests.  Each has\n"
"\"frame\" (source, netns, ifname, counter_name, event or stats),\n"
"\"source_id\" (the source's number in the file) and \"label\" (its name:\n"
"the pin directory such as \"fabric/mpf/p0l0\", \"kmod\" or \"marks\", or\n"
"\"poll\" for the pollers):\n"
"\n"
"  source        a source begins; ifname lines name its interfaces\n"
"  netns         a namespace the source's events may name: inode (as\n"
"                'stat -L -c %i /run/netns/NAME' shows) and name (under\n"
"                /run/netns; \"\" for the recorder's own); the kmod relay\n"
"                names every one, and its plane events carry the inode\n"
"                in flags\n"
"  ifname        ifindex, name and netns (the inode of the interface's\n"
"                namespace; 0: the source's own)\n"
"  counter_name  a polled counter: id, kind_id and, when known, kind\n"
"                (netdev, ethtool, rdma), ifindex and name (\"va/tx_packets\")\n"
"  event         ts_ns (CLOCK_MONOTONIC), type_id and, when known, type\n"
"                (its name), cpu, ifindex, plane, flags and the values\n"
"                by name (\"q_bytes\", \"step\", ...);\n"
"                a counter event has \"counter\", its name, and \"value\"\n"
"  stats         a ring's counts over the recording: produced, dropped,\n"
"                recorded and in_flight\n"
"\n"
"Events are in the order they arrived, which across rings is not quite\n"
"time order; --sorted holds them back and prints them sorted by ts_ns.\n",
	.opts = dump_opts,
	.footer =
"Example:\n"
"  mplanectl telemetry dump run.mpcap | jq -c 'select(.type==\"step_mark\")'\n",
};

static int dump_file(struct dumper *d, const char *path)
{
	struct mp_capture_reader r;
	struct mplane_capture_frame fr;
	const void *p;
	int err;

	err = mp_capture_open(&r, path);
	if (err == -EPROTO) {
		mp_err("%s: not a telemetry capture of a version this mplanectl reads",
		       path);
		return err;
	}
	if (err) {
		mp_err("%s: %s", path, strerror(-err));
		return err;
	}
	while ((err = mp_capture_next(&r, &fr, &p)) > 0) {
		err = on_frame(d, &fr, p);
		if (err)
			break;
	}
	mp_evq_release(&d->q, ~0ULL, print_event, d);
	if (err == -EBADMSG)
		mp_err("%s: cut short or damaged after frame %llu", path,
		       (unsigned long long)r.frames);
	else if (err == -E2BIG)
		mp_err("%s: frame %llu names more counters than %u, more than any poller does",
		       path, (unsigned long long)r.frames, MAX_COUNTER_SLOTS);
	else if (err)
		mp_err("%s: %s", path, strerror(-err));
	if (d->bad)
		mp_err("%s: %llu event records did not decode", path,
		       (unsigned long long)d->bad);
	mp_capture_close(&r);
	return err;
}

int telemetry_dump_main(int argc, char **argv)
{
	struct mp_opt_result res;
	struct dumper d = {};
	bool json = mp_json;
	const char *path;
	unsigned int i;
	int err;

	err = mp_opt_parse(&dump_cmd, argc, argv, &d, &res);
	if (err != MP_OPT_RUN)
		return err;
	/* optind is res.argi: the one operand, or what is missing. */
	path = mp_single_arg(argc, argv, "FILE");
	if (!path)
		return MP_EXIT_USAGE;
	/* JSON lines, -j or not: dump is for scripts. */
	mp_json = true;
	err = dump_file(&d, path);
	mp_json = json;
	for (i = 0; i < d.nsrc; i++) {
		while (d.src[i].nctr)
			free(d.src[i].ctr[--d.src[i].nctr]);
		free(d.src[i].ctr);
		free(d.src[i].label);
	}
	free(d.src);
	mp_evq_free(&d.q);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
