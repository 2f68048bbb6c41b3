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
#include "mp_opt.h"
#include "mp_out.h"
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

static const char *const counter_kinds[__MPLANE_COUNTER_MAX] = {
	[MPLANE_COUNTER_NETDEV]		= "netdev",
	[MPLANE_COUNTER_ETHTOOL]	= "ethtool",
	[MPLANE_COUNTER_RDMA]		= "rdma",
};

static struct json_object *frame_obj(const char *frame, unsigned int source,
				     const struct dumper *d)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "frame", json_object_new_string(frame));
	json_object_object_add(o, "source", json_object_new_int(source));
	if (source < d->nsrc && d->src[source].label)
		json_object_object_add(o, "label",
				       json_object_new_string(d->src[source].label));
	return o;
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void print_event(const struct mp_event_item *it, void *data)
{
	const struct dumper *d = data;
	static const struct dump_source none;
	const struct mplane_event *e = &it->ev;
	const struct dump_source *s = it->source < d->nsrc ?
				      &d->src[it->source] : &none;
	const char *type = mp_event_type_name(e->hdr.type), *vn;
	struct json_object *o = frame_obj("event", it->source, d);
	unsigned int i;
	char key[8];

	add_u64(o, "ts_ns", e->hdr.ts_ns);
	json_object_object_add(o, "type", type ? json_object_new_string(type) :
					  json_object_new_int(e->hdr.type));
	json_object_object_add(o, "cpu", json_object_new_int(e->hdr.cpu));
	add_u64(o, "ifindex", e->hdr.ifindex);
	if (e->hdr.plane != MPLANE_EVENT_NO_PLANE)
		json_object_object_add(o, "plane", json_object_new_int(e->hdr.plane));
	add_u64(o, "flags", e->hdr.flags);
	if (e->hdr.type == MPLANE_EV_COUNTER && e->hdr.flags < s->nctr &&
	    s->ctr[e->hdr.flags])
		json_object_object_add(o, "counter",
				       json_object_new_string(s->ctr[e->hdr.flags]));
	for (i = 0; i < 4; i++) {
		vn = mp_event_val_name(e->hdr.type, i);
		if (!vn && type)
			continue;
		if (!vn) {
			snprintf(key, sizeof(key), "v%u", i);
			vn = key;
		}
		add_u64(o, vn, e->val[i]);
		mp_event_label_json(o, e, i);
	}
	if (e->hdr.type == MPLANE_EV_FAULT)
		mp_fault_json(o, e);
	mp_json_print(o);
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
	struct json_object *o = frame_obj("counter_name", source, d);

	add_u64(o, "id", n->id);
	json_object_object_add(o, "kind", n->kind < __MPLANE_COUNTER_MAX ?
			       json_object_new_string(counter_kinds[n->kind]) :
			       json_object_new_int(n->kind));
	add_u64(o, "ifindex", n->ifindex);
	json_object_object_add(o, "name",
			       json_object_new_string(d->src[source].ctr[n->id]));
	mp_json_print(o);
}

static void print_ifname(const struct dumper *d, unsigned int source,
			 const void *p, size_t len)
{
	const struct mplane_capture_ifname *n = p;
	struct json_object *o;

	/* Older captures wrote no netns: 20 bytes, netns 0. */
	if (len < offsetof(struct mplane_capture_ifname, netns))
		return;
	o = frame_obj("ifname", source, d);
	add_u64(o, "ifindex", n->ifindex);
	json_object_object_add(o, "name", json_object_new_string_len(n->name,
			       strnlen(n->name, sizeof(n->name))));
	add_u64(o, "netns", len >= sizeof(*n) ? n->netns : 0);
	mp_json_print(o);
}

static void print_netns(const struct dumper *d, unsigned int source,
			const void *p, size_t len)
{
	const struct mplane_capture_netns *n = p;
	struct json_object *o;

	if (len < sizeof(*n))
		return;
	o = frame_obj("netns", source, d);
	add_u64(o, "inode", n->inode);
	json_object_object_add(o, "name", json_object_new_string_len(n->name,
			       strnlen(n->name, len - sizeof(*n))));
	mp_json_print(o);
}

static void print_stats(const struct dumper *d, unsigned int source,
			const void *p, size_t len)
{
	const struct mplane_capture_stats *st = p;
	struct json_object *o;

	if (len < sizeof(*st))
		return;
	o = frame_obj("stats", source, d);
	add_u64(o, "produced", st->produced);
	add_u64(o, "dropped", st->dropped);
	add_u64(o, "recorded", st->recorded);
	add_u64(o, "in_flight", st->in_flight);
	mp_json_print(o);
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
		mp_json_print(frame_obj("source", fr->source, d));
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
"\"frame\" (source, netns, ifname, counter_name, event or stats), \"source\"\n"
"(the source's number in the file) and \"label\" (its name: the pin\n"
"directory such as \"fabric/mpf/p0l0\", \"kmod\" or \"marks\", or \"poll\"\n"
"for the pollers):\n"
"\n"
"  source        a source begins; ifname lines name its interfaces\n"
"  netns         a namespace the source's events may name: inode (as\n"
"                'stat -L -c %i /run/netns/NAME' shows) and name (under\n"
"                /run/netns; \"\" for the recorder's own); the kmod relay\n"
"                names every one, and its plane events carry the inode\n"
"                in flags\n"
"  ifname        ifindex, name and netns (the inode of the interface's\n"
"                namespace; 0: the source's own)\n"
"  counter_name  a polled counter: id, kind (netdev, ethtool, rdma),\n"
"                ifindex and name (\"va/tx_packets\")\n"
"  event         ts_ns (CLOCK_MONOTONIC), type, cpu, ifindex, plane,\n"
"                flags and the values by name (\"q_bytes\", \"step\", ...);\n"
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
	err = dump_file(&d, path);
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
