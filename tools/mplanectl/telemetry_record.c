// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry record: the live feed (tools/lib/mp_feed.h) written
 * to a capture file (tools/lib/mp_capture.h) as it comes.  Lossless by
 * design: the rings are drained as fast as they fill and the file writes
 * are buffered, so the loop never waits on the disk for long; whatever a
 * full ring refused anyway is counted in the capture's CF_STATS frames.
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

#include "mp_capture.h"
#include "mp_cmd.h"
#include "mp_event.h"
#include "mp_feed.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "telemetry.h"
#include "mplane_capture.h"
#include "mplane_maps.h"

#define MAX_SOURCES	1024
#define POLL_MS		100

struct rec_source {
	char *label;
	uint64_t events;
	bool has_stats;
	struct mplane_capture_stats st;
};

struct recorder {
	struct mp_capture_writer w;
	struct rec_source src[MAX_SOURCES];
	unsigned int nsrc;		/* highest source number + 1 */
};

/* Write every frame; keep what the summary needs. */
static int on_frame(void *data, unsigned int kind, unsigned int source,
		    const void *payload, size_t len)
{
	struct recorder *r = data;
	struct rec_source *s = source < MAX_SOURCES ? &r->src[source] : NULL;

	if (s && source >= r->nsrc)
		r->nsrc = source + 1;
	if (s && kind == MPLANE_CF_SOURCE && !s->label)
		s->label = strndup(payload, len);
	else if (s && kind == MPLANE_CF_EVENT)
		s->events++;
	else if (s && kind == MPLANE_CF_STATS && len >= sizeof(s->st)) {
		memcpy(&s->st, payload, sizeof(s->st));
		s->has_stats = true;
	}
	return mp_capture_put(&r->w, kind, source, payload, len);
}

static void summary_source(const struct rec_source *s)
{
	enum mp_print_to to;

	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "source", "  %-24s", s->label);
	/* Without the ring's counts, what it recorded is what came. */
	mp_print_u64(MP_PRINT_ANY, "recorded", s->has_stats ?
		     " %" PRIu64 " recorded" : " %" PRIu64 " events",
		     s->has_stats ? s->st.recorded : s->events);
	if (s->has_stats) {
		mp_print_u64(MP_PRINT_ANY, "produced", ", %" PRIu64 " produced",
			     s->st.produced);
		mp_print_u64(MP_PRINT_ANY, "dropped", ", %" PRIu64 " dropped",
			     s->st.dropped);
		/* Text tells of events from before only when there were. */
		to = s->st.in_flight ? MP_PRINT_ANY : MP_PRINT_JSON;
		mp_print_u64(to, "in_flight",
			     ", %" PRIu64 " from before the start",
			     s->st.in_flight);
	}
	mp_print_text("\n");
	mp_print_close_object();
}

/* Text on stderr, beside the file; JSON, asked for, on stdout. */
static void summary(const struct recorder *r, const char *path, double secs)
{
	uint64_t dropped = 0;
	unsigned int i;

	for (i = 0; i < r->nsrc; i++)
		if (r->src[i].label && r->src[i].has_stats)
			dropped += r->src[i].st.dropped;
	mp_print_set_file(mp_json ? stdout : stderr);
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "file", "recorded %s:", path);
	mp_print_u64(MP_PRINT_ANY, "frames", " %" PRIu64 " frames",
		     r->w.frames);
	mp_print_u64(MP_PRINT_ANY, "bytes", ", %" PRIu64 " bytes", r->w.bytes);
	mp_print_double(MP_PRINT_ANY, "duration_s", " in %.1f s\n", secs);
	mp_print_u64(MP_PRINT_JSON, "dropped", NULL, dropped);
	mp_print_open_array("sources");
	for (i = 0; i < r->nsrc; i++)
		if (r->src[i].label)
			summary_source(&r->src[i]);
	mp_print_close_array();
	mp_print_end();
	mp_print_set_file(NULL);
}

/* The command line: the feed's settings, and what the loop needs. */
struct record_settings {
	const char *output, *ready_file;
	uint64_t duration_ns, poll_hz, throttle_us;
	struct mp_feed_opts feed;
};

#define AT(member)	MP_OPT_AT(struct record_settings, member)
static const struct mp_opt record_opts[] = {
	{ "output", 'o', MP_OPT_STRING, AT(output), "FILE",
	  .help = "the capture file, created or truncated (required)" },
	{ "duration", 'd', MP_OPT_SECONDS, AT(duration_ns), "SEC",
	  "stop after SEC seconds, such as 10 or 0.5; 0 runs until SIGINT or SIGTERM",
	  .def = "0" },
	{ "fabric", 'f', MP_OPT_STRING, AT(feed.fabric), "PREFIX",
	  .help = "of the fabrics' rings only those of PREFIX (the others, such as marks/ and kmod/, stay)" },
	{ "pin", 'p', MP_OPT_STRING, AT(feed.root), "DIR",
	  .help = "only the rings pinned below DIR" },
	{ "type", 't', MP_OPT_CUSTOM, AT(feed.type_mask), "T[,T...]",
	  "only these event types from the rings (step_mark, ecn_mark, queue_sample, ...; see 'mplanectl events --help'); the pollers' counters are always kept",
	  .parse = mp_run_event_types_opt },
	{ "poll-hz", 0, MP_OPT_UINT, AT(poll_hz), "N",
	  "the pollers' rate, 0 for no pollers",
	  .max = MP_FEED_POLL_HZ_MAX, .def = "1000" },
	{ "poll-ifaces", 0, MP_OPT_STRING, AT(feed.poll_ifaces), "LIST",
	  "the links to poll, comma-separated; 'mplanectl -n NS' polls another namespace's",
	  .def = "every link but lo, of the namespace mplanectl runs in" },
	{ "ethtool", 0, MP_OPT_FLAG, AT(feed.poll_ethtool), NULL,
	  .help = "poll the links' ethtool -S counters too (PFC pause, ECN, CNP, per queue, as the driver names them)" },
	{ "rdma", 0, MP_OPT_FLAG, AT(feed.poll_rdma), NULL,
	  .help = "poll every /sys/class/infiniband/*/ports/*/hw_counters file too (rxe and mlx5 names as is)" },
	{ "throttle-us", 0, MP_OPT_UINT, AT(throttle_us), "N",
	  "sleep N us after each batch read from the rings: a slow reader, to test drop accounting",
	  .max = 10000000, .def = "0" },
	{ "ready-file", 0, MP_OPT_STRING, AT(ready_file), "PATH",
	  .help = "create PATH once every source is open, for scripts that must not act before the recording starts" },
	{}
};
#undef AT

static const struct mp_opt_cmd record_cmd = {
	.usage = "telemetry record -o FILE [OPTIONS]",
	.about =
"Capture every telemetry source to FILE until --duration ends or SIGINT or\n"
"SIGTERM comes: the event ring of every mplane BPF object pinned under\n"
MPLANE_BPF_PIN_ROOT " (the fabric's switches and hosts, mplane.ko's relayed\n"
"tracepoints, the samplers, step marks) and the counter pollers.  Events\n"
"are written as their producer made them, in arrival order ('telemetry\n"
"dump --sorted' and 'report' put them in time order).  Each source is named\n"
"in the file, with the interface names of its network namespace.\n"
"\n"
"The rings are drained as fast as they fill and the file is written\n"
"through a large buffer, so that nothing is lost; if a ring overflows\n"
"anyway, its producers count what it refused, and the file ends with each\n"
"ring's counts over the recording: produced, dropped and recorded.  They\n"
"add up exactly (produced = recorded + dropped) unless events made before\n"
"the start were still in a ring, which the summary reports apart.\n"
"\n"
"The pollers read link statistics (one rtnetlink dump per tick) and, if\n"
"asked, ethtool -S and RDMA hw_counters, at --poll-hz on a fixed\n"
"CLOCK_MONOTONIC schedule, as counter events on the events' clock.  To keep\n"
"captures small a counter is written only when its value changed, plus\n"
"every counter once at the start and once at the end.\n"
"\n"
"At the end a summary goes to stderr (with -j, a JSON document to stdout):\n"
"per source what was recorded, produced and dropped, and the bytes written.\n"
"The exit status is non-zero when the file could not be written in full.\n",
	.opts = record_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry record -o /tmp/run.mpcap --duration 30\n"
"  mplanectl -n mpf-h0 telemetry record -o h0.mpcap --ethtool --rdma\n"
"  mplanectl telemetry dump /tmp/run.mpcap --sorted | head\n",
};

/* The checks that span options, once the table has parsed them. */
static int parse_opts(int argc, char **argv, struct record_settings *s)
{
	struct mp_feed_opts *o = &s->feed;
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&record_cmd, argc, argv, s, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	if (!s->output)
		return mp_usage_err("no output file: give -o FILE");
	/* In range for the feed's unsigned ints: the table's maxima. */
	o->poll_hz = s->poll_hz;
	o->throttle_us = s->throttle_us;
	if (!o->poll_hz && (o->poll_ifaces || o->poll_ethtool || o->poll_rdma))
		return mp_usage_err("--poll-ifaces, --ethtool and --rdma need the pollers: --poll-hz is 0");
	return MP_OPT_RUN;
}

static void open_error(const struct mp_feed_opts *o, int err)
{
	const char *root = o->root ? o->root : MPLANE_BPF_PIN_ROOT;

	if (err == -ENOENT)
		mp_err("nothing to record: no event ring under %s and no pollers (attach a program, or use --poll-hz)",
		       root);
	else if (err == -ENODEV)
		mp_err("--poll-ifaces '%s': a link is not in this network namespace",
		       o->poll_ifaces);
	else
		mp_err("opening the sources: %s", strerror(-err));
}

static int mark_ready(const char *path)
{
	FILE *f = fopen(path, "w");

	return !f || fclose(f) ? -1 : 0;
}

static int record_loop(struct mp_feed *feed, uint64_t duration)
{
	uint64_t start = mp_mono_ns(), now = start;
	int n, ms;

	while (!mp_run_stopping && (!duration || now - start < duration)) {
		ms = POLL_MS;
		if (duration && (duration - (now - start)) / 1000000 < POLL_MS)
			ms = (duration - (now - start)) / 1000000 + 1;
		n = mp_feed_poll(feed, ms);
		if (n < 0 && n != -EINTR)
			return n;
		now = mp_mono_ns();
	}
	return 0;
}

int telemetry_record_main(int argc, char **argv)
{
	struct record_settings s = { .poll_hz = 1000 };
	const struct mp_feed_opts *o = &s.feed;
	static struct recorder r;
	const char *path;
	struct mp_feed *feed;
	int err, ferr, i;
	uint64_t t0;

	err = parse_opts(argc, argv, &s);
	if (err != MP_OPT_RUN)
		return err;
	path = s.output;
	err = mp_capture_create(&r.w, path);
	if (err) {
		mp_err("%s: %s", path, err == -ELOOP ?
		       "a symbolic link: a capture is not written through one" :
		       strerror(-err));
		return MP_EXIT_ERR;
	}
	mp_run_stop_on_signals();
	t0 = mp_mono_ns();
	err = mp_feed_open(&feed, o, on_frame, &r);
	if (err) {
		open_error(o, r.w.err ? r.w.err : err);
		mp_capture_finish(&r.w);
		return MP_EXIT_ERR;
	}
	if (s.ready_file && mark_ready(s.ready_file)) {
		mp_err("--ready-file %s: %s", s.ready_file, strerror(errno));
		err = -errno;
	} else {
		err = record_loop(feed, s.duration_ns);
	}
	ferr = mp_feed_finish(feed);
	if (!err)
		err = ferr;
	ferr = mp_capture_finish(&r.w);
	summary(&r, path, (mp_mono_ns() - t0) / 1e9);
	for (i = 0; i < MAX_SOURCES; i++)
		free(r.src[i].label);
	if (ferr)
		mp_err("writing %s: %s", path, strerror(-ferr));
	else if (err)
		mp_err("recording: %s", strerror(-err));
	return err || ferr ? MP_EXIT_ERR : MP_EXIT_OK;
}
