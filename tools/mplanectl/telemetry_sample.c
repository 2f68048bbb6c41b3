// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry sample: start, change or stop the switch ports'
 * sampler (the bpf_timer of bpf/ar.bpf.c) on the switches of a fabric.
 * Each switch has its own timer, started by running the switch's pinned
 * mp_ar_sampler program once; the pins live in bpffs, which every network
 * namespace shares, so no namespace needs entering.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "ar.h"
#include "mp_cmd.h"
#include "mp_fabric.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "telemetry.h"

/* Longer than this is a poller's job, not a sampler's. */
#define SAMPLE_MAX_NS	1000000000ULL

static const struct {
	const char *suffix;
	unsigned long long ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000 * 1000 },
};

static int interval_err(const char *opt, const char *arg)
{
	return mp_usage_err("bad %s '%s': want off, 0, or a number with a unit (ns, us or ms) from 10us to 1000ms, such as 100us or 1ms",
			    opt, arg);
}

/* --interval: "off", or a whole number with ns, us or ms (none for 0),
 * into the uint64_t @field in ns; 0 is off. */
static int parse_interval(const char *opt, const char *arg, void *field)
{
	uint64_t v, *ns = field;
	unsigned int i;
	char *end;

	if (!strcmp(arg, "off") || !strcmp(arg, "0")) {
		*ns = 0;
		return MP_EXIT_OK;
	}
	if (*arg < '0' || *arg > '9')
		return interval_err(opt, arg);
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return interval_err(opt, arg);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > SAMPLE_MAX_NS / units[i].ns)
			return interval_err(opt, arg);
		v *= units[i].ns;
		if (v && v < AR_SAMPLER_MIN_NS)
			return mp_usage_err("%s %s is below the minimum of 10us: the timer cannot fire that often and would only burn CPU (use 10us or more, or off)",
					    opt, arg);
		*ns = v;
		return MP_EXIT_OK;
	}
	return interval_err(opt, arg);
}

#define SAMPLER_START_TRIES	10

/*
 * Run the sampler program @fd: its return, or a -errno.  bpf_timer_init()
 * allocates without locks on newer kernels (kmalloc_nolock), which can
 * fail with memory to spare: it did in make check on 6.18, on one switch
 * of a fabric, however often it was tried on the same CPU.  Nothing is
 * armed then, so it is tried again, on each CPU in turn and a little
 * later each time, and the thread's CPUs are given back after.
 */
static int start_on_some_cpu(int fd, struct bpf_test_run_opts *opts)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t old, one;
	bool pinned = false;
	int i, err = 0;

	for (i = 0; i < SAMPLER_START_TRIES; i++) {
		if (bpf_prog_test_run_opts(fd, opts))
			err = -errno;
		else
			err = (int)opts->retval;
		if (err != -ENOMEM)
			break;
		if (!pinned && sched_getaffinity(0, sizeof(old), &old))
			break;
		pinned = true;
		CPU_ZERO(&one);
		CPU_SET(ncpus > 0 ? i % ncpus : 0, &one);
		sched_setaffinity(0, sizeof(one), &one);
		usleep(10000 * (i + 1));
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return err;
}

/* Run @n's pinned sampler program with @interval_ns: 0 or a -errno. */
static int run_sampler(const struct mp_fabric *f,
		       const struct mp_fabric_node *n,
		       unsigned long long interval_ns)
{
	struct ar_sampler_args args = { .interval_ns = interval_ns };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = &args,
		    .data_size_in = sizeof(args));
	char path[256];
	int fd, err = 0;

	if (!ar_switch_attached(f, n)) {
		mp_err("%s: adaptive routing is not attached (run 'mplanectl bpf attach --fabric %s' first)",
		       n->name, f->prefix);
		return -ENOENT;
	}
	if (ar_pin_path(path, sizeof(path), f->prefix, n->name,
			AR_PROG_SAMPLER))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		mp_err("%s: %s: %s (attached by an mplanectl without the sampler? 'mplanectl bpf attach --fabric %s' again)",
		       n->name, path, strerror(-err), f->prefix);
		return err;
	}
	err = start_on_some_cpu(fd, &opts);
	close(fd);
	if (err)
		mp_err("%s: %s the sampler: %s", n->name,
		       interval_ns ? "starting" : "stopping", strerror(-err));
	return err;
}

/* After the switches: JSON has them by name, text counts them. */
static void print_interval(unsigned int n, unsigned long long interval_ns)
{
	if (!interval_ns)
		mp_print_text("sampler off on %u switches\n", n);
	else if (interval_ns % 1000000 == 0)
		mp_print_text("sampling every port of %u switches every %llu ms\n",
			      n, interval_ns / 1000000);
	else
		mp_print_text("sampling every port of %u switches every %llu us\n",
			      n, interval_ns / 1000);
}

static int sample_fabric(const char *prefix, const char *node,
			 unsigned long long interval_ns)
{
	const struct mp_fabric_node *n;
	unsigned int i, done = 0;
	struct mp_fabric f;
	int err, failed = 0;

	err = mp_fabric_load(prefix, &f);
	if (err) {
		if (err == -ENOENT)
			mp_err("no fabric '%s' (build one with 'mplanectl fabric up --prefix %s')",
			       prefix, prefix);
		else
			mp_err("fabric %s: reading its state: %s", prefix,
			       strerror(-err));
		return MP_EXIT_ERR;
	}
	if (node) {
		n = mp_fabric_node(&f, node);
		if (!n || n->role == MP_NODE_HOST) {
			mp_usage_err("--node %s is not a switch of fabric %s (see 'mplanectl fabric show --prefix %s')",
				     node, prefix, prefix);
			mp_fabric_free(&f);
			return MP_EXIT_USAGE;
		}
	}
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "fabric", "fabric %s: ", prefix);
	mp_print_u64(MP_PRINT_JSON, "interval_ns", NULL, interval_ns);
	mp_print_open_array("switches");
	for (i = 0; i < f.nnodes; i++) {
		n = &f.nodes[i];
		if (n->role == MP_NODE_HOST || (node && strcmp(node, n->name)))
			continue;
		if (run_sampler(&f, n, interval_ns)) {
			failed++;
			continue;
		}
		mp_print_str(MP_PRINT_JSON, NULL, NULL, n->name);
		done++;
	}
	mp_print_close_array();
	print_interval(done, interval_ns);
	mp_print_end();
	mp_fabric_free(&f);
	return failed ? MP_EXIT_ERR : MP_EXIT_OK;
}

struct sample_settings {
	const char *prefix, *node;
	uint64_t interval_ns;
};

#define AT(member)	MP_OPT_AT(struct sample_settings, member)
static const struct mp_opt sample_opts[] = {
	{ "fabric", 'f', MP_OPT_STRING, AT(prefix), "PREFIX",
	  .help = "the fabric (required)" },
	{ "interval", 'i', MP_OPT_CUSTOM, AT(interval_ns), "INTERVAL",
	  "time between samples: a whole number with a unit, ns, us or ms, from 10us to 1000ms; off (or 0) stops the sampler (required)",
	  .parse = parse_interval },
	{ "node", 'n', MP_OPT_STRING, AT(node), "NAME",
	  .help = "only switch NAME (p0l0, p1s1, ...)" },
	{}
};
#undef AT

static const struct mp_opt_cmd sample_cmd = {
	.usage = "telemetry sample --fabric PREFIX --interval INTERVAL [--node NAME]",
	.about =
"Start, change or stop the high-frequency sampler of the switches of\n"
"fabric PREFIX (or of switch NAME only).  Adaptive routing must be\n"
"attached ('mplanectl bpf attach --fabric PREFIX'): the sampler is a\n"
"bpf_timer in the same BPF object, one per switch, which every INTERVAL\n"
"reports each port of its switch, traffic or not, as a port_sample event:\n"
"  q_bytes      the port's virtual queue at that instant (the model the\n"
"               AR choice and ECN marking use)\n"
"  tx_bytes     bytes the port has sent, cumulative\n"
"  ce_marked    packets it marked CE, cumulative\n"
"  tx_packets   packets it has sent, cumulative\n"
"The events go into the switch's event ring (mp_events), with the\n"
"other events of the switch, on the same CLOCK_MONOTONIC timeline.  Read\n"
"them with 'mplanectl events --fabric PREFIX --type port_sample' or\n"
"capture them with 'mplanectl telemetry record'.\n"
"\n"
"Cost: every tick is a timer softirq on some CPU and one 56-byte event per\n"
"port.  At 1ms it is negligible; at 10us a fabric of a few switches keeps\n"
"a good share of one CPU busy and fills each switch's ring at about 100000\n"
"events per second per port, so a reader must keep up or events are\n"
"dropped (and counted).  Documentation/ar.md has the measured cost.\n"
"The sampler stops with --interval off, and with 'bpf detach --fabric'.\n",
	.opts = sample_opts,
	.footer =
"Examples:\n"
"  mplanectl telemetry sample --fabric mpf --interval 1ms\n"
"  mplanectl telemetry sample --fabric mpf --interval 100us --node p0l0\n"
"  mplanectl telemetry sample --fabric mpf --interval off\n",
};

int telemetry_sample_main(int argc, char **argv)
{
	struct sample_settings s = {};
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&sample_cmd, argc, argv, &s, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	if (!s.prefix)
		return mp_usage_err("--fabric PREFIX is required");
	/* No default: a sampler starts, changes or stops only when told to. */
	if (!mp_opt_given(&sample_cmd, &res, "interval"))
		return mp_usage_err("--interval is required (such as 1ms, or off)");
	return sample_fabric(s.prefix, s.node, s.interval_ns);
}
