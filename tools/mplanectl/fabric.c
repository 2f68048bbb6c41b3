// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric: the group of commands that build a multi-plane
 * leaf-spine in network namespaces, and what they share: the prefix and
 * rate arguments, and finding a fabric's namespaces by name.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_cmd.h"
#include "mp_netns.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "fabric.h"

static const struct mp_cmd fabric_cmds[] = {
	{ "up", fabric_up_main, "build a fabric of namespaces, veths and routes" },
	{ "down", fabric_down_main, "remove a fabric and whatever it left behind" },
	{ "show", fabric_show_main, "show a fabric's nodes, ports and addresses" },
	{ "exec", fabric_exec_main, "run a command in the namespace of a node" },
	{ "fault", fabric_fault_main, "break links: down, flap, degrade, loss; now or on a schedule" },
	{}
};

static const struct mp_group fabric_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] fabric COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Build a multi-plane, rail-optimised AI fabric out of network namespaces,\n"
"for tests and benchmarks.  Each host has one rail per plane; each plane\n"
"is a leaf-spine of routers with ECMP multipath routes; every link is\n"
"rate-limited in both directions.  Nodes are namespaces named\n"
"PREFIX-h<H> (hosts), PREFIX-p<P>l<L> (leaves) and PREFIX-p<P>s<S>\n"
"(spines); 'ip -n' and 'ip netns exec' work on them.  Host H's rail in\n"
"plane P is 10.(100+P).H.2 and fd10:P:H::2, and its mplane address\n"
"10.99.H.1 (fd99::H:1) is routed to it in every plane, owned by the mp0\n"
"over its rails that 'up' makes when mplane.ko is loaded.  Links can have\n"
"rates per role, plane or link, and netem's delay and loss.  The layout\n"
"is in Documentation/fabric.md.\n",
	.footer =
"Run 'mplanectl fabric COMMAND --help' for the options of a command.\n"
"\n"
"Examples:\n"
"  mplanectl fabric up --planes 2 --leaves 2 --spines 2 --hosts 4 --rate 50mbit\n"
"  mplanectl fabric exec h0 -- ping -c1 10.99.3.1\n"
"  mplanectl fabric fault p0l0:s1 flap --period 0.5 --count 3 --at 2\n"
"  mplanectl -j fabric show\n"
"  mplanectl fabric down\n",
	.cmds = fabric_cmds,
};

int fabric_main(int argc, char **argv)
{
	return mp_group_run(&fabric_group, argc - 1, argv + 1);
}

/*
 * No '-': fabric "a" must never take the namespaces of fabric "a-b", nor
 * '.', which separates the prefix in pid file names.
 */
int fabric_prefix_arg(const char *arg, char *prefix, size_t size)
{
	size_t len = strlen(arg), max = FABRIC_NAME_MAX - 3;
	const char *c;

	for (c = arg; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			break;
	/* The shortest node name is "h0": PREFIX-h0 fits IFNAMSIZ. */
	if (!len || *c || len > max || len >= size)
		return mp_usage_err("bad --prefix '%s': want 1 to %zu letters, digits or '_'",
				    arg, max);
	strcpy(prefix, arg);
	return MP_EXIT_OK;
}

int fabric_prefix_opt(const char *opt, const char *arg, void *field)
{
	(void)opt;
	return fabric_prefix_arg(arg, field, FABRIC_PREFIX_SIZE);
}

const struct mp_opt fabric_prefix_only_opts[] = {
	FABRIC_PREFIX_OPT(struct fabric_prefix_settings, prefix),
	{}
};

struct rate_unit {
	const char *name;
	double bps;
};

/* tc(8)'s units: bit per second, and bytes per second in "bps". */
static const struct rate_unit rate_units[] = {
	{ "", 1 }, { "bit", 1 },
	{ "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 }, { "tbit", 1e12 },
	{ "kibit", 1024.0 }, { "mibit", 1048576.0 },
	{ "gibit", 1073741824.0 }, { "tibit", 1099511627776.0 },
	{ "bps", 8 }, { "kbps", 8e3 }, { "mbps", 8e6 }, { "gbps", 8e9 },
	{ "tbps", 8e12 },
	{}
};

/* A decimal number, with a fraction or not, at the start of @arg. */
static bool decimal_at(const char *arg, double *v, char **end)
{
	size_t digits = strspn(arg, "0123456789.");

	if (!digits || !isdigit((unsigned char)arg[0]))
		return false;
	*v = strtod(arg, end);
	return *end == arg + digits;
}

int fabric_rate_arg(const char *opt, const char *arg, uint64_t *bps)
{
	const struct rate_unit *u;
	double v;
	char *end;

	if (decimal_at(arg, &v, &end)) {
		for (u = rate_units; u->name; u++) {
			if (strcasecmp(end, u->name))
				continue;
			v *= u->bps;
			if (v >= FABRIC_MIN_RATE && v <= FABRIC_MAX_RATE) {
				*bps = v + 0.5;
				return MP_EXIT_OK;
			}
			return mp_usage_err("bad %s '%s': want a rate from 10kbit to 100gbit",
					    opt, arg);
		}
	}
	return mp_usage_err("bad %s '%s': want a rate with a unit of tc(8), such as 100mbit (bit, kbit, mbit, gbit, tbit; kibit...; bps, kbps... are bytes)",
			    opt, arg);
}

char *fabric_rate_str(uint64_t bps, char *buf, size_t size)
{
	static const char *const units[] = { "bit", "kbit", "mbit", "gbit" };
	double v = bps;
	unsigned int i = 0;

	while (v >= 1000 && i < 3) {
		v /= 1000;
		i++;
	}
	snprintf(buf, size, "%.*f%s", v == (uint64_t)v ? 0 : 3, v, units[i]);
	return buf;
}

int fabric_time_arg(const char *opt, const char *arg, uint64_t min_us,
		    uint64_t max_us, uint64_t *us)
{
	char lo[24], hi[24];
	static const struct { const char *name; double us; } units[] = {
		{ "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, {}
	};
	char *end;
	double v;
	int i;

	if (decimal_at(arg, &v, &end)) {
		for (i = 0; units[i].name; i++) {
			if (strcmp(end, units[i].name))
				continue;
			v = v * units[i].us + 0.5;
			if (v < min_us || v > max_us)
				break;
			*us = v;
			return MP_EXIT_OK;
		}
	}
	return mp_usage_err("bad %s '%s': want a time from %s to %s with a unit, such as 1ms (us, ms, s)",
			    opt, arg, fabric_time_str(min_us, lo, sizeof(lo)),
			    fabric_time_str(max_us, hi, sizeof(hi)));
}

int fabric_loss_arg(const char *opt, const char *arg, double *pct)
{
	char *end;
	double v;

	if (decimal_at(arg, &v, &end) && !strcmp(end, "%") && v <= 100) {
		*pct = v;
		return MP_EXIT_OK;
	}
	return mp_usage_err("bad %s '%s': want a percentage from 0%% to 100%%, such as 1%% or 0.5%%",
			    opt, arg);
}

char *fabric_time_str(uint64_t us, char *buf, size_t size)
{
	if (us && us % 1000000 == 0)
		snprintf(buf, size, "%llus", (unsigned long long)us / 1000000);
	else if (us && us % 1000 == 0)
		snprintf(buf, size, "%llums", (unsigned long long)us / 1000);
	else
		snprintf(buf, size, "%lluus", (unsigned long long)us);
	return buf;
}

char *fabric_loss_str(double pct, char *buf, size_t size)
{
	snprintf(buf, size, "%g%%", pct);
	return buf;
}

static bool number_at(const char **s)
{
	if (!isdigit((unsigned char)**s))
		return false;
	while (isdigit((unsigned char)**s))
		(*s)++;
	return true;
}

bool fabric_node_name_ok(const char *name)
{
	const char *s = name + 1;

	if (name[0] == 'h')
		return number_at(&s) && !*s;
	if (name[0] != 'p' || !number_at(&s) || (*s != 'l' && *s != 's'))
		return false;
	s++;
	return number_at(&s) && !*s;
}

int fabric_scan_netns(const char *prefix,
		      void (*cb)(const char *netns, void *data), void *data)
{
	size_t len = strlen(prefix);
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir(MP_NETNS_RUN_DIR);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, prefix, len) || d->d_name[len] != '-' ||
		    !fabric_node_name_ok(d->d_name + len + 1))
			continue;
		if (cb)
			cb(d->d_name, data);
		n++;
	}
	closedir(dir);
	return n;
}

static unsigned int digits(unsigned int v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

unsigned int fabric_longest_node_name(unsigned int planes,
				      unsigned int leaves,
				      unsigned int spines, unsigned int hosts)
{
	unsigned int sw = leaves > spines ? leaves : spines;
	unsigned int h = 1 + digits(hosts - 1);
	unsigned int s = 2 + digits(planes - 1) + digits(sw - 1);

	return h > s ? h : s;
}

static bool has_netem(const struct mp_fabric_port *p)
{
	return p->delay_us || p->loss_pct > 0;
}

unsigned int fabric_count_ports(const struct mp_fabric *f, bool netem)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < f->nnodes; i++)
		for (j = 0; j < f->nodes[i].nports; j++)
			n += !netem || has_netem(&f->nodes[i].ports[j]);
	return n;
}

char *fabric_links_str(const struct mp_fabric *f, char *buf, size_t size)
{
	uint64_t lo = UINT64_MAX, hi = 0, bps;
	char slow[32], fast[32], netem[32] = "";
	unsigned int i, j, n = fabric_count_ports(f, true);

	for (i = 0; i < f->nnodes; i++) {
		for (j = 0; j < f->nodes[i].nports; j++) {
			bps = f->nodes[i].ports[j].rate_bps;
			lo = bps < lo ? bps : lo;
			hi = bps > hi ? bps : hi;
		}
	}
	if (lo > hi)
		lo = hi;
	if (n)
		snprintf(netem, sizeof(netem), ", netem on %u ports", n);
	snprintf(buf, size, "%u veth pairs at %s%s%s%s",
		 fabric_count_ports(f, false) / 2,
		 fabric_rate_str(lo, slow, sizeof(slow)), lo == hi ? "" : " to ",
		 lo == hi ? "" : fabric_rate_str(hi, fast, sizeof(fast)), netem);
	return buf;
}

char *fabric_mp0_str(const struct mp_fabric *f, char *buf, size_t size)
{
	if (f->mp0 && f->nnodes)
		snprintf(buf, size, "mp0 on %u hosts (%s)", f->hosts,
			 f->nodes[0].mp0_policy);
	else
		snprintf(buf, size, "no mp0 (%s)",
			 f->mp0_missing[0] ? f->mp0_missing : "not made");
	return buf;
}
