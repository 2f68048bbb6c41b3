// SPDX-License-Identifier: GPL-2.0
/*
 * fabric up, first step: a namespace per node, made in this thread (no
 * fork), set up while the thread is inside it: sysctls (/proc/sys/net is
 * the opener's namespace's) and the rtnetlink socket that will configure
 * the node (a socket stays in the namespace it was opened in).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mp_netns.h"
#include "mp_out.h"
#include "mp_rtnl.h"
#include "fabric.h"

struct sysctl {
	const char *path;
	const char *val;
};

/*
 * Every node: no reverse-path filter (ECMP brings replies back over
 * another spine) and no DAD (addresses are usable at once, and the
 * link-local ones do not wait either).  IPv6 addresses survive a port
 * going down, as IPv4 ones do, so that a link flap (a test taking a port
 * down) does not take the node's configuration with it.  "default" as
 * well as "all": the veths come after, and start from "default".
 */
static const struct sysctl node_sysctls[] = {
	{ "/proc/sys/net/ipv4/conf/all/rp_filter", "0" },
	{ "/proc/sys/net/ipv4/conf/default/rp_filter", "0" },
	{ "/proc/sys/net/ipv6/conf/all/accept_dad", "0" },
	{ "/proc/sys/net/ipv6/conf/default/accept_dad", "0" },
	{ "/proc/sys/net/ipv6/conf/all/keep_addr_on_down", "1" },
	{ "/proc/sys/net/ipv6/conf/default/keep_addr_on_down", "1" },
	{}
};

/*
 * Switches route, and hash flows over the paths by their ports (L4).  A
 * next hop behind a port that is down is not used, as a router's is not:
 * without this the kernel keeps hashing flows onto it.
 */
static const struct sysctl switch_sysctls[] = {
	{ "/proc/sys/net/ipv4/ip_forward", "1" },
	{ "/proc/sys/net/ipv4/conf/all/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv4/conf/default/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv6/conf/all/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv6/conf/default/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv6/conf/all/forwarding", "1" },
	{ "/proc/sys/net/ipv6/conf/default/forwarding", "1" },
	{ "/proc/sys/net/ipv4/fib_multipath_hash_policy", "1" },
	{ "/proc/sys/net/ipv6/fib_multipath_hash_policy", "1" },
	{}
};

/*
 * Hosts with one multipath route over their rails (--host-multipath)
 * hash flows by their ports, as the switches do, and leave a rail whose
 * link is down, as a host's kernel ECMP over its NICs would.
 */
static const struct sysctl multipath_host_sysctls[] = {
	{ "/proc/sys/net/ipv4/conf/all/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv4/conf/default/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv6/conf/all/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv6/conf/default/ignore_routes_with_linkdown", "1" },
	{ "/proc/sys/net/ipv4/fib_multipath_hash_policy", "1" },
	{ "/proc/sys/net/ipv6/fib_multipath_hash_policy", "1" },
	{}
};

static int write_sysctls(const struct mp_fabric_node *n,
			 const struct sysctl *s)
{
	int err;

	for (; s->path; s++) {
		err = mp_sysctl_write(s->path, s->val);
		if (err) {
			mp_err("%s: %s: %s", n->netns, s->path,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Inside the new namespace of @n: what must be done from within. */
static int setup_inside(const struct mp_fabric *f,
			const struct mp_fabric_node *n, struct mp_rtnl *r)
{
	int err;

	err = write_sysctls(n, node_sysctls);
	if (!err && n->role != MP_NODE_HOST)
		err = write_sysctls(n, switch_sysctls);
	if (!err && n->role == MP_NODE_HOST && f->host_multipath)
		err = write_sysctls(n, multipath_host_sysctls);
	if (err)
		return err;
	err = mp_rtnl_open(r, 0);
	if (err)
		mp_err("%s: rtnetlink socket: %s", n->netns, strerror(-err));
	return err;
}

static int make_node(struct fabric_build *b, unsigned int i)
{
	const struct mp_fabric_node *n = &b->f->nodes[i];
	int err, ret;

	err = mp_netns_create(n->netns);
	if (err == -EEXIST)
		mp_err("netns %s exists: is another fabric or 'up' using prefix %s?",
		       n->netns, b->f->prefix);
	else if (err)
		mp_err("netns %s: %s", n->netns, strerror(-err));
	if (!err)
		err = setup_inside(b->f, n, &b->rtnl[i]);
	/* Back home in every case: the next node is made from there. */
	ret = mp_netns_return(b->home_fd);
	if (ret) {
		mp_err("returning to our own namespace: %s", strerror(-ret));
		return ret;
	}
	if (err)
		return err;
	b->nsfd[i] = mp_netns_open(n->netns);
	if (b->nsfd[i] < 0) {
		mp_err("netns %s: %s", n->netns, strerror(-b->nsfd[i]));
		return b->nsfd[i];
	}
	return 0;
}

int fabric_build_netns(struct fabric_build *b)
{
	unsigned int i;
	int err;

	for (i = 0; i < b->f->nnodes; i++) {
		err = make_node(b, i);
		/* Without netem, say so before building anything more. */
		if (!err && !i && fabric_count_ports(b->f, true))
			err = fabric_netem_check(&b->rtnl[0], b->f->nodes[0].netns);
		/* Nor, with --cc dcqcn, without fq. */
		if (!err && !i && b->f->mp0 && b->f->cc == MPLANE_CC_DCQCN)
			err = fabric_fq_check(&b->rtnl[0], b->f->nodes[0].netns);
		if (err)
			return err;
		fabric_progress(b, "namespaces", i + 1, b->f->nnodes);
	}
	return 0;
}
