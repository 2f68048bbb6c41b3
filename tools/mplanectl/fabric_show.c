// SPDX-License-Identifier: GPL-2.0
/* mplanectl fabric show: a fabric's state file, for people or as JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "mp_cmd.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "fabric.h"
#include "mp_opt.h"

static const struct mp_opt_cmd show_cmd = {
	.usage = "fabric show [--prefix NAME]",
	.about =
"Show fabric NAME as 'fabric up' built it: a summary, then one line per\n"
"node with its role, plane, namespace and ports (PORT>PEER.PEER_PORT and\n"
"the port's IPv4 address; a host's mp0 and its address last).  With the\n"
"global -j, the state file itself: prefix, planes, leaves, spines, hosts,\n"
"rate_bps, host_rate_bps, uplink_rate_bps, delay_us, loss_pct, mp0 (true\n"
"or false, and mp0_missing: why not), probe_interval_us, and every node\n"
"(name, netns, role, plane (-1 for hosts), index; for hosts mplane_ipv4,\n"
"mplane_ipv6 and mp0: {ifname, ifindex, policy} or null) with its ports\n"
"(ifname, ifindex, mac, peer, peer_ifname, rate_bps, ipv4, ipv6,\n"
"delay_us, loss_pct).\n",
	.opts = fabric_prefix_only_opts,
	.footer =
"Examples:\n"
"  mplanectl fabric show\n"
"  mplanectl -j fabric show --prefix lab | jq '.nodes[] | select(.role == \"leaf\")'\n",
};

static void print_node(const struct mp_fabric_node *n)
{
	const struct mp_fabric_port *p;
	char plane[8], addr[INET_ADDRSTRLEN];
	unsigned int i;

	snprintf(plane, sizeof(plane), "%d", n->plane);
	printf("%-6s %-5s %-5s %-14s", n->name, mp_fabric_role_name(n->role),
	       n->plane < 0 ? "-" : plane, n->netns);
	for (i = 0; i < n->nports; i++) {
		p = &n->ports[i];
		inet_ntop(AF_INET, &p->addr4, addr, sizeof(addr));
		printf(" %s>%s.%s %s", p->ifname, p->peer, p->peer_ifname, addr);
	}
	if (n->mp0) {
		inet_ntop(AF_INET, &n->mplane4, addr, sizeof(addr));
		printf(" " FABRIC_MP0_NAME " %s", addr);
	}
	putchar('\n');
}

static void print_fabric(const struct mp_fabric *f)
{
	char links[128], mp0[80];
	unsigned int i;

	printf("fabric %s: %u planes of %u leaves and %u spines, %u hosts, %s, %s\n",
	       f->prefix, f->planes, f->leaves, f->spines, f->hosts,
	       fabric_links_str(f, links, sizeof(links)),
	       fabric_mp0_str(f, mp0, sizeof(mp0)));
	printf("%-6s %-5s %-5s %-14s PORTS\n", "NODE", "ROLE", "PLANE",
	       "NETNS");
	for (i = 0; i < f->nnodes; i++)
		print_node(&f->nodes[i]);
}

int fabric_show_main(int argc, char **argv)
{
	struct fabric_prefix_settings set = { MP_FABRIC_DEF_PREFIX };
	const char *prefix = set.prefix;
	struct mp_opt_result res;
	struct mp_fabric f;
	int c, err;

	c = mp_opt_parse(&show_cmd, argc, argv, &set, &res);
	if (c != MP_OPT_RUN)
		return c;
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	err = mp_fabric_load(prefix, &f);
	if (err == -ENOENT) {
		mp_err("no fabric %s (no " MP_FABRIC_RUN_DIR "/%s.json)",
		       prefix, prefix);
		return MP_EXIT_ERR;
	}
	if (err) {
		mp_err(MP_FABRIC_RUN_DIR "/%s.json: %s", prefix,
		       err == -EBADMSG ? "not a fabric state file" :
		       strerror(-err));
		return MP_EXIT_ERR;
	}
	/* JSON from what was loaded: what other tools will see. */
	if (mp_json)
		mp_json_print(fabric_state_json(&f));
	else
		print_fabric(&f);
	mp_fabric_free(&f);
	return MP_EXIT_OK;
}
