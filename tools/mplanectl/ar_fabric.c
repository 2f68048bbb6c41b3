// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl bpf attach|detach|status|watch --fabric PREFIX: adaptive
 * routing on every switch of a fabric built by 'mplanectl fabric up'.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ar.h"
#include "mp_cmd.h"
#include "mp_names.h"
#include "mp_net.h"
#include "mp_netns.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_tc.h"
#include "mplane_maps.h"

const char *ar_policy_name(enum mplane_ar_policy p)
{
	const char *name = mp_name(&mp_ar_policy_names, p);

	return name ? name : "?";
}

int ar_policy_parse(const char *word)
{
	uint32_t v;

	return mp_name_parse(&mp_ar_policy_names, word, &v) ? -1 : (int)v;
}

void ar_settings_default(struct ar_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->policy = MPLANE_AR_AR;
	s->flowlet_gap_ns = 50 * 1000;
	s->kmin_bytes = 20 * 1024;
	s->kmax_bytes = 200 * 1024;
	s->pmax = 65536 / 5;
	s->aqm = MPLANE_AQM_RED;
	/* RFC 8033's PIE: 15 ms of target and of period, alpha 0.125 Hz
	 * and beta 1.25 Hz. */
	s->pi_target_ns = 15 * 1000 * 1000;
	s->pi_period_ns = 15 * 1000 * 1000;
	s->pi_alpha_mhz = 125;
	s->pi_beta_mhz = 1250;
	/* A bad word is said, and auto stays: attach works as it can. */
	mp_tc_env_choice(&s->tc_choice);
}

/* The switch nodes named in @names (all of them when @n is 0). */
static bool selected(const struct mp_fabric_node *node, int n, char **names)
{
	int i;

	if (node->role == MP_NODE_HOST)
		return false;
	if (!n)
		return true;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], node->name))
			return true;
	return false;
}

static int check_names(const struct mp_fabric *f, int n, char **names)
{
	const struct mp_fabric_node *node;
	int i;

	for (i = 0; i < n; i++) {
		node = mp_fabric_node(f, names[i]);
		if (!node || node->role == MP_NODE_HOST) {
			mp_usage_err("%s is not a switch of fabric %s (see 'mplanectl fabric show --prefix %s')",
				     names[i], f->prefix, f->prefix);
			return MP_EXIT_USAGE;
		}
	}
	return 0;
}

typedef int (*switch_fn)(const struct mp_fabric *f,
			 const struct mp_fabric_node *n, void *data);

/* Run @fn in the namespace of every selected switch, then come back. */
static int for_each_switch(const struct mp_fabric *f, int n, char **names,
			   switch_fn fn, void *data)
{
	int home, err = 0, ret;
	unsigned int i;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return -errno;
	for (i = 0; i < f->nnodes; i++) {
		if (!selected(&f->nodes[i], n, names))
			continue;
		ret = mp_netns_enter(f->nodes[i].netns);
		if (ret) {
			mp_err("%s: netns %s: %s", f->nodes[i].name,
			       f->nodes[i].netns, strerror(-ret));
		} else {
			ret = fn(f, &f->nodes[i], data);
		}
		if (ret && !err)
			err = ret;
		if (mp_netns_return(home)) {
			err = -errno;
			break;
		}
	}
	close(home);
	return err;
}

static int load_fabric(const char *prefix, struct mp_fabric *f)
{
	int err = mp_fabric_load(prefix, f);

	if (err == -ENOENT)
		mp_err("no fabric '%s' (build one with 'mplanectl fabric up --prefix %s')",
		       prefix, prefix);
	else if (err)
		mp_err("fabric %s: reading its state: %s", prefix,
		       strerror(-err));
	return err;
}

static int watch_pidfile(const char *prefix, char *buf, size_t size)
{
	int n = snprintf(buf, size, MP_FABRIC_RUN_DIR "/%s.watch.pid", prefix);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Stop the watcher of fabric @prefix, if one runs. */
static void stop_watcher(const char *prefix)
{
	char path[256];
	FILE *fp;
	int pid = 0;

	if (watch_pidfile(prefix, path, sizeof(path)))
		return;
	fp = fopen(path, "r");
	if (!fp)
		return;
	if (fscanf(fp, "%d", &pid) == 1 && pid > 1)
		kill(pid, SIGTERM);
	fclose(fp);
	unlink(path);
}

/*
 * Start the watcher in the background: a child that detaches from the
 * terminal's session and writes its pid file before the parent returns,
 * so that 'fabric down' and 'bpf detach' can always find it.
 */
static int start_watcher(const struct mp_fabric *f)
{
	char path[256];
	int status;
	pid_t pid;

	stop_watcher(f->prefix);
	if (watch_pidfile(f->prefix, path, sizeof(path)))
		return -ENAMETOOLONG;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		setsid();
		if (!freopen("/dev/null", "r", stdin) ||
		    !freopen("/dev/null", "w", stdout))
			_exit(1);
		_exit(ar_watch(f, path) ? 1 : 0);
	}
	/* The watcher writes its pid file once it listens. */
	for (int i = 0; i < 500; i++) {
		if (!access(path, F_OK))
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return -ECHILD;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* attach */

struct attach_args {
	struct ar_settings s;
	struct ar_route_stats total;
	unsigned int switches;
};

static int attach_one(const struct mp_fabric *f, const struct mp_fabric_node *n,
		      void *data)
{
	struct attach_args *a = data;
	struct ar_route_stats rs = {};
	int err;

	err = ar_switch_attach(f, n, &a->s, &rs);
	if (err)
		return err;
	a->switches++;
	a->total.routes += rs.routes;
	a->total.unresolved += rs.unresolved;
	return 0;
}

/* The command line's values, as people give them; turned into an
 * ar_settings by attach_settings(), whose defaults are the program's. */
struct attach_opts_set {
	const char *fabric;
	int policy;			/* index into policy_words */
	uint64_t flowlet_gap_us, kmin, kmax, pmax_pct;
	int aqm;			/* index into aqm_words */
	uint64_t pi_target_us, pi_period_us, pi_alpha_mhz, pi_beta_mhz;
	uint64_t sample_packets, sample_us, ring_bytes;
	int tc_hook;			/* enum mp_tc_choice */
	bool no_watch;
};

static const char *const policy_words[] = { "ecmp", "ar", "flowlet", NULL };
/* In enum mplane_aqm's order. */
static const char *const aqm_words[] = { "red", "pi", NULL };
_Static_assert(sizeof(aqm_words) / sizeof(aqm_words[0]) == __MPLANE_AQM_MAX + 1,
	       "a word for every enum mplane_aqm");

#define AT(member)	MP_OPT_AT(struct attach_opts_set, member)
static const struct mp_opt attach_opts[] = {
	{ "fabric", 'f', MP_OPT_STRING, AT(fabric), "PREFIX",
	  .help = "the fabric (required)" },
	{ "policy", 'p', MP_OPT_CHOICE, AT(policy), "POLICY",
	  "how a port is chosen", .choices = policy_words, .def = "ar" },
	{ "flowlet-gap", 'g', MP_OPT_UINT, AT(flowlet_gap_us), "US",
	  "idle gap, in us, that ends a flowlet",
	  .min = 1, .max = 1000000, .def = "50" },
	{ "kmin", 0, MP_OPT_UINT, AT(kmin), "BYTES",
	  "queue where marking starts", .max = 1 << 30, .def = "20480" },
	{ "kmax", 0, MP_OPT_UINT, AT(kmax), "BYTES",
	  "queue where every ECT packet is marked", .max = 1 << 30,
	  .def = "204800" },
	{ "pmax", 0, MP_OPT_UINT, AT(pmax_pct), "PERCENT",
	  "marking probability at kmax", .max = 100, .def = "20" },
	{ "aqm", 0, MP_OPT_CHOICE, AT(aqm), "AQM",
	  "how ports mark: red (--kmin/--kmax/--pmax) or pi (--pi-*)",
	  .choices = aqm_words, .def = "red" },
	{ "pi-target", 0, MP_OPT_UINT, AT(pi_target_us), "US",
	  "pi: the queue's delay to hold, in us of the port's rate",
	  .min = 1, .max = 1000000, .def = "15000" },
	{ "pi-period", 0, MP_OPT_UINT, AT(pi_period_us), "US",
	  "pi: how often the probability moves",
	  .min = 100, .max = 1000000, .def = "15000" },
	{ "pi-alpha", 0, MP_OPT_UINT, AT(pi_alpha_mhz), "MHZ",
	  "pi: integral gain, in thousandths of a hertz (RFC 8033's 0.125 Hz)",
	  .max = MP_PI_GAIN_MAX, .def = "125" },
	{ "pi-beta", 0, MP_OPT_UINT, AT(pi_beta_mhz), "MHZ",
	  "pi: proportional gain, in thousandths of a hertz (RFC 8033's 1.25 Hz)",
	  .max = MP_PI_GAIN_MAX, .def = "1250" },
	{ "sample-packets", 0, MP_OPT_UINT, AT(sample_packets), "N",
	  "a queue sample event every N packets per port (0: none)",
	  .max = 1 << 30, .def = "0" },
	{ "sample-us", 0, MP_OPT_UINT, AT(sample_us), "US",
	  "and at least one every US while a port sends (0: none)",
	  .max = 10000000, .def = "0" },
	{ "ring-bytes", 0, MP_OPT_UINT, AT(ring_bytes), "BYTES",
	  "events ring size, a power of 2",
	  .min = 4096, .max = 1 << 30, .def = "262144" },
	{ "no-watch", 0, MP_OPT_FLAG, AT(no_watch), NULL,
	  .help = "do not start the port watcher" },
	{ "tc-hook", 0, MP_OPT_CHOICE, AT(tc_hook), "HOOK",
	  .help = "where on the ports' tc: tcx (Linux 6.6 and later), cls_bpf, or auto, tcx where the kernel has it (the default, or MPLANE_TC_HOOK)",
	  .choices = mp_tc_choice_names },
	{}
};
#undef AT

static const struct mp_opt_cmd attach_cmd = {
	.usage = "bpf attach --fabric PREFIX [OPTIONS] [NODE...]",
	.about =
"Put adaptive routing (bpf/ar.bpf.c) on every port of every switch of the\n"
"fabric PREFIX (built by 'mplanectl fabric up'), or of the switches NODE\n"
"(p0l1, p1s0, ...).  On each switch, the next hops of the kernel's own\n"
"multipath routes are copied into the program, which then picks one per\n"
"packet by POLICY:\n"
"  ecmp      leave it to the kernel's multipath hash (the baseline)\n"
"  ar        per packet, the up port with the emptiest virtual queue\n"
"  flowlet   the same, but a flow keeps its port while its packets come\n"
"            less than --flowlet-gap apart\n"
"Every port also models its queue (q = max(0, q + len - rate * dt), with\n"
"the rate of the fabric's links) and marks ECN-capable packets CE with\n"
"a RED profile on it: none below --kmin, probability rising to --pmax at\n"
"--kmax, all above.  With --aqm pi, the probability is instead moved every\n"
"--pi-period by --pi-alpha times the queue's delay over --pi-target, plus\n"
"--pi-beta times its growth since the last period (RFC 8033's PIE), and no\n"
"packet is marked while the delay is under half the target: whatever the\n"
"number of flows the queue is held between half the target and the target\n"
"(DCQCN's senders keep it near the half), and the marks stop as soon as it\n"
"drains, where RED marks down to --kmin (Documentation/ar.md).\n"
"\n"
"A watcher runs in the background: it takes a port out of the choice as\n"
"soon as it goes down, and reads the routes again when routes or\n"
"neighbours change; 'bpf detach --fabric' and 'fabric down' stop it.\n"
"The programs go on the ports' tcx hooks where the kernel has it (Linux\n"
"6.6 and later), after other tools' programs, else as cls_bpf filters\n"
"(handle 0x4d41); --tc-hook chooses.  Attaching again replaces the\n"
"programs, moving them to the hook chosen, and keeps the counters.  Maps are\n"
"pinned under " MP_FABRIC_PIN_DIR "/PREFIX/NODE/.\n",
	.opts = attach_opts,
	.footer =
"Examples:\n"
"  mplanectl bpf attach --fabric mpf --policy ar\n"
"  mplanectl bpf attach --fabric mpf --policy flowlet --flowlet-gap 100\n"
"  mplanectl bpf attach --fabric mpf --kmin 10000 --kmax 60000 --pmax 50\n"
"  mplanectl bpf attach --fabric mpf --aqm pi --pi-target 5000\n",
};

/*
 * ar_settings_default(), with what the command line gave in the
 * program's units; then what only the values together say.
 */
static int attach_settings(const struct attach_opts_set *o,
			   const struct mp_opt_result *res,
			   struct ar_settings *s)
{
#define GIVEN(name)	mp_opt_given(&attach_cmd, res, name)
	if (!o->fabric)
		return mp_usage_err("--fabric PREFIX is required");
	ar_settings_default(s);
	if (GIVEN("policy"))
		s->policy = ar_policy_parse(policy_words[o->policy]);
	if (GIVEN("flowlet-gap"))
		s->flowlet_gap_ns = o->flowlet_gap_us * 1000;
	if (GIVEN("kmin"))
		s->kmin_bytes = o->kmin;
	if (GIVEN("kmax"))
		s->kmax_bytes = o->kmax;
	if (GIVEN("pmax"))
		s->pmax = o->pmax_pct * 65536 / 100;
	if (GIVEN("aqm"))
		s->aqm = o->aqm;
	if (GIVEN("pi-target"))
		s->pi_target_ns = o->pi_target_us * 1000;
	if (GIVEN("pi-period"))
		s->pi_period_ns = o->pi_period_us * 1000;
	if (GIVEN("pi-alpha"))
		s->pi_alpha_mhz = o->pi_alpha_mhz;
	if (GIVEN("pi-beta"))
		s->pi_beta_mhz = o->pi_beta_mhz;
	s->sample_every = o->sample_packets;
	s->sample_ns = o->sample_us * 1000;
	s->ring_bytes = o->ring_bytes;
	if (GIVEN("tc-hook"))
		s->tc_choice = o->tc_hook;
#undef GIVEN
	if (s->kmax_bytes < s->kmin_bytes)
		return mp_usage_err("--kmax (%u) must not be below --kmin (%u)",
				    s->kmax_bytes, s->kmin_bytes);
	if (s->ring_bytes & (s->ring_bytes - 1))
		return mp_usage_err("bad --ring-bytes '%u': want a power of 2",
				    s->ring_bytes);
	return MP_EXIT_OK;
}

int bpf_fabric_attach(int argc, char **argv)
{
	struct attach_opts_set o = {};
	struct attach_args a = {};
	struct mp_opt_result res;
	const char *prefix;
	struct mp_fabric f;
	bool watch;
	int err;

	err = mp_opt_parse(&attach_cmd, argc, argv, &o, &res);
	if (err != MP_OPT_RUN)
		return err;
	err = attach_settings(&o, &res, &a.s);
	if (err)
		return err;
	prefix = o.fabric;
	watch = !o.no_watch;
	if (load_fabric(prefix, &f))
		return MP_EXIT_ERR;
	err = check_names(&f, argc - optind, argv + optind);
	if (!err)
		err = for_each_switch(&f, argc - optind, argv + optind,
				      attach_one, &a);
	if (!err && watch) {
		err = start_watcher(&f);
		if (err)
			mp_err("starting the port watcher: %s", strerror(-err));
	}
	/* Text only: JSON says nothing of an attach that worked. */
	if (!err)
		mp_print_text("fabric %s: %s on %u switches, %u routes (%u with unresolved next hops left to the kernel)\n",
			      prefix, ar_policy_name(a.s.policy), a.switches,
			      a.total.routes, a.total.unresolved);
	mp_fabric_free(&f);
	return err ? (err == MP_EXIT_USAGE ? err : MP_EXIT_ERR) : MP_EXIT_OK;
}

/* detach */

static int detach_one(const struct mp_fabric *f, const struct mp_fabric_node *n,
		      void *data)
{
	(void)data;
	return ar_switch_detach(f, n);
}

struct fabric_only_set {
	const char *fabric;
};

/* --fabric PREFIX, the one option of detach, status and watch. */
static const struct mp_opt fabric_only_opts[] = {
	{ "fabric", 'f', MP_OPT_STRING, MP_OPT_AT(struct fabric_only_set, fabric),
	  "PREFIX", .help = "the fabric (required)" },
	{}
};

/* The fabric's name from the command line; MP_OPT_RUN or an exit status. */
static int parse_simple(const struct mp_opt_cmd *cmd, int argc, char **argv,
			const char **prefix)
{
	struct fabric_only_set set = {};
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(cmd, argc, argv, &set, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (!set.fabric)
		return mp_usage_err("--fabric PREFIX is required");
	*prefix = set.fabric;
	return MP_OPT_RUN;
}

/*
 * The start of detach and status: --fabric and --help, the fabric's
 * state, and NODE... checked.  MP_OPT_RUN with @f loaded; else the exit
 * status.
 */
static int open_fabric_cmd(const struct mp_opt_cmd *cmd, int argc,
			   char **argv, struct mp_fabric *f)
{
	const char *prefix = NULL;
	int err;

	err = parse_simple(cmd, argc, argv, &prefix);
	if (err != MP_OPT_RUN)
		return err;
	if (load_fabric(prefix, f))
		return MP_EXIT_ERR;
	err = check_names(f, argc - optind, argv + optind);
	if (err) {
		mp_fabric_free(f);
		return err;
	}
	return MP_OPT_RUN;
}

static const struct mp_opt_cmd detach_cmd = {
	.usage = "bpf detach --fabric PREFIX [NODE...]",
	.about =
"Take adaptive routing off every switch of fabric PREFIX (or off NODE...):\n"
"its tc filters, and only its own, its pins, and the port watcher.  The\n"
"kernel's multipath routes forward on their own again.\n",
	.opts = fabric_only_opts,
};

int bpf_fabric_detach(int argc, char **argv)
{
	const char *prefix = NULL;
	struct mp_fabric f;
	int err;

	err = open_fabric_cmd(&detach_cmd, argc, argv, &f);
	if (err != MP_OPT_RUN)
		return err;
	prefix = f.prefix;
	if (argc == optind)
		stop_watcher(prefix);
	err = for_each_switch(&f, argc - optind, argv + optind, detach_one,
			      NULL);
	mp_fabric_free(&f);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

/* status */

/* Every counter of struct mplane_port_stats, in its order; text has the
 * columns with a format, JSON all of them. */
static const struct port_stat {
	const char *key, *fmt;
} port_stats[] = {
	{ "tx_packets", " %10" PRIu64 }, { "tx_bytes", " %12" PRIu64 },
	{ "ect", NULL }, { "not_ect", NULL }, { "ce_marked", " %8" PRIu64 },
	{ "ce_seen", NULL }, { "ar_forwarded", " %8" PRIu64 },
	{ "path_switches", " %8" PRIu64 }, { "ttl_expired", NULL },
	{ "no_route", NULL }, { "down_skipped", NULL },
	{ "not_forwarded", NULL }, { "mtu_exceeded", NULL },
};

#define NR_PORT_STATS	(sizeof(port_stats) / sizeof(port_stats[0]))
/* Text has the queue after the bytes sent. */
#define QUEUE_COLUMN	2

_Static_assert(NR_PORT_STATS ==
	       sizeof(struct mplane_port_stats) / sizeof(__u64),
	       "a name for every counter of struct mplane_port_stats");

static void print_stats(const __u64 *v, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		mp_print_u64(port_stats[i].fmt ? MP_PRINT_ANY : MP_PRINT_JSON,
			     port_stats[i].key, port_stats[i].fmt, v[i]);
}

/* A hook's name, or null in JSON and "none" in text (by @fmt, if any). */
static void print_hook(const char *key, const char *fmt, enum mp_tc_hook hook)
{
	const char *name = mp_tc_hook_name(hook);

	mp_print_str(MP_PRINT_TEXT, NULL, fmt, name ? name : "none");
	if (name)
		mp_print_str(MP_PRINT_JSON, key, NULL, name);
	else
		mp_print_null(MP_PRINT_JSON, key, NULL);
}

/*
 * Where ar runs on the port: "tc_hook" is one hook's name everywhere, so
 * the two directions have a key each.  Attach puts both programs on one
 * hook, so text has one word for the two, unless something else moved one.
 */
static void print_hooks(const enum mp_tc_hook hook[2])
{
	bool same = hook[0] == hook[1];

	mp_print_text(" ");
	print_hook("ingress_tc_hook", same ? "%s" : "in:%s", hook[0]);
	mp_print_str(MP_PRINT_TEXT, NULL, "%s", same ? "" : ",");
	print_hook("egress_tc_hook", same ? NULL : "eg:%s", hook[1]);
}

/* One row of text: the node's name starts every row of its ports. */
static void print_port(const char *node, const char *ifname,
		       const struct ar_port_status *ps)
{
	const __u64 *v = (const __u64 *)&ps->stats;

	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_TEXT, NULL, "%-6s", node);
	mp_print_str(MP_PRINT_ANY, "port", " %-5s", ifname);
	mp_print_bool(MP_PRINT_JSON, "up", NULL, ps->cfg.up);
	mp_print_str(MP_PRINT_TEXT, NULL, " %-4s", ps->cfg.up ? "up" : "down");
	mp_print_u64(MP_PRINT_JSON, "rate_bps", NULL, ps->cfg.rate_bps);
	print_stats(v, 0, QUEUE_COLUMN);
	mp_print_u64(MP_PRINT_ANY, "queue_bytes", " %10" PRIu64,
		     ps->vq.q_bytes);
	mp_print_u64(MP_PRINT_ANY, "queue_hwm_bytes", " %10" PRIu64,
		     ps->vq.hwm_bytes);
	mp_print_u64(MP_PRINT_JSON, "dre_bytes", NULL, ps->vq.dre_bytes);
	mp_print_u64(MP_PRINT_JSON, "pi_mark_ppm", NULL,
		     ps->pi.prob * 1000000ULL / MP_PI_ONE);
	print_stats(v, QUEUE_COLUMN, NR_PORT_STATS);
	print_hooks(ps->hook);
	mp_print_text("\n");
	mp_print_close_object();
}

/* What the switch's program was attached with, in attach's units. */
static void print_settings(const struct ar_settings *s)
{
	mp_print_open_object("settings");
	mp_print_str(MP_PRINT_JSON, "policy", NULL, ar_policy_name(s->policy));
	mp_print_u64(MP_PRINT_JSON, "flowlet_gap_us", NULL,
		     s->flowlet_gap_ns / 1000);
	mp_print_str(MP_PRINT_JSON, "aqm", NULL,
		     s->aqm < __MPLANE_AQM_MAX ? aqm_words[s->aqm] : "?");
	mp_print_u64(MP_PRINT_JSON, "kmin_bytes", NULL, s->kmin_bytes);
	mp_print_u64(MP_PRINT_JSON, "kmax_bytes", NULL, s->kmax_bytes);
	mp_print_u64(MP_PRINT_JSON, "pmax_pct", NULL,
		     (s->pmax * 100ULL + 32768) / 65536);
	mp_print_u64(MP_PRINT_JSON, "pi_target_us", NULL,
		     s->pi_target_ns / 1000);
	mp_print_u64(MP_PRINT_JSON, "pi_period_us", NULL,
		     s->pi_period_ns / 1000);
	mp_print_u64(MP_PRINT_JSON, "pi_alpha_mhz", NULL, s->pi_alpha_mhz);
	mp_print_u64(MP_PRINT_JSON, "pi_beta_mhz", NULL, s->pi_beta_mhz);
	mp_print_close_object();
}

static int status_one(const struct mp_fabric *f, const struct mp_fabric_node *n,
		      void *data)
{
	struct ar_port_status ps;
	struct ar_settings s;
	unsigned int i;
	int ifindex;

	(void)data;
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_JSON, "node", NULL, n->name);
	mp_print_bool(MP_PRINT_JSON, "attached", NULL,
		      ar_switch_attached(f, n));
	if (!ar_switch_settings(f, n, &s))
		print_settings(&s);
	mp_print_open_array("ports");
	for (i = 0; i < n->nports; i++) {
		ifindex = if_nametoindex(n->ports[i].ifname);
		if (!ifindex || ar_port_status(f, n, ifindex, &ps))
			continue;
		print_port(n->name, n->ports[i].ifname, &ps);
	}
	mp_print_close_array();
	mp_print_close_object();
	return 0;
}

static const struct mp_opt_cmd status_cmd = {
	.usage = "bpf status --fabric PREFIX [NODE...]",
	.about =
"Show adaptive routing on the switches of fabric PREFIX: per port its\n"
"state, the packets and bytes sent, the virtual queue now and at its\n"
"highest, CE marks, packets forwarded by ar rather than the kernel, and\n"
"path switches, and the tc hook ar runs on (tcx or cls_bpf; two words,\n"
"in: and eg:, when ingress and egress differ).  With -j, every counter of\n"
"struct mplane_port_stats, \"ingress_tc_hook\" and \"egress_tc_hook\", and\n"
"\"pi_mark_ppm\", --aqm pi's marking probability in parts per million as\n"
"its last period left it (0 under red); per switch, \"settings\": what its\n"
"program was attached with, in attach's units (\"policy\", \"aqm\",\n"
"\"kmin_bytes\", \"pmax_pct\", \"pi_target_us\", ...).\n",
	.opts = fabric_only_opts,
};

int bpf_fabric_status(int argc, char **argv)
{
	struct mp_fabric f;
	int err;

	err = open_fabric_cmd(&status_cmd, argc, argv, &f);
	if (err != MP_OPT_RUN)
		return err;
	mp_print_start();
	mp_print_str(MP_PRINT_JSON, "fabric", NULL, f.prefix);
	mp_print_text("%-6s %-5s %-4s %10s %12s %10s %10s %8s %8s %8s %s\n",
		      "NODE", "PORT", "UP", "TX_PKTS", "TX_BYTES", "QUEUE",
		      "QUEUE_HWM", "CE_MARK", "AR_FWD", "SWITCHES", "TC_HOOK");
	mp_print_open_array("switches");
	err = for_each_switch(&f, argc - optind, argv + optind, status_one,
			      NULL);
	mp_print_close_array();
	mp_print_end();
	mp_fabric_free(&f);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

/* watch */

static const struct mp_opt_cmd watch_cmd = {
	.usage = "bpf watch --fabric PREFIX",
	.about =
"Keep the port state of adaptive routing current on every switch of\n"
"fabric PREFIX, in the foreground: a port that goes down (or loses its\n"
"carrier) is out of the choice from the next packet on, and back when it\n"
"is up again; each change is a port_state event.  'bpf attach --fabric'\n"
"starts one in the background; this command is for running it yourself\n"
"(with --no-watch at attach).\n",
	.opts = fabric_only_opts,
};

int bpf_fabric_watch(int argc, char **argv)
{
	const char *prefix = NULL;
	struct mp_fabric f;
	int err;

	err = parse_simple(&watch_cmd, argc, argv, &prefix);
	if (err != MP_OPT_RUN)
		return err;
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	if (load_fabric(prefix, &f))
		return MP_EXIT_ERR;
	err = ar_watch(&f, NULL);
	mp_fabric_free(&f);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
