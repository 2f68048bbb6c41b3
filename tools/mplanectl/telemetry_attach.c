// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry attach: relay mplane.ko's tracepoints into an event
 * ring.  bpf/kmtrace.bpf.c holds one raw tracepoint program per
 * tracepoint; they are attached, and their links pinned next to the ring
 * under KMOD_PIN_DIR, so that the relay outlives this command and every
 * reader of MPLANE_BPF_PIN_ROOT ('mplanectl events', 'telemetry record')
 * finds it.  Unpinning the links ('telemetry detach') stops it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <linux/mplane.h>
#include "mplane_maps.h"

#include "kmtrace.skel.h"
#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_pin.h"
#include "telemetry.h"

#define KMOD_PIN_DIR	MPLANE_BPF_PIN_ROOT "/kmod"
#define KMOD_SYSFS	"/sys/module/mplane"

/* The tracepoints, as named in kmod/trace.h and in the pin directory. */
enum { TP_STATE, TP_FAILOVER, TP_SAMPLE, TP_SELECT, TP_RATE, TP_COUNT };

static const char *const tp_names[TP_COUNT] = {
	[TP_STATE]	= "plane_state",
	[TP_FAILOVER]	= "failover",
	[TP_SAMPLE]	= "plane_sample",
	[TP_SELECT]	= "plane_select",
	[TP_RATE]	= "rate_update",
};

struct attach_settings {
	uint64_t sel_every;
	uint64_t wakeup_bytes;
	bool replace;
};

struct attach_result {
	bool relayed[TP_COUNT];
};

#define AT(member)	MP_OPT_AT(struct attach_settings, member)
static const struct mp_opt attach_opts[] = {
	{ "sel-sample", 's', MP_OPT_UINT, AT(sel_every), "N",
	  "relay one plane_select in N per CPU; 1 relays every choice, 0 none",
	  .max = UINT32_MAX, .def = "64" },
	{ "wakeup-bytes", 'w', MP_OPT_UINT, AT(wakeup_bytes), "N",
	  "wake readers only once N bytes wait in the ring; 0: on every record, so that a rare failover is seen at once; raise it for a fast sampler, to save wakeups",
	  .max = UINT32_MAX, .def = "0" },
	{ "replace", 'r', MP_OPT_FLAG, AT(replace), NULL,
	  .help = "if the relay is attached already, detach it first (its unread events are lost) and attach anew with these options; without it, attach says so and fails, changing nothing" },
	{}
};
#undef AT

static const struct mp_opt_cmd attach_cmd = {
	.usage = "telemetry attach [--sel-sample N] [--wakeup-bytes N] [--replace]",
	.about =
"Relay mplane.ko's tracepoints into the mplane event stream, next to the\n"
"BPF programs' events and on the same clock:\n"
"  mplane:plane_state   -> plane_state  (state, old state, reason, rail)\n"
"  mplane:failover      -> failover     (reason, planes still usable)\n"
"  mplane:plane_sample  -> plane_sample (the module's per-plane sampler:\n"
"                          queue bytes, tx bytes, ECN-CE, CNPs; its load\n"
"                          score in the header's flags)\n"
"  mplane:plane_select  -> plane_select (one plane choice in N, per CPU)\n"
"  mplane:rate_update   -> rate_update  (a QP's DCQCN rate changed: its\n"
"                          QPN, new and old rates in kbit/s, the cause;\n"
"                          the plane of the CNP for a cut)\n"
"Each is a BPF raw tracepoint program (bpf/kmtrace.bpf.c) that writes one\n"
"56-byte record per relayed event.  The programs, their ring mp_events and\n"
"its counters mp_event_stats are pinned under " KMOD_PIN_DIR "/, so the\n"
"relay keeps running after this command exits, for every mplane device\n"
"of every network namespace (ifindex is the device's, in its own\n"
"namespace), until 'mplanectl telemetry detach'.  Read it with\n"
"'mplanectl events' or 'mplanectl telemetry record'.  'perf record -e\n"
"mplane:*' keeps working alongside.\n"
"\n"
"The cost: nothing while no plane changes state; one record per sample\n"
"of the module's sampler; and, on every packet whose plane is chosen\n"
"afresh, a per-CPU count, plus a record for one in --sel-sample of them.\n"
"The ring holds 256 KiB, about 4,000 records: when no reader drains it,\n"
"further events are dropped and counted ('mplanectl events' prints the\n"
"count), so leave --sel-sample high unless a reader keeps up.\n"
"\n"
"mplane.ko must be loaded: its tracepoints exist only while it is.  While\n"
"the relay is attached it holds a reference on the module, so 'rmmod\n"
"mplane' fails with \"in use\": detach first.  mplane:plane_sample and\n"
"mplane:rate_update are left out, with a note, when the loaded module\n"
"does not have them.\n",
	.opts = attach_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry attach\n"
"  mplanectl telemetry attach --replace --sel-sample 1\n"
"  mplanectl events --type plane_state,failover\n",
};

static struct bpf_program *tp_prog(struct kmtrace *skel, int tp)
{
	switch (tp) {
	case TP_STATE:
		return skel->progs.mp_plane_state;
	case TP_FAILOVER:
		return skel->progs.mp_failover;
	case TP_SAMPLE:
		return skel->progs.mp_plane_sample;
	case TP_RATE:
		return skel->progs.mp_rate_update;
	default:
		return skel->progs.mp_plane_select;
	}
}

/* Whether any link of a relay is pinned. */
static bool relay_attached(void)
{
	char path[256];
	int tp;

	for (tp = 0; tp < TP_COUNT; tp++) {
		snprintf(path, sizeof(path), KMOD_PIN_DIR "/%s", tp_names[tp]);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

/*
 * Attach program @tp and pin its link.  A tracepoint the module lacks is
 * -ENOENT; the caller decides whether that is fatal.
 */
static int attach_one(struct kmtrace *skel, int tp)
{
	struct bpf_link *link;
	char path[256];
	int err;

	link = bpf_program__attach(tp_prog(skel, tp));
	if (!link)
		return -errno;
	snprintf(path, sizeof(path), KMOD_PIN_DIR "/%s", tp_names[tp]);
	err = bpf_link__pin(link, path);
	if (!err)
		mp_pin_protect(path);
	/* Closing our fd leaves the pinned link, and so the relay, running. */
	bpf_link__destroy(link);
	return err;
}

static int attach_all(struct kmtrace *skel, struct attach_result *res)
{
	int tp, err;

	for (tp = 0; tp < TP_COUNT; tp++) {
		err = attach_one(skel, tp);
		/* plane_sample came with the module's sampler, rate_update
		 * with congestion control: an older module relays the rest. */
		if (err == -ENOENT && (tp == TP_SAMPLE || tp == TP_RATE)) {
			mp_err("note: the loaded mplane.ko has no mplane:%s tracepoint (an older module): its samples are not relayed",
			       tp_names[tp]);
			continue;
		}
		if (err) {
			mp_err("attaching to mplane:%s: %s%s", tp_names[tp],
			       strerror(-err), err == -ENOENT ?
			       " (is the loaded mplane.ko too old, or was it just unloaded?)" : "");
			return err;
		}
		res->relayed[tp] = true;
	}
	return 0;
}

static int load_and_attach(const struct attach_settings *o,
			   struct attach_result *res)
{
	struct kmtrace *skel;
	int err;

	err = mp_pin_mkdir(KMOD_PIN_DIR);
	if (err) {
		mp_err("%s: %s", KMOD_PIN_DIR, strerror(-err));
		return err;
	}
	skel = kmtrace__open();
	if (!skel) {
		err = -errno;
		mp_err("opening the kmtrace program: %s", strerror(-err));
		return err;
	}
	skel->rodata->sel_sample_every = o->sel_every;
	skel->rodata->ev_wakeup_bytes = o->wakeup_bytes;
	bpf_map__set_pin_path(skel->maps.mp_events, KMOD_PIN_DIR "/mp_events");
	bpf_map__set_pin_path(skel->maps.mp_event_stats,
			      KMOD_PIN_DIR "/mp_event_stats");
	bpf_map__set_pin_path(skel->maps.mp_event_readers,
			      KMOD_PIN_DIR "/mp_event_readers");
	err = kmtrace__load(skel);
	if (err)
		mp_err("loading the kmtrace program: %s", strerror(-err));
	else
		err = attach_all(skel, res);
	if (!err) {
		mp_pin_protect(KMOD_PIN_DIR "/mp_events");
		mp_pin_protect(KMOD_PIN_DIR "/mp_event_stats");
		mp_pin_protect(KMOD_PIN_DIR "/mp_event_readers");
	}
	kmtrace__destroy(skel);
	/* Half a relay is none: take back what was pinned. */
	if (err)
		mp_pin_remove_dir(KMOD_PIN_DIR);
	return err;
}

static void print_result(const struct attach_settings *o,
			 const struct attach_result *res)
{
	int tp;

	mp_print_start();
	mp_print_str(MP_PRINT_JSON, "pin_dir", NULL, KMOD_PIN_DIR);
	mp_print_text("relaying");
	mp_print_open_array("relayed");
	for (tp = 0; tp < TP_COUNT; tp++)
		if (res->relayed[tp])
			mp_print_str(MP_PRINT_ANY, NULL, " mplane:%s",
				     tp_names[tp]);
	mp_print_close_array();
	mp_print_text(" into " KMOD_PIN_DIR "/mp_events");
	/* 0 is "none" in text. */
	mp_print_u64(o->sel_every ? MP_PRINT_ANY : MP_PRINT_JSON, "sel_sample",
		     " (plane_select: 1 in %" PRIu64 ")\n", o->sel_every);
	if (!o->sel_every)
		mp_print_text(" (plane_select: none)\n");
	mp_print_u64(MP_PRINT_JSON, "wakeup_bytes", NULL, o->wakeup_bytes);
	mp_print_end();
}

static int parse_opts(int argc, char **argv, struct attach_settings *o)
{
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&attach_cmd, argc, argv, o, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	return MP_OPT_RUN;
}

int telemetry_attach_main(int argc, char **argv)
{
	struct attach_settings o = { .sel_every = 64 };
	struct attach_result res = {};
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret != MP_OPT_RUN)
		return ret;
	if (access(KMOD_SYSFS, F_OK)) {
		mp_err("mplane.ko is not loaded, so its tracepoints (mplane:*) do not exist: load it first ('modprobe mplane' or 'insmod mplane.ko')");
		return MP_EXIT_ERR;
	}
	if (relay_attached()) {
		if (!o.replace) {
			mp_err("already attached (pinned under " KMOD_PIN_DIR "); use --replace to attach again with new options, or 'mplanectl telemetry detach'");
			return MP_EXIT_ERR;
		}
	}
	/* Leftovers of a relay that is not running are stale: start clean. */
	ret = mp_pin_remove_dir(KMOD_PIN_DIR);
	if (ret) {
		mp_err("removing %s: %s", KMOD_PIN_DIR, strerror(-ret));
		return MP_EXIT_ERR;
	}
	if (load_and_attach(&o, &res))
		return MP_EXIT_ERR;
	print_result(&o, &res);
	return MP_EXIT_OK;
}
