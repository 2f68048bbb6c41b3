// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric fault TARGET ACTION [VALUE]: break a fabric's links on
 * purpose, at once or at a time of the telemetry clock, and put every
 * step on the timeline (Documentation/fabric.md, "Faults").  This file
 * reads the command line and prints; fabric_fault_*.c do the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_cmd.h"
#include "mp_fault.h"
#include "mp_fault_loss.h"
#include "mp_names.h"
#include "mp_tc.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "fabric.h"
#include "fabric_fault.h"
#include "mplane_events.h"

#define NS_PER_SEC	1000000000ULL
#define MS		1000000ULL
/* Steps listed in text; JSON has them all. */
#define TEXT_STEPS	8
#define TEXT_PORTS	4


struct fault_settings {
	char prefix[FABRIC_PREFIX_SIZE];
	uint64_t at_ns;
	uint64_t start_ns;		/* CLOCK_MONOTONIC; 0: now */
	uint64_t period_ns, down_ns;
	uint64_t count;
	int via;			/* enum fault_loss_via */
	int tc_hook;			/* enum mp_tc_choice */
	bool reroute;
};

/* "1796147382.611091674" into ns, exactly: a clock's time, which a
 * double would round to a few hundred ns. */
static int time_ns(const char *arg, uint64_t *ns)
{
	size_t int_len = strspn(arg, "0123456789"), frac_len = 0;
	uint64_t secs, frac = 0;
	unsigned int i;

	if (!int_len || int_len > 10)
		return -1;
	if (arg[int_len] == '.') {
		frac_len = strspn(arg + int_len + 1, "0123456789");
		if (frac_len > 9)
			return -1;
		for (i = 0; i < 9; i++)
			frac = frac * 10 + (i < frac_len ? arg[int_len + 1 + i] - '0' : 0);
		frac_len++;
	}
	if (arg[int_len + frac_len])
		return -1;
	secs = strtoull(arg, NULL, 10);
	*ns = secs * NS_PER_SEC + frac;
	return 0;
}

/* "now", SECONDS of CLOCK_MONOTONIC (as events print their times), or
 * @SECONDS of CLOCK_REALTIME (as 'date +%s.%N' prints them). */
static int start_opt(const char *opt, const char *arg, void *field)
{
	uint64_t *mono = field, ns;
	struct timespec real;
	int64_t ahead;

	if (!strcmp(arg, "now")) {
		*mono = mp_mono_ns();
		return MP_EXIT_OK;
	}
	if (time_ns(arg[0] == '@' ? arg + 1 : arg, &ns))
		return mp_usage_err("bad %s '%s': want now, SECONDS of CLOCK_MONOTONIC or @SECONDS of the real-time clock, to the ns",
				    opt, arg);
	if (arg[0] != '@') {
		*mono = ns;
		return MP_EXIT_OK;
	}
	clock_gettime(CLOCK_REALTIME, &real);
	ahead = (int64_t)ns - (int64_t)(real.tv_sec * NS_PER_SEC + real.tv_nsec);
	*mono = mp_mono_ns() + ahead;
	return MP_EXIT_OK;
}

static const char *const vias[] = { "auto", "netem", "bpf", NULL };

static const struct mp_opt fault_opts[] = {
	{ "prefix", 'p', MP_OPT_CUSTOM, MP_OPT_AT(struct fault_settings, prefix),
	  "NAME", "the fabric", .parse = fabric_prefix_opt,
	  .def = MP_FABRIC_DEF_PREFIX },
	{ "at", 'a', MP_OPT_SECONDS, MP_OPT_AT(struct fault_settings, at_ns),
	  "SEC", "make the fault SEC seconds after --start, in a process of its own: the command returns at once, and 'fault clear' or 'fabric down' stop what is still to come",
	  .max = 86400 * NS_PER_SEC },
	{ "start", 's', MP_OPT_CUSTOM, MP_OPT_AT(struct fault_settings, start_ns),
	  "TIME", "what --at counts from: now, SECONDS of CLOCK_MONOTONIC (the clock of the timeline, as 'mplanectl events' prints it) or @SECONDS of the real-time clock (@$(date +%s.%N)), to the ns",
	  .parse = start_opt, .def = "now" },
	{ "period", 'P', MP_OPT_SECONDS, MP_OPT_AT(struct fault_settings, period_ns),
	  "SEC", "flap: from one down to the next", .min = 10 * MS,
	  .max = 3600 * NS_PER_SEC, .def = "1" },
	{ "down-for", 'd', MP_OPT_SECONDS, MP_OPT_AT(struct fault_settings, down_ns),
	  "SEC", "flap: how long each down lasts, less than the period; half of it unless given",
	  .min = 1 * MS, .max = 3600 * NS_PER_SEC },
	{ "count", 'c', MP_OPT_UINT, MP_OPT_AT(struct fault_settings, count),
	  "N", "flap: how many times", .min = 1, .max = 100000, .def = "1" },
	{ "reroute", 'R', MP_OPT_FLAG, MP_OPT_AT(struct fault_settings, reroute),
	  NULL, .help = "down, up, flap, clear: then every leaf of the planes touched routes each other leaf's hosts over only the spines whose links to both are up, as a routing protocol's withdrawals would (at once); without it routes are static and the other leaves keep sending into a failed link's spine" },
	{ "via", 0, MP_OPT_CHOICE, MP_OPT_AT(struct fault_settings, via),
	  "HOW", "loss: netem (in place of the port's tbf child) or bpf (a dropper on tc egress, for kernels without netem); auto is netem where the kernel has it",
	  .choices = vias, .def = "auto" },
	{ "tc-hook", 0, MP_OPT_CHOICE, MP_OPT_AT(struct fault_settings, tc_hook),
	  "HOOK", "loss through the BPF dropper (so --via bpf): where on the ports' tc egress it goes: tcx (Linux 6.6 and later), cls_bpf, or auto, tcx where the kernel has it (the default, or MPLANE_TC_HOOK); a dropper already there moves, keeping its counts",
	  .choices = mp_tc_choice_names },
	{}
};

static const struct mp_opt_cmd fault_cmd = {
	.usage = "fabric fault [OPTIONS] TARGET ACTION [VALUE]\n"
		 "       mplanectl [GLOBAL OPTIONS] fabric fault [OPTIONS] clear|show",
	.about =
"Break links of a fabric made by 'fabric up', on purpose, and put each\n"
"step on the telemetry timeline as a 'fault' event, just before it is made,\n"
"so that 'telemetry report' shows the cause next to its effects.\n"
"\n"
"TARGET is [link] NODE:PORT (both ends of a link: p0l0:s1, h0:r1),\n"
"port NODE:PORT (that end only), [switch] NODE (every port of a leaf or\n"
"spine: p0s1), or plane P (both ends of every link of plane P, the hosts'\n"
"rails into it included).  ACTION is\n"
"  down            the ports go admin down: both sides lose the carrier\n"
"  up              back up, with the addresses, neighbours and routes the\n"
"                  kernel dropped with them\n"
"  flap            down and up again, --count times, every --period\n"
"  degrade RATE    the ports' tbf at RATE (tc units: 10mbit, 1gbit), and\n"
"                  ar's model of them where ar runs\n"
"  loss PCT        lose PCT percent of what the ports send (1%, 0.5; 0\n"
"                  ends it), through netem or the BPF dropper (--via)\n"
"  clear           up, the fabric's own rates, no loss; without a TARGET,\n"
"                  every port, after stopping every schedule\n"
"'show' lists the schedules and every port that is down, degraded or\n"
"lossy (with what the dropper dropped).  Without --at a fault is made at\n"
"once, a flap in the foreground; with --at it runs in the background.\n"
"The events of every fabric of the machine share one ring, the marks'.\n",
	.opts = fault_opts,
	.footer =
"Examples:\n"
"  mplanectl fabric fault p0l0:s1 down\n"
"  mplanectl fabric fault h0:r0 loss 1%\n"
"  mplanectl fabric fault switch p0s1 flap --period 0.5 --count 3 --at 2\n"
"  mplanectl fabric fault plane 1 degrade 10mbit\n"
"  mplanectl -j fabric fault show\n"
"  mplanectl fabric fault clear\n",
};

/* A flap is steps of down and up: an action of the command line only. */
#define ACTION_FLAP	__MPLANE_FAULT_MAX

static int action_parse(const char *word)
{
	uint32_t v;

	if (!strcmp(word, "flap"))
		return ACTION_FLAP;
	return mp_name_parse(&mp_fault_action_names, word, &v) ? -1 : (int)v;
}

/* "1%", "0.5%" or "0.5" (percent) into parts per million. */
static int loss_arg(const char *arg, uint64_t *ppm)
{
	size_t len = strlen(arg);
	char num[32];
	double pct;
	char *end;

	if (len && arg[len - 1] == '%')
		len--;
	if (len && len < sizeof(num) && strspn(arg, "0123456789.") == len) {
		memcpy(num, arg, len);
		num[len] = '\0';
		pct = strtod(num, &end);
		if (!*end && pct <= 100) {
			*ppm = (uint64_t)(pct * 10000 + 0.5);
			return MP_EXIT_OK;
		}
	}
	return mp_usage_err("bad loss '%s': want a percentage from 0 to 100, such as 1%% or 0.5%%",
			    arg);
}

/* What the command line asks for, past the options. */
struct fault_line {
	const char *kind, *spec;	/* the target */
	int action;			/* enum mplane_fault_action, or ACTION_FLAP */
	uint64_t value;			/* bit/s or ppm */
	bool show;
};

/* "link", "port", "switch", "plane": the target's kind, when given. */
static bool is_kind(const char *w)
{
	uint32_t v;

	return !mp_name_parse(&mp_fault_target_names, w, &v) &&
	       v != MPLANE_FAULT_FABRIC;
}

static int parse_line(int argc, char **argv, struct fault_line *l)
{
	int i = 0;

	memset(l, 0, sizeof(*l));
	if (argc == 1 && (!strcmp(argv[0], "clear") || !strcmp(argv[0], "show"))) {
		l->show = !strcmp(argv[0], "show");
		l->action = MPLANE_FAULT_CLEAR;
		return MP_EXIT_OK;
	}
	if (!argc)
		return mp_usage_err("missing TARGET ACTION, such as 'p0l0:s1 down'");
	if (is_kind(argv[0]))
		l->kind = argv[i++];
	if (i < argc)
		l->spec = argv[i++];
	if (i >= argc)
		return mp_usage_err("missing ACTION after '%s': want down, up, flap, degrade RATE, loss PCT or clear",
				    argv[i - 1]);
	l->action = action_parse(argv[i]);
	if (l->action < 0)
		return mp_usage_err("bad ACTION '%s': want down, up, flap, degrade RATE, loss PCT or clear",
				    argv[i]);
	i++;
	if (l->action == MPLANE_FAULT_DEGRADE || l->action == MPLANE_FAULT_LOSS) {
		if (i >= argc)
			return mp_usage_err("'%s' wants a value, such as '%s'",
					    argv[i - 1], l->action == MPLANE_FAULT_LOSS ?
					    "loss 1%" : "degrade 10mbit");
		if (l->action == MPLANE_FAULT_LOSS ?
		    loss_arg(argv[i], &l->value) :
		    fabric_rate_arg("rate", argv[i], &l->value))
			return MP_EXIT_USAGE;
		i++;
	}
	if (i < argc)
		return mp_usage_err("unexpected argument '%s'", argv[i]);
	return MP_EXIT_OK;
}

/* Options that make sense with some lines only. */
static int check_options(const struct fault_settings *s,
			 const struct mp_opt_result *res,
			 const struct fault_line *l)
{
	static const char *const flap_only[] = { "period", "down-for", "count" };
	bool flap = l->action == ACTION_FLAP;
	unsigned int i;

	for (i = 0; !flap && i < 3; i++)
		if (mp_opt_given(&fault_cmd, res, flap_only[i]))
			return mp_usage_err("--%s is for flap only", flap_only[i]);
	if (flap && s->down_ns && s->down_ns >= s->period_ns)
		return mp_usage_err("--down-for must be shorter than --period");
	if (mp_opt_given(&fault_cmd, res, "start") &&
	    !mp_opt_given(&fault_cmd, res, "at"))
		return mp_usage_err("--start is what --at counts from: give --at too");
	if (mp_opt_given(&fault_cmd, res, "via") && l->action != MPLANE_FAULT_LOSS)
		return mp_usage_err("--via is for loss only");
	if (mp_opt_given(&fault_cmd, res, "tc-hook") &&
	    l->action != MPLANE_FAULT_LOSS)
		return mp_usage_err("--tc-hook is for loss only: it places the BPF dropper");
	if (mp_opt_given(&fault_cmd, res, "tc-hook") &&
	    s->via == FAULT_LOSS_NETEM)
		return mp_usage_err("--tc-hook places the BPF dropper: it cannot go with --via netem");
	if (s->reroute && (l->action == MPLANE_FAULT_DEGRADE ||
			   l->action == MPLANE_FAULT_LOSS))
		return mp_usage_err("--reroute is for down, up, flap and clear: a slow or lossy link still carries");
	return MP_EXIT_OK;
}

/* The steps of the fault from @t0: one, or a flap's downs and ups. */
static struct fault_step *make_steps(const struct fault_settings *s,
				     int action, uint64_t value, uint64_t t0,
				     unsigned int *n)
{
	uint64_t down = s->down_ns ? s->down_ns : s->period_ns / 2;
	struct fault_step *steps;
	unsigned int i;

	*n = action == ACTION_FLAP ? 2 * s->count : 1;
	steps = calloc(*n, sizeof(*steps));
	if (!steps)
		return NULL;
	if (action != ACTION_FLAP) {
		steps[0] = (struct fault_step){ .action = action, .value = value,
						.at_ns = t0 };
		return steps;
	}
	for (i = 0; i < *n; i++)
		steps[i] = (struct fault_step){
			.action = i & 1 ? MPLANE_FAULT_UP : MPLANE_FAULT_DOWN,
			.at_ns = t0 + (i / 2) * s->period_ns + (i & 1 ? down : 0),
			.step = i,
		};
	return steps;
}

/* Output */

static void print_time(const char *key, const char *fmt, uint64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%09" PRIu64,
		 (uint64_t)(ns / NS_PER_SEC), (uint64_t)(ns % NS_PER_SEC));
	mp_print_u64(MP_PRINT_JSON, key, NULL, ns);
	mp_print_str(MP_PRINT_TEXT, NULL, fmt, buf);
}

static void print_ports(const struct fault_ctx *c, const struct fault_target *t)
{
	const struct mp_fabric_port *p;
	unsigned int i;
	char name[64];

	mp_print_open_array("ports");
	for (i = 0; i < t->nports; i++) {
		p = fault_port_of(c, &t->ports[i]);
		mp_print_open_object(NULL);
		mp_print_str(MP_PRINT_JSON, "node", NULL,
			     c->f.nodes[t->ports[i].node].name);
		mp_print_str(MP_PRINT_JSON, "port", NULL, p->ifname);
		mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, p->ifindex);
		snprintf(name, sizeof(name), "%s/%s",
			 c->f.nodes[t->ports[i].node].name, p->ifname);
		if (i < TEXT_PORTS)
			mp_print_str(MP_PRINT_TEXT, NULL, " %s", name);
		mp_print_close_object();
	}
	mp_print_close_array();
	if (t->nports > TEXT_PORTS)
		mp_print_text(" ... (%u ports)", t->nports);
}

static void print_step(const struct fault_step *s, bool done)
{
	struct mplane_event e = { .val = { s->action, s->value } };
	char what[48];

	mp_print_open_object(NULL);
	mp_print_u64(MP_PRINT_JSON, "step_index", NULL, s->step);
	mp_print_str(MP_PRINT_JSON, "action", NULL,
		     mp_fault_action_name(s->action));
	mp_print_u64(MP_PRINT_JSON, "value", NULL, s->value);
	mp_print_str(MP_PRINT_TEXT, NULL, "%s", mp_fault_what(&e, what,
							      sizeof(what)));
	print_time("at_ns", " at %s", s->at_ns);
	if (!done && s->at_ns > mp_mono_ns())
		mp_print_float(MP_PRINT_TEXT, NULL, " (in %.3f s)",
			       (s->at_ns - mp_mono_ns()) / 1e9);
	if (done) {
		print_time("done_ns", ", done %s", s->done_ns);
		mp_print_str(MP_PRINT_ANY, "via", " via %s",
			     mp_fault_via_name(s->via));
		mp_print_bool(MP_PRINT_JSON, "ok", NULL, !s->err);
		if (s->err)
			mp_print_str(MP_PRINT_TEXT, NULL, ": %s", strerror(-s->err));
	}
	mp_print_close_object();
}

/* A foreground step just made: one line of text (JSON comes at the end). */
static void step_done(const struct fault_ctx *c, const struct fault_target *t,
		      const struct fault_step *s)
{
	(void)c;
	if (mp_json)
		return;
	mp_print_str(MP_PRINT_TEXT, NULL, "%s ", t->name);
	print_step(s, true);
	mp_print_text("\n");
	fflush(stdout);
}

static void print_head(const struct fault_ctx *c, const struct fault_target *t)
{
	mp_print_str(MP_PRINT_JSON, "prefix", NULL, c->f.prefix);
	mp_print_str(MP_PRINT_JSON, "target", NULL,
		     mp_fault_target_name(t->kind));
	mp_print_str(MP_PRINT_ANY, "name", "%s:", t->name);
	print_ports(c, t);
	mp_print_text("\n");
}

static void print_steps(const struct fault_step *steps, unsigned int n,
			bool done)
{
	unsigned int i;

	mp_print_open_array("steps");
	for (i = 0; i < n; i++) {
		if (mp_json || i < TEXT_STEPS) {
			mp_print_text("  ");
			print_step(&steps[i], done);
			mp_print_text("\n");
		}
	}
	mp_print_close_array();
	if (n > TEXT_STEPS)
		mp_print_text("  ... %u steps in all\n", n);
}

/* Run */

static int run_now(struct fault_ctx *c, const struct fault_target *t,
		   struct fault_step *steps, unsigned int n)
{
	int err;

	mp_print_start();
	print_head(c, t);
	err = fault_sched_run(c, t, steps, n, step_done);
	if (mp_json)
		print_steps(steps, n, true);
	mp_print_null(MP_PRINT_JSON, "pid", NULL);
	mp_print_end();
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

static int run_later(struct fault_ctx *c, const struct fault_target *t,
		     struct fault_step *steps, unsigned int n)
{
	pid_t pid;
	int err = 0;

	/* Said now, while someone reads: the schedule's process has no
	 * terminal to say it on. */
	if (steps[0].action == MPLANE_FAULT_LOSS)
		fault_loss_via(c, t, &err);
	if (err)
		return MP_EXIT_ERR;
	err = fault_sched_start(c, t, steps, n, &pid);
	if (err) {
		mp_err("starting the schedule: %s", strerror(-err));
		return MP_EXIT_ERR;
	}
	mp_print_start();
	print_head(c, t);
	print_steps(steps, n, false);
	mp_print_s64(MP_PRINT_ANY, "pid", "  in the background, pid %" PRId64
		     " ('fabric fault clear' stops it)\n", pid);
	mp_print_end();
	return MP_EXIT_OK;
}

static int run_clear(struct fault_ctx *c, const struct fault_line *l,
		     const struct fault_target *t)
{
	struct fault_step s = { .action = MPLANE_FAULT_CLEAR, .at_ns = mp_mono_ns() };
	unsigned int stopped;
	int err;

	/* What is still to come first: nothing may undo the clear. */
	stopped = fault_sched_stop(c->f.prefix, l->spec ? t->name : NULL);
	err = fault_apply(c, t, &s);
	mp_print_start();
	print_head(c, t);
	print_steps(&s, 1, true);
	mp_print_u64(MP_PRINT_ANY, "stopped", "  schedules stopped: %" PRIu64
		     "\n", stopped);
	mp_print_end();
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

static int run(struct fault_ctx *c, const struct fault_settings *set,
	       const struct mp_opt_result *res, const struct fault_line *l)
{
	struct fault_target t;
	struct fault_step *steps;
	unsigned int n;
	uint64_t t0;
	int rc;

	if (l->show)
		return fault_show(c);
	rc = l->spec || l->kind ?
	     fault_target_parse(&c->f, l->kind, l->spec, &t) :
	     fault_target_fabric(&c->f, &t);
	if (rc)
		return rc;
	if (l->action == MPLANE_FAULT_CLEAR && !mp_opt_given(&fault_cmd, res, "at")) {
		rc = run_clear(c, l, &t);
		fault_target_free(&t);
		return rc;
	}
	t0 = mp_opt_given(&fault_cmd, res, "at") ?
	     (set->start_ns ? set->start_ns : mp_mono_ns()) + set->at_ns :
	     mp_mono_ns();
	steps = make_steps(set, l->action, l->value, t0, &n);
	if (!steps) {
		rc = MP_EXIT_ERR;
		goto out;
	}
	rc = mp_opt_given(&fault_cmd, res, "at") ? run_later(c, &t, steps, n) :
						   run_now(c, &t, steps, n);
	free(steps);
out:
	fault_target_free(&t);
	return rc;
}

int fabric_fault_main(int argc, char **argv)
{
	struct fault_settings set = {
		.prefix = MP_FABRIC_DEF_PREFIX, .period_ns = NS_PER_SEC,
		.count = 1,
	};
	struct mp_opt_result res;
	struct fault_line l;
	struct fault_ctx c;
	int rc;

	rc = mp_opt_parse(&fault_cmd, argc, argv, &set, &res);
	if (rc != MP_OPT_RUN)
		return rc;
	rc = parse_line(argc - res.argi, argv + res.argi, &l);
	if (!rc && !l.show)
		rc = check_options(&set, &res, &l);
	if (rc)
		return rc;
	/* --prefix is the table's first option, and all that show takes. */
	if (l.show && (res.seen & ~1ULL))
		return mp_usage_err("show takes --prefix only");
	rc = fault_ctx_open(&c, set.prefix);
	if (rc)
		return rc;
	c.loss_via = set.via;
	c.tc_choice = -1;
	if (mp_opt_given(&fault_cmd, &res, "tc-hook")) {
		c.loss_via = FAULT_LOSS_BPF;
		c.tc_choice = set.tc_hook;
	}
	c.reroute = set.reroute;
	rc = run(&c, &set, &res, &l);
	fault_ctx_close(&c);
	return rc;
}
