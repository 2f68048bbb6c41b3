// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric up: check the size, plan the fabric, build it in
 * three steps over rtnetlink (fabric_netns.c, fabric_links.c,
 * fabric_config.c) and write its state file.  A failed build removes
 * what it made; a killed one is removed by 'fabric down'.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_out.h"
#include "mp_rtnl.h"
#include "mplanectl.h"
#include "fabric.h"

static void up_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] fabric up [OPTIONS]\n"
"\n"
"Build a fabric of network namespaces: HOSTS hosts with one rail per\n"
"plane, and per plane LEAVES leaves and SPINES spines that route (L3,\n"
"ECMP over all spines with an L4 hash).  Host H is on leaf H*LEAVES/HOSTS\n"
"in every plane (rail-optimised); every leaf links to every spine of its\n"
"plane.  Each end of every link has a tbf at RATE, so links are limited\n"
"both ways.  Neighbours are permanent: no ARP or ND is needed.\n"
"\n"
"Names (node: namespace PREFIX-node): hosts h<H> with rails r<P>; leaves\n"
"p<P>l<L> with ports h<H> and s<S>; spines p<P>s<S> with ports l<L>.\n"
"Host H's rail in plane P is 10.(100+P).H.2/24 and fd10:P:H::2/64; its\n"
"mplane address 10.99.H.1 (fd99::H:1) is routed to that rail by every\n"
"plane, for mp0 to own.  See Documentation/fabric.md.\n"
"\n"
"The build uses netlink only (no ip or tc processes): 64 hosts in 4\n"
"planes of 8 leaves and 8 spines (128 namespaces, 512 veth pairs) take\n"
"about a second.  The state file is " MP_FABRIC_RUN_DIR "/PREFIX.json.\n"
"\n"
"Options:\n"
"  -P, --planes N      planes, one rail per host each: 1 to %d (default 2)\n"
"  -H, --hosts N       hosts: 1 to %d (default 4)\n"
"  -L, --leaves N      leaves per plane: 1 to HOSTS (default 2)\n"
"  -S, --spines N      spines per plane: 1 to %d (default 2)\n"
"  -r, --rate RATE     rate of every link, in tc(8) units: bit, kbit, mbit,\n"
"                      gbit (bps, kbps... are bytes): 10kbit to 100gbit\n"
"                      (default 100mbit)\n"
"  -t, --topology FILE the sizes as JSON, with the keys of these options:\n"
"                      {\"planes\": 2, \"hosts\": 8, \"rate\": \"1gbit\"}; an\n"
"                      option given too takes precedence\n"
"  -p, --prefix NAME   the fabric's name, which starts the names of its\n"
"                      namespaces (default " MP_FABRIC_DEF_PREFIX "): letters, digits and '_',\n"
"                      at most 15 characters with '-' and the longest\n"
"                      node name\n"
"  -f, --force         remove fabric PREFIX first if it exists; without it,\n"
"                      an existing fabric is an error\n"
"  -q, --quiet         no progress line on stderr\n"
"  -h, --help          show this help\n"
"\n"
"Examples:\n"
"  mplanectl fabric up --planes 2 --leaves 2 --spines 2 --hosts 4 --rate 50mbit\n"
"  mplanectl fabric up --prefix big -P 4 -H 64 -L 8 -S 8 --rate 1gbit\n"
"  mplanectl fabric exec h0 -- ping -c1 10.101.3.2\n",
	       FABRIC_MAX_PLANES, FABRIC_MAX_HOSTS, FABRIC_MAX_SPINES);
}

static const struct option up_opts[] = {
	{ "planes",	required_argument,	NULL, 'P' },
	{ "hosts",	required_argument,	NULL, 'H' },
	{ "leaves",	required_argument,	NULL, 'L' },
	{ "spines",	required_argument,	NULL, 'S' },
	{ "rate",	required_argument,	NULL, 'r' },
	{ "topology",	required_argument,	NULL, 't' },
	FABRIC_PREFIX_OPTION,
	{ "force",	no_argument,		NULL, 'f' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "help",	no_argument,		NULL, 'h' },
	{}
};

/* The values as given, checked once all are known (leaves <= hosts). */
enum { ARG_PLANES, ARG_HOSTS, ARG_LEAVES, ARG_SPINES, ARG_RATE, ARG_PREFIX,
       NR_ARGS };

static const char *const arg_names[NR_ARGS] = {
	"planes", "hosts", "leaves", "spines", "rate", "prefix",
};

struct up_args {
	const char *val[NR_ARGS];
	char what[NR_ARGS][320];	/* "--planes", or the file's key */
	const char *topology;
	struct json_object *file;	/* holds the strings from the file */
	bool force;
	bool quiet;
};

static const char *const arg_defaults[NR_ARGS] = {
	"2", "4", "2", "2", "100mbit", MP_FABRIC_DEF_PREFIX,
};

static int file_value(struct up_args *a, const char *key,
		      struct json_object *v)
{
	int i;

	for (i = 0; i < NR_ARGS; i++)
		if (!strcmp(key, arg_names[i]))
			break;
	if (i == NR_ARGS)
		return mp_usage_err("%s: unknown key '%s': want planes, hosts, leaves, spines, rate or prefix",
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

static int check_args(struct up_args *a, struct mp_fabric *f)
{
	uint64_t rate = 0;
	int i, ret;

	for (i = 0; i < NR_ARGS; i++) {
		if (a->val[i])
			continue;
		a->val[i] = arg_defaults[i];
		snprintf(a->what[i], sizeof(a->what[i]), "--%s", arg_names[i]);
	}
	ret = check_count(a, ARG_PLANES, FABRIC_MAX_PLANES, &f->planes);
	if (!ret)
		ret = check_count(a, ARG_HOSTS, FABRIC_MAX_HOSTS, &f->hosts);
	if (!ret)
		ret = check_count(a, ARG_LEAVES, f->hosts, &f->leaves);
	if (!ret)
		ret = check_count(a, ARG_SPINES, FABRIC_MAX_SPINES, &f->spines);
	if (!ret)
		ret = fabric_rate_arg(a->what[ARG_RATE], a->val[ARG_RATE], &rate);
	f->rate_bps = rate;
	return ret ? ret : check_prefix(a, f);
}

static int parse_args(int argc, char **argv, struct up_args *a)
{
	static const char opt_arg[] = "PHLSr";
	const char *slot;
	int c;

	while ((c = mp_getopt(argc, argv, ":P:H:L:S:r:t:p:fqh",
			      up_opts)) != -1) {
		slot = c ? strchr(opt_arg, c) : NULL;
		if (slot) {
			a->val[slot - opt_arg] = optarg;
			snprintf(a->what[slot - opt_arg], sizeof(a->what[0]),
				 "--%s", arg_names[slot - opt_arg]);
			continue;
		}
		switch (c) {
		case 'p':
			a->val[ARG_PREFIX] = optarg;
			strcpy(a->what[ARG_PREFIX], "--prefix");
			break;
		case 't':
			a->topology = optarg;
			break;
		case 'f':
			a->force = true;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			up_help();
			return -1;
		default:
			return MP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	return a->topology ? read_topology(a) : MP_EXIT_OK;
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

static int build(struct mp_fabric *f, bool progress)
{
	struct fabric_build b = { .progress = progress, .home_fd = -1 };
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
	unsigned int i, ports = 0;
	struct json_object *o;
	char rate[32];

	for (i = 0; i < f->nnodes; i++)
		ports += f->nodes[i].nports;
	if (!mp_json) {
		printf("%s: %u namespaces, %u veth pairs at %s, up in %.2f s\n",
		       f->prefix, f->nnodes, ports / 2,
		       fabric_rate_str(f->rate_bps, rate, sizeof(rate)), secs);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "prefix", json_object_new_string(f->prefix));
	json_object_object_add(o, "netns", json_object_new_int(f->nnodes));
	json_object_object_add(o, "veth_pairs", json_object_new_int(ports / 2));
	json_object_object_add(o, "seconds", json_object_new_double(secs));
	mp_json_print(o);
}

int fabric_up_main(int argc, char **argv)
{
	struct mp_fabric f = {};
	struct fabric_removed rm;
	struct up_args a = {};
	double start = now();
	int ret, err;

	ret = parse_args(argc, argv, &a);
	if (!ret)
		ret = check_args(&a, &f);
	if (ret)
		goto out;
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
	err = fabric_plan(&f);
	if (err)
		mp_err("planning the fabric: %s", strerror(-err));
	else
		err = build(&f, !a.quiet);
	if (err) {
		/* Half a fabric is of no use: take it down again. */
		fabric_destroy(f.prefix, &rm);
		ret = MP_EXIT_ERR;
		goto out;
	}
	print_summary(&f, now() - start);
out:
	mp_fabric_free(&f);
	if (a.file)
		json_object_put(a.file);
	return ret < 0 ? MP_EXIT_OK : ret;
}
