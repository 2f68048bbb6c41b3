// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric up: check the size, plan the fabric, build it in
 * three steps over rtnetlink (fabric_netns.c, fabric_links.c,
 * fabric_config.c) and write its state file.  A failed build removes
 * what it made; a killed one is removed by 'fabric down'.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_names.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_rtnl.h"
#include "mplanectl.h"
#include "fabric.h"

/*
 * The values given as words, from the command line or the file, checked
 * once all are known (leaves <= hosts; a link names a node of the plan).
 * A key of the file is the option's long name with '_' for '-'.
 */
enum {
	ARG_PLANES, ARG_HOSTS, ARG_LEAVES, ARG_SPINES, ARG_RATE,
	ARG_HOST_RATE, ARG_UPLINK_RATE, ARG_DELAY, ARG_LOSS, ARG_POLICY,
	ARG_PROBE, ARG_CC, ARG_BUFFER, ARG_PREFIX, NR_ARGS
};

static const char *const arg_names[NR_ARGS] = {
	"planes", "hosts", "leaves", "spines", "rate", "host_rate",
	"uplink_rate", "delay", "loss", "policy", "probe_interval", "cc",
	"buffer", "prefix",
};

/* NULL: none unless given (a rate of the role is the one of --rate). */
static const char *const arg_defaults[NR_ARGS] = {
	"2", "4", "2", "2", "100mbit", NULL, NULL, NULL, NULL, NULL, "100ms",
	"off", NULL,
	MP_FABRIC_DEF_PREFIX,
};

enum mp0_want { MP0_AUTO, MP0_ON, MP0_OFF };

/* How hosts without mp0 reach the others: by one rail, or by all. */
enum host_paths { HOST_RAIL, HOST_MULTIPATH, HOST_BOND };

static const char *const host_paths_opt[] = {
	[HOST_RAIL] = "--no-mp0",
	[HOST_MULTIPATH] = "--host-multipath",
	[HOST_BOND] = "--host-bond",
};

struct up_args {
	const char *val[NR_ARGS];
	char what[NR_ARGS][FABRIC_WHAT_MAX];	/* "--planes", or the key */
	bool given[NR_ARGS];		/* on the command line */
	const char *topology;
	struct json_object *file;	/* holds the strings from the file */
	struct fabric_spec spec;
	enum mp0_want mp0;
	enum host_paths host_paths;
	int policy;			/* enum mplane_policy, or -1 */
	bool force;
	bool quiet;
	/* As given: parse_args() turns them into mp0 and host_paths. */
	bool opt_mp0, opt_no_mp0, opt_multipath, opt_bond;
};

/*
 * The options: the values are words (a->val[ARG_*]), checked with the
 * file's once all are known, so every entry is a string; the ranges are
 * in the help, which the checks' limits must match.
 */
_Static_assert(FABRIC_MAX_PLANES == 16 && FABRIC_MAX_HOSTS == 250 &&
	       FABRIC_MAX_SPINES == 128, "up_opts' help names the limits");
_Static_assert(MPLANE_POLICY_FLOWLET == 0 && MPLANE_POLICY_SPRAY == 3,
	       "up_opts' help names the policies");

#define AT(member)	MP_OPT_AT(struct up_args, member)
#define VAL(slot)	AT(val[slot])
static const struct mp_opt up_opts[] = {
	{ "planes", 'P', MP_OPT_STRING, VAL(ARG_PLANES), "N",
	  "planes, one rail per host each: 1 to 16", .def = "2" },
	{ "hosts", 'H', MP_OPT_STRING, VAL(ARG_HOSTS), "N",
	  "hosts: 1 to 250", .def = "4" },
	{ "leaves", 'L', MP_OPT_STRING, VAL(ARG_LEAVES), "N",
	  "leaves per plane: 1 to HOSTS", .def = "2" },
	{ "spines", 'S', MP_OPT_STRING, VAL(ARG_SPINES), "N",
	  "spines per plane: 1 to 128", .def = "2" },
	{ "rate", 'r', MP_OPT_STRING, VAL(ARG_RATE), "RATE",
	  "rate of every link, in tc(8) units: bit, kbit, mbit, gbit (bps, kbps... are bytes): 10kbit to 100gbit",
	  .def = "100mbit" },
	{ "host-rate", 0, MP_OPT_STRING, VAL(ARG_HOST_RATE), "RATE",
	  "rate of the host-leaf links", .def = "RATE" },
	{ "uplink-rate", 0, MP_OPT_STRING, VAL(ARG_UPLINK_RATE), "RATE",
	  "rate of the leaf-spine links: a leaf of N hosts and S spines is oversubscribed by N*HOST_RATE / (S*UPLINK_RATE)",
	  .def = "RATE" },
	{ "delay", 0, MP_OPT_STRING, VAL(ARG_DELAY), "TIME",
	  .help = "netem delay on every link end (us, ms, s: 0 to 1s), so one way over a link; h0 to a host of another leaf is 4 links, its ping RTT 8 times TIME" },
	{ "loss", 0, MP_OPT_STRING, VAL(ARG_LOSS), "PCT",
	  .help = "netem random loss on every link end, 0% to 100%" },
	{ "buffer", 0, MP_OPT_STRING, VAL(ARG_BUFFER), "TIME",
	  "every port's queue (tbf's limit), as time at its rate on top of its burst: 1ms to 1s (100mbit: 262500 bytes at 20ms); ar's ECN marking and its model of the queue take the same limit",
	  .def = "20ms" },
	{ "policy", 0, MP_OPT_STRING, VAL(ARG_POLICY), "P",
	  "mp0's policy: flowlet, hash, rr or spray",
	  .def = "the module's, flowlet" },
	{ "probe-interval", 0, MP_OPT_STRING, VAL(ARG_PROBE), "TIME|off",
	  "mp0's liveness probes to every other host (at most 64), from 50us to 1s (3 misses fail a plane for that host); off sets no peers",
	  .def = "100ms" },
	{ "cc", 0, MP_OPT_STRING, VAL(ARG_CC), "CC",
	  "mp0's congestion control: off, dcqcn or notify; dcqcn also puts an fq qdisc under each host rail's tbf, which paces mp0's QPs, and 1us of netem on every switch port without a delay, so that a packet a switch holds no longer counts against its sender's socket; it fails at once on a kernel without fq (sch_fq) or netem (sch_netem); notify only sends and weighs CNPs (mplanectl link set --help), and needs neither",
	  .def = "off" },
	{ "mp0", 0, MP_OPT_FLAG, AT(opt_mp0), NULL,
	  .help = "require mp0: fail when mplane.ko is not loaded" },
	{ "no-mp0", 0, MP_OPT_FLAG, AT(opt_no_mp0), NULL,
	  .help = "no mp0 even when mplane.ko is loaded" },
	{ "host-multipath", 0, MP_OPT_FLAG, AT(opt_multipath), NULL,
	  .help = "no mp0: each host owns its mplane addresses on lo and reaches the others' over all its rails, one multipath route hashed by L4 ports, that leaves a rail whose link is down: the kernel's ECMP over a host's NICs, the baseline mp0 is measured against" },
	{ "host-bond", 0, MP_OPT_FLAG, AT(opt_bond), NULL,
	  .help = "no mp0: each host bonds its rails as bond0 (mode balance-xor, xmit_hash_policy layer3+4, miimon 100), which owns its mplane addresses: the static LAG over a host's NICs, the other baseline; a host's rails, and the leaf ports facing them, have plane 0's MACs in every plane, as if the leaves were one (MLAG); needs the bonding driver (modprobe bonding)" },
	{ "topology", 't', MP_OPT_STRING, AT(topology), "FILE",
	  .help = "the fabric as JSON, with the keys of these options (host_rate, uplink_rate, probe_interval) and plane_rates and links for asymmetric fabrics: {\"planes\": 2, \"rate\": \"1gbit\", \"plane_rates\": {\"1\": \"500mbit\"}, \"links\": [{\"node\": \"p0l0\", \"port\": \"s1\", \"rate\": \"200mbit\", \"delay\": \"1ms\"}]}; an option given too takes precedence over its key" },
	{ "prefix", 'p', MP_OPT_STRING, VAL(ARG_PREFIX), "NAME",
	  "the fabric's name, which starts the names of its namespaces: letters, digits and '_', at most 15 characters with '-' and the longest node name",
	  .def = MP_FABRIC_DEF_PREFIX },
	{ "force", 'f', MP_OPT_FLAG, AT(force), NULL,
	  .help = "remove fabric PREFIX first if it exists; without it, an existing fabric is an error" },
	{ "quiet", 'q', MP_OPT_FLAG, AT(quiet), NULL,
	  .help = "no progress line on stderr" },
	{}
};
#undef VAL
#undef AT

static const struct mp_opt_cmd up_cmd = {
	.usage = "fabric up [OPTIONS]",
	.about =
"Build a fabric of network namespaces: HOSTS hosts with one rail per\n"
"plane, and per plane LEAVES leaves and SPINES spines that route (L3,\n"
"ECMP over all spines with an L4 hash).  Host H is on leaf H*LEAVES/HOSTS\n"
"in every plane (rail-optimised); every leaf links to every spine of its\n"
"plane.  Each end of every link has a tbf at its rate, so links are\n"
"limited both ways; a delay or loss adds netem.  Neighbours are\n"
"permanent: no ARP or ND is needed.\n"
"\n"
"Names (node: namespace PREFIX-node): hosts h<H> with rails r<P>; leaves\n"
"p<P>l<L> with ports h<H> and s<S>; spines p<P>s<S> with ports l<L>.\n"
"Host H's rail in plane P is 10.(100+P).H.2/24 and fd10:P:H::2/64.\n"
"\n"
"When mplane.ko is loaded, each host also gets mp0 over its rails, with\n"
"its mplane address 10.99.H.1/32 and fd99::H:1/128, and routes to every\n"
"other host's (10.99.0.0/16, fd99::/64) via mp0 and through each rail\n"
"for mp0 to send on; mp0 probes every other host.  Without the module,\n"
"hosts have their rails only, and a line says so.\n"
"\n"
"The build uses netlink only (no ip or tc processes): 64 hosts in 4\n"
"planes of 8 leaves and 8 spines (128 namespaces, 512 veth pairs) take\n"
"about a second.  The state file is " MP_FABRIC_RUN_DIR "/PREFIX.json.\n",
	.opts = up_opts,
	.footer =
"A link end takes the most specific rate, delay, loss and buffer given: its own\n"
"(links), its plane's (plane_rates), its role's (--host-rate,\n"
"--uplink-rate), every link's (--rate, --delay, --loss, --buffer).\n"
"\n"
"Examples:\n"
"  mplanectl fabric up --planes 2 --leaves 2 --spines 2 --hosts 4 --rate 50mbit\n"
"  mplanectl fabric up --host-rate 100mbit --uplink-rate 50mbit --policy hash\n"
"  mplanectl fabric up --hosts 5 --uplink-rate 50mbit --cc dcqcn\n"
"  mplanectl fabric up --prefix big -P 4 -H 64 -L 8 -S 8 --rate 1gbit --no-mp0\n"
"  mplanectl fabric up --topology lab.json --delay 1ms --loss 0.1%\n"
"  mplanectl fabric exec h0 -- ping -c1 10.99.3.1\n",
};

/* "--host-rate": the value of @slot is named by its option. */
static void opt_name(struct up_args *a, int slot)
{
	char *c;

	snprintf(a->what[slot], sizeof(a->what[0]), "--%s", arg_names[slot]);
	for (c = a->what[slot]; *c; c++)
		if (*c == '_')
			*c = '-';
}

/* The structured keys of the file, which no option sets. */
static int file_struct(struct up_args *a, const char *key,
		       struct json_object *v)
{
	if (!strcmp(key, "plane_rates"))
		return fabric_spec_plane_rates(&a->spec, v, a->topology);
	return fabric_spec_links(&a->spec, v, a->topology);
}

static int file_value(struct up_args *a, const char *key,
		      struct json_object *v)
{
	int i;

	if (!strcmp(key, "plane_rates") || !strcmp(key, "links"))
		return file_struct(a, key, v);
	for (i = 0; i < NR_ARGS; i++)
		if (!strcmp(key, arg_names[i]))
			break;
	if (i == NR_ARGS)
		return mp_usage_err("%s: unknown key '%s': want planes, hosts, leaves, spines, rate, host_rate, uplink_rate, delay, loss, plane_rates, links, policy, probe_interval, cc or prefix",
				    a->topology, key);
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_string))
		return mp_usage_err("%s: '%s' must be a number or a string",
				    a->topology, key);
	/* The command line wins over the file. */
	if (a->val[i])
		return MP_EXIT_OK;
	a->val[i] = json_object_get_string(v);
	snprintf(a->what[i], sizeof(a->what[i]), "%s in %s", key, a->topology);
	return MP_EXIT_OK;
}

static int read_topology(struct up_args *a)
{
	struct json_object_iterator it, end;
	int ret;

	a->file = json_object_from_file(a->topology);
	if (!a->file || !json_object_is_type(a->file, json_type_object))
		return mp_usage_err("bad --topology '%s': %s", a->topology,
				    a->file || !json_util_get_last_err() ?
				    "want a JSON object" :
				    json_util_get_last_err());
	it = json_object_iter_begin(a->file);
	end = json_object_iter_end(a->file);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		ret = file_value(a, json_object_iter_peek_name(&it),
				 json_object_iter_peek_value(&it));
		if (ret)
			return ret;
	}
	return MP_EXIT_OK;
}

static int check_count(struct up_args *a, int arg, uint64_t max,
		       unsigned int *val)
{
	uint64_t v;
	int ret;

	ret = mp_arg_u64(a->what[arg], a->val[arg], 1, max, &v);
	*val = v;
	return ret;
}

/* The prefix must leave room for the longest node name in IFNAMSIZ. */
static int check_prefix(struct up_args *a, struct mp_fabric *f)
{
	unsigned int longest = fabric_longest_node_name(f->planes, f->leaves,
							f->spines, f->hosts);
	unsigned int max = FABRIC_NAME_MAX - 1 - longest;

	if (fabric_prefix_arg(a->val[ARG_PREFIX], f->prefix,
			      sizeof(f->prefix)))
		return MP_EXIT_USAGE;
	if (strlen(f->prefix) > max)
		return mp_usage_err("bad %s '%s': want 1 to %u characters for this fabric, whose namespace names (PREFIX-node) must fit %d",
				    a->what[ARG_PREFIX], f->prefix, max,
				    FABRIC_NAME_MAX);
	return MP_EXIT_OK;
}

/* A rate that is optional: 0 when not given. */
static int check_rate(struct up_args *a, int arg, uint64_t *bps)
{
	*bps = 0;
	return a->val[arg] ? fabric_rate_arg(a->what[arg], a->val[arg], bps) :
			     MP_EXIT_OK;
}

static int check_shape(struct up_args *a)
{
	struct fabric_spec *s = &a->spec;
	uint64_t us;
	int ret;

	ret = fabric_rate_arg(a->what[ARG_RATE], a->val[ARG_RATE],
			      &s->rate_bps);
	if (!ret)
		ret = check_rate(a, ARG_HOST_RATE, &s->role.host_bps);
	if (!ret)
		ret = check_rate(a, ARG_UPLINK_RATE, &s->role.uplink_bps);
	if (!ret && a->val[ARG_DELAY]) {
		ret = fabric_time_arg(a->what[ARG_DELAY], a->val[ARG_DELAY], 0,
				      FABRIC_MAX_DELAY_US, &us);
		s->delay_us = us;
	}
	if (!ret && a->val[ARG_LOSS])
		ret = fabric_loss_arg(a->what[ARG_LOSS], a->val[ARG_LOSS],
				      &s->loss_pct);
	if (!ret && a->val[ARG_BUFFER]) {
		ret = fabric_time_arg(a->what[ARG_BUFFER], a->val[ARG_BUFFER],
				      FABRIC_MIN_BUFFER_US,
				      FABRIC_MAX_BUFFER_US, &us);
		s->buffer_us = us;
	}
	return ret;
}

static int check_mp0(struct up_args *a, struct mp_fabric *f)
{
	char names[64];
	uint32_t policy;
	uint64_t us = 0;
	int i;

	for (i = ARG_POLICY; i <= ARG_CC && a->mp0 == MP0_OFF; i++)
		if (a->given[i] &&
		    (i != ARG_CC || strcmp(a->val[ARG_CC], "off")))
			return mp_usage_err("--%s is for mp0: not with %s",
					    i == ARG_POLICY ? "policy" :
					    i == ARG_CC ? "cc" :
					    "probe-interval",
					    host_paths_opt[a->host_paths]);
	if (mp_name_parse(&mp_cc_names, a->val[ARG_CC], &policy))
		return mp_usage_err("bad %s '%s': want %s", a->what[ARG_CC],
				    a->val[ARG_CC],
				    mp_names_join(&mp_cc_names, "|", names,
						  sizeof(names)));
	f->cc = policy;
	a->policy = -1;
	if (a->val[ARG_POLICY]) {
		if (mp_name_parse(&mp_policy_names, a->val[ARG_POLICY], &policy))
			return mp_usage_err("bad %s '%s': want %s",
					    a->what[ARG_POLICY],
					    a->val[ARG_POLICY],
					    mp_names_join(&mp_policy_names,
							  "|", names,
							  sizeof(names)));
		a->policy = policy;
	}
	if (strcmp(a->val[ARG_PROBE], "off") && strcmp(a->val[ARG_PROBE], "0") &&
	    fabric_time_arg(a->what[ARG_PROBE], a->val[ARG_PROBE],
			    MPLANE_PROBE_INTERVAL_US_MIN,
			    MPLANE_PROBE_INTERVAL_US_MAX, &us))
		return MP_EXIT_USAGE;
	f->probe_interval_us = us;
	/* Before the plan: a bond's ports have one MAC in every plane. */
	f->host_multipath = a->host_paths == HOST_MULTIPATH;
	f->host_bond = a->host_paths == HOST_BOND;
	return MP_EXIT_OK;
}

static int check_args(struct up_args *a, struct mp_fabric *f)
{
	int i, ret;

	for (i = 0; i < NR_ARGS; i++) {
		if (a->val[i] || !arg_defaults[i])
			continue;
		a->val[i] = arg_defaults[i];
		opt_name(a, i);
	}
	ret = check_count(a, ARG_PLANES, FABRIC_MAX_PLANES, &f->planes);
	if (!ret)
		ret = check_count(a, ARG_HOSTS, FABRIC_MAX_HOSTS, &f->hosts);
	if (!ret)
		ret = check_count(a, ARG_LEAVES, f->hosts, &f->leaves);
	if (!ret)
		ret = check_count(a, ARG_SPINES, FABRIC_MAX_SPINES, &f->spines);
	if (!ret)
		ret = check_shape(a);
	if (!ret)
		ret = check_mp0(a, f);
	return ret ? ret : check_prefix(a, f);
}

/* Which entry of up_opts sets slot @slot, or -1. */
static int opt_of_slot(int slot)
{
	size_t off = offsetof(struct up_args, val) + slot * sizeof(char *);
	int i;

	for (i = 0; up_opts[i].name; i++)
		if (up_opts[i].kind == MP_OPT_STRING && up_opts[i].offset == off)
			return i;
	return -1;
}

/* The command line: MP_OPT_RUN, or the status to exit with. */
static int parse_args(int argc, char **argv, struct up_args *a)
{
	struct mp_opt_result res;
	int ret, slot, i;

	ret = mp_opt_parse(&up_cmd, argc, argv, a, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	for (slot = 0; slot < NR_ARGS; slot++) {
		i = opt_of_slot(slot);
		if (i >= 0 && (res.seen & (1ULL << i))) {
			a->given[slot] = true;
			opt_name(a, slot);
		}
	}
	if (a->opt_mp0 && a->opt_no_mp0)
		return mp_usage_err("--mp0 and --no-mp0: give one of them");
	if (a->opt_multipath && a->opt_bond)
		return mp_usage_err("--host-multipath and --host-bond: give one of them");
	a->mp0 = a->opt_mp0 ? MP0_ON : a->opt_no_mp0 ? MP0_OFF : MP0_AUTO;
	a->host_paths = a->opt_bond ? HOST_BOND :
			a->opt_multipath ? HOST_MULTIPATH : HOST_RAIL;
	if (a->host_paths != HOST_RAIL && a->mp0 == MP0_ON)
		return mp_usage_err("%s is for hosts without mp0: not with --mp0",
				    host_paths_opt[a->host_paths]);
	if (a->host_paths != HOST_RAIL)
		a->mp0 = MP0_OFF;
	ret = a->topology ? read_topology(a) : MP_EXIT_OK;
	return ret ? ret : MP_OPT_RUN;
}

/*
 * mp0 when the module is there, unless --no-mp0; --mp0 makes a missing
 * module an error.  Recorded in @f either way, with the reason.
 */
static int decide_mp0(const struct up_args *a, struct mp_fabric *f)
{
	bool have = fabric_mp0_available();

	f->mp0 = a->mp0 != MP0_OFF && have;
	if (a->mp0 == MP0_OFF)
		snprintf(f->mp0_missing, sizeof(f->mp0_missing), "%s",
			 host_paths_opt[a->host_paths]);
	else if (!have)
		snprintf(f->mp0_missing, sizeof(f->mp0_missing),
			 "mplane.ko is not loaded");
	if (!f->mp0)
		f->probe_interval_us = 0;
	if (a->mp0 == MP0_ON && !have) {
		mp_err("--mp0: mplane.ko is not loaded (insmod it first, or leave --mp0 out for hosts without mp0)");
		return MP_EXIT_ERR;
	}
	/* Congestion control is mp0's: asked for, it is as --mp0. */
	if (f->cc != MPLANE_CC_OFF && !have) {
		mp_err("--cc %s: mplane.ko is not loaded, and congestion control is mp0's (insmod it first, or leave --cc out)",
		       mp_name(&mp_cc_names, f->cc));
		return MP_EXIT_ERR;
	}
	if (!f->mp0)
		f->cc = MPLANE_CC_OFF;
	if (f->host_bond && !fabric_bond_available()) {
		mp_err("--host-bond: the bonding driver is not loaded (modprobe bonding first)");
		return MP_EXIT_ERR;
	}
	if (a->mp0 == MP0_AUTO && !have && !a->quiet)
		fprintf(stderr, "fabric up: no mp0 on the hosts: mplane.ko is not loaded (--no-mp0 to build without it, quietly)\n");
	return MP_EXIT_OK;
}

/* Without --force, a fabric of that name, or what is left of it, stops us. */
static int check_free(const char *prefix, bool force)
{
	struct fabric_removed rm;
	bool state;
	char path[256];
	int n;

	mp_fabric_state_path(prefix, path, sizeof(path));
	n = fabric_scan_netns(prefix, NULL, NULL);
	state = !access(path, F_OK);
	if (n <= 0 && !state)
		return MP_EXIT_OK;
	if (!force) {
		mp_err("fabric %s exists (%d namespaces%s%s): remove it with 'mplanectl fabric down --prefix %s', or use --force",
		       prefix, n > 0 ? n : 0, state ? ", state file " : "",
		       state ? path : "", prefix);
		return MP_EXIT_ERR;
	}
	return fabric_destroy(prefix, &rm) ? MP_EXIT_ERR : MP_EXIT_OK;
}

static int mkdir_p(const char *path)
{
	char buf[256], *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* Two descriptors per node (namespace and socket): big fabrics need more
 * than the usual soft limit of 1024. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

void fabric_progress(const struct fabric_build *b, const char *what,
		     unsigned int i, unsigned int n)
{
	static const char *last_what;
	static unsigned int last_i;
	static int tty = -1;

	if (!b->progress || (what == last_what && i == last_i))
		return;
	last_what = what;
	last_i = i;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	/* A terminal sees the count move; a log gets one line per step. */
	if (tty)
		fprintf(stderr, "\rfabric up: %s %u/%u%s", what, i, n,
			i == n ? "\n" : "");
	else if (i == n)
		fprintf(stderr, "fabric up: %s %u/%u\n", what, i, n);
}

static int build_alloc(struct fabric_build *b, struct mp_fabric *f)
{
	unsigned int i;

	b->f = f;
	b->home_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	b->nsfd = malloc(f->nnodes * sizeof(*b->nsfd));
	b->rtnl = calloc(f->nnodes, sizeof(*b->rtnl));
	if (b->home_fd < 0 || !b->nsfd || !b->rtnl)
		return -ENOMEM;
	for (i = 0; i < f->nnodes; i++)
		b->nsfd[i] = -1;
	return 0;
}

static void build_free(struct fabric_build *b)
{
	unsigned int i;

	for (i = 0; b->nsfd && i < b->f->nnodes; i++) {
		if (b->nsfd[i] >= 0)
			close(b->nsfd[i]);
		mp_rtnl_close(&b->rtnl[i]);
	}
	free(b->nsfd);
	free(b->rtnl);
	if (b->home_fd >= 0)
		close(b->home_fd);
}

static int build(struct mp_fabric *f, const struct up_args *a)
{
	struct fabric_build b = {
		.progress = !a->quiet,
		.home_fd = -1,
		.mp0_policy = a->policy,
	};
	int err;

	err = build_alloc(&b, f);
	if (err)
		mp_err("%s", strerror(-err));
	if (!err)
		err = fabric_build_netns(&b);
	if (!err)
		err = fabric_build_links(&b);
	if (!err)
		err = fabric_build_config(&b);
	if (!err && f->mp0)
		err = fabric_build_mp0(&b);
	if (!err && f->host_bond)
		err = fabric_build_bond(&b);
	if (!err) {
		err = fabric_state_write(f);
		if (err)
			mp_err(MP_FABRIC_RUN_DIR "/%s.json: %s", f->prefix,
			       strerror(-err));
	}
	build_free(&b);
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_summary(const struct mp_fabric *f, double secs)
{
	char links[128], mp0[80];

	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "prefix", "%s: ", f->prefix);
	mp_print_u64(MP_PRINT_ANY, "netns_count", "%" PRIu64 " namespaces, ",
		     f->nnodes);
	mp_print_u64(MP_PRINT_JSON, "veth_pairs", NULL,
		     fabric_count_ports(f, false) / 2);
	mp_print_u64(MP_PRINT_JSON, "netem_ports", NULL,
		     fabric_count_ports(f, true));
	mp_print_str(MP_PRINT_TEXT, NULL, "%s, ",
		     fabric_links_str(f, links, sizeof(links)));
	/* Text says what mp0 is, or why there is none. */
	mp_print_bool(MP_PRINT_JSON, "mp0", NULL, f->mp0);
	mp_print_str(MP_PRINT_TEXT, NULL, "%s, ",
		     fabric_mp0_str(f, mp0, sizeof(mp0)));
	mp_print_double(MP_PRINT_ANY, "duration_s", "up in %.2f s\n", secs);
	mp_print_end();
}

int fabric_up_main(int argc, char **argv)
{
	struct mp_fabric f = {};
	struct fabric_removed rm;
	struct up_args a = {};
	double start = now();
	int ret, err;

	fabric_spec_init(&a.spec);
	ret = parse_args(argc, argv, &a);
	if (ret != MP_OPT_RUN)
		goto out;
	ret = check_args(&a, &f);
	if (ret)
		goto out;
	/* The plan first: a link of the file may name a node it lacks. */
	err = fabric_plan(&f);
	if (err) {
		mp_err("planning the fabric: %s", strerror(-err));
		ret = MP_EXIT_ERR;
		goto out;
	}
	ret = fabric_shape(&f, &a.spec);
	if (!ret)
		ret = decide_mp0(&a, &f);
	if (!ret)
		ret = check_free(f.prefix, a.force);
	if (ret)
		goto out;
	err = mkdir_p(MP_FABRIC_RUN_DIR);
	if (err) {
		mp_err(MP_FABRIC_RUN_DIR ": %s", strerror(-err));
		ret = MP_EXIT_ERR;
		goto out;
	}
	raise_nofile();
	if (build(&f, &a)) {
		/* Half a fabric is of no use: take it down again. */
		fabric_destroy(f.prefix, &rm);
		ret = MP_EXIT_ERR;
		goto out;
	}
	print_summary(&f, now() - start);
out:
	mp_fabric_free(&f);
	fabric_spec_free(&a.spec);
	if (a.file)
		json_object_put(a.file);
	return ret;
}
