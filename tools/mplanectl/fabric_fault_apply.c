// SPDX-License-Identifier: GPL-2.0
/*
 * One step of a fault, made on every port of its target, node by node:
 *   down     the ports go admin down (a link: both ends), so that both
 *            sides see their carrier go;
 *   up       they come up again, with what the kernel took away when
 *            they went down: IPv6 addresses, the permanent neighbours,
 *            and the routes through them (the node's routes are sent
 *            again from the state file, as 'fabric up' made them);
 *   degrade  the ports' tbf gets the new rate (burst and limit follow it,
 *            as fabric_tbf.c makes them for any rate);
 *   loss     netem under the tbf, or the BPF dropper on tc egress;
 *   clear    up, the qdiscs as 'fabric up' made them, no dropper.
 * The step is put on the timeline first, so that it comes before its
 * effects (a carrier change, a failover) there.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "mp_nlbatch.h"
#include "mp_out.h"
#include "mp_run.h"
#include "fabric.h"
#include "fabric_fault.h"
#include "mplane_events.h"

static int keep(int *first, int err)
{
	if (err && !*first)
		*first = err;
	return err;
}

/* The ports of @t on node @node, into @idx: how many. */
static unsigned int ports_on(const struct fault_target *t, unsigned int node,
			     unsigned int *idx)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nports; i++)
		if (t->ports[i].node == node)
			idx[n++] = t->ports[i].port;
	return n;
}

typedef int (*node_fn)(struct fault_ctx *c, unsigned int node,
		       const unsigned int *ports, unsigned int n,
		       const struct fault_step *s);

/* @fn once per node of @t, with that node's ports; goes on past failures. */
static int apply_per_node(struct fault_ctx *c, const struct fault_target *t,
			 const struct fault_step *s, node_fn fn)
{
	unsigned int *idx, node, n;
	int err = 0;

	idx = calloc(t->nports + 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (node = 0; node < c->f.nnodes; node++) {
		n = ports_on(t, node, idx);
		if (n)
			keep(&err, fn(c, node, idx, n, s));
	}
	free(idx);
	return err;
}

static void link_down(struct mp_nlbatch *nb, const struct mp_fabric_port *p)
{
	struct nlmsghdr *nlh = mp_nlbatch_new(nb, RTM_NEWLINK, 0, "%s down",
					      p->ifname);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = p->ifindex;
	ifi->ifi_change = IFF_UP;
}

/* The batch of @fill's requests on node @node, sent: 0 or -errno. */
static int batch(struct fault_ctx *c, unsigned int node, fault_fill_fn fill,
		 const unsigned int *ports, unsigned int np,
		 const struct fault_step *s, struct mp_nlbatch *out)
{
	struct mp_rtnl *r = fault_rtnl(c, node);
	struct mp_nlbatch nb;
	int err;

	if (!r)
		return -EINVAL;
	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	fill(&nb, c, &c->f.nodes[node], ports, np, s);
	err = mp_nlbatch_flush(&nb);
	if (out)
		*out = nb;	/* the caller reports, or forgives */
	else if (err)
		mp_nlbatch_report(&nb, c->f.nodes[node].name);
	if (!out)
		mp_nlbatch_free(&nb);
	return err;
}

int fault_batch(struct fault_ctx *c, unsigned int node, fault_fill_fn fill,
		const unsigned int *ports, unsigned int np,
		const struct fault_step *s)
{
	return batch(c, node, fill, ports, np, s, NULL);
}

static void fill_down(struct mp_nlbatch *nb, const struct fault_ctx *c,
		      const struct mp_fabric_node *n, const unsigned int *ports,
		      unsigned int np, const struct fault_step *s)
{
	unsigned int i;

	(void)c;
	(void)s;
	for (i = 0; i < np; i++)
		link_down(nb, &n->ports[ports[i]]);
}

static void fill_up(struct mp_nlbatch *nb, const struct fault_ctx *c,
		    const struct mp_fabric_node *n, const unsigned int *ports,
		    unsigned int np, const struct fault_step *s)
{
	unsigned int i;

	(void)s;
	for (i = 0; i < np; i++)
		fabric_config_port(nb, &c->f, &n->ports[ports[i]]);
}

static void fill_routes(struct mp_nlbatch *nb, const struct fault_ctx *c,
			const struct mp_fabric_node *n,
			const unsigned int *ports, unsigned int np,
			const struct fault_step *s)
{
	(void)ports;
	(void)np;
	(void)s;
	fabric_routes(nb, &c->f, n);
	/* A rail that went down took mp0's route through it along. */
	if (n->mp0)
		fabric_mp0_routes(nb, &c->f, n, n->mp0_ifindex);
}

static void fill_rate(struct mp_nlbatch *nb, const struct fault_ctx *c,
		      const struct mp_fabric_node *n, const unsigned int *ports,
		      unsigned int np, const struct fault_step *s)
{
	struct mp_fabric_port p;
	unsigned int i;

	for (i = 0; i < np; i++) {
		p = n->ports[ports[i]];
		if (s)
			p.rate_bps = s->value;
		fabric_tbf(nb, &p);
		/* A tbf made anew (under or out of netem) has no fq. */
		if (c->f.cc == MPLANE_CC_DCQCN && n->mp0)
			fabric_fq(nb, &p);
	}
}

struct down_walk {
	bool any;
};

static int down_cb(const struct mp_link *l, int msg_type, void *data)
{
	struct down_walk *w = data;

	(void)msg_type;
	if (strcmp(l->name, "lo") && !(l->flags & IFF_UP))
		w->any = true;
	return 0;
}

/*
 * A route through a port that is still down (another fault's) cannot be
 * made again yet: the kernel says its gateway is unreachable or its
 * device down.  Its own 'up' brings it back.
 */
static bool expected_route_err(struct fault_ctx *c, unsigned int node,
			       int err)
{
	struct down_walk w = {};
	struct mp_nlerr e;

	if (err != -ENETDOWN && err != -ENETUNREACH && err != -EHOSTUNREACH)
		return false;
	return !mp_rtnl_dump_links(fault_rtnl(c, node), down_cb, NULL, &w,
				   &e) && w.any;
}

static int restore_routes(struct fault_ctx *c, unsigned int node)
{
	struct mp_nlbatch nb;
	int err;

	err = batch(c, node, fill_routes, NULL, 0, NULL, &nb);
	if (err && expected_route_err(c, node, err))
		err = 0;
	else if (err)
		mp_nlbatch_report(&nb, c->f.nodes[node].name);
	mp_nlbatch_free(&nb);
	return err;
}

static int node_down(struct fault_ctx *c, unsigned int node,
		     const unsigned int *ports, unsigned int n,
		     const struct fault_step *s)
{
	return batch(c, node, fill_down, ports, n, s, NULL);
}

static int node_up(struct fault_ctx *c, unsigned int node,
		   const unsigned int *ports, unsigned int n,
		   const struct fault_step *s)
{
	int err = batch(c, node, fill_up, ports, n, s, NULL);

	return err ? err : restore_routes(c, node);
}

/* The tbf at @s's rate (the state file's without @s), and ar's model. */
static int set_rate(struct fault_ctx *c, unsigned int node,
		    const unsigned int *ports, unsigned int n,
		    const struct fault_step *s)
{
	const struct mp_fabric_node *nd = &c->f.nodes[node];
	const struct mp_fabric_port *p;
	int err = batch(c, node, fill_rate, ports, n, s, NULL), ret;
	unsigned int i;

	for (i = 0; i < n; i++) {
		p = &nd->ports[ports[i]];
		ret = fault_ar_rate(&c->f, nd, p, s ? s->value : p->rate_bps);
		if (keep(&err, ret))
			mp_err("%s: %s: ar's rate: %s", nd->name, p->ifname,
			       strerror(-ret));
	}
	return err;
}

static int node_degrade(struct fault_ctx *c, unsigned int node,
			const unsigned int *ports, unsigned int n,
			const struct fault_step *s)
{
	return set_rate(c, node, ports, n, s);
}

static int node_loss(struct fault_ctx *c, unsigned int node,
		     const unsigned int *ports, unsigned int n,
		     const struct fault_step *s)
{
	const struct mp_fabric_node *nd = &c->f.nodes[node];
	struct mp_rtnl *r = NULL;
	unsigned int i;
	int err = 0;

	if (s->via == MPLANE_FAULT_VIA_NETEM) {
		r = fault_rtnl(c, node);
		if (!r)
			return -EINVAL;
		for (i = 0; i < n; i++)
			keep(&err, fault_loss_netem_set(r, &nd->ports[ports[i]],
							s->value));
	} else {
		/* libbpf's tc calls open their sockets where we are. */
		err = fault_enter(c, node);
		for (i = 0; !err && i < n; i++)
			keep(&err, fault_loss_bpf_set(&nd->ports[ports[i]],
						      s->value, c->tc_choice));
		keep(&err, fault_leave(c));
	}
	if (err)
		mp_err("%s: loss: %s", nd->name, strerror(-err));
	return err;
}

/* The root qdisc away, with whatever a fault put under it. */
static int del_root(struct mp_rtnl *r, const struct mp_fabric_port *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct mp_nlerr e;
	struct tcmsg *tcm;
	int err;

	nlh->nlmsg_type = RTM_DELQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = p->ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	err = mp_rtnl_request(r, nlh, NULL, NULL, &e);
	/* None there: nothing to take away. */
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	if (err)
		mp_nlerr_report(p->ifname, err, &e);
	return err;
}

static int node_clear(struct fault_ctx *c, unsigned int node,
		      const unsigned int *ports, unsigned int n,
		      const struct fault_step *s)
{
	const struct mp_fabric_node *nd = &c->f.nodes[node];
	struct mp_rtnl *r = fault_rtnl(c, node);
	unsigned int i;
	int err;

	if (!r)
		return -EINVAL;
	err = fault_enter(c, node);
	for (i = 0; !err && i < n; i++)
		keep(&err, fault_loss_bpf_set(&nd->ports[ports[i]], 0, -1));
	keep(&err, fault_leave(c));
	for (i = 0; i < n; i++)
		keep(&err, del_root(r, &nd->ports[ports[i]]));
	keep(&err, set_rate(c, node, ports, n, NULL));
	keep(&err, node_up(c, node, ports, n, s));
	return err;
}

enum mplane_fault_via fault_loss_via(struct fault_ctx *c,
				     const struct fault_target *t, int *err)
{
	struct mp_rtnl *r;

	*err = 0;
	if (c->loss_via == FAULT_LOSS_BPF)
		return MPLANE_FAULT_VIA_BPF;
	r = t->nports ? fault_rtnl(c, t->ports[0].node) : NULL;
	if (r && !fault_netem_probe(r))
		return MPLANE_FAULT_VIA_NETEM;
	if (c->loss_via == FAULT_LOSS_NETEM) {
		mp_err("this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM, module sch_netem): use --via bpf");
		*err = -EOPNOTSUPP;
	}
	return MPLANE_FAULT_VIA_BPF;
}

int fault_apply(struct fault_ctx *c, const struct fault_target *t,
		struct fault_step *s)
{
	static const node_fn fns[__MPLANE_FAULT_MAX] = {
		[MPLANE_FAULT_DOWN]	= node_down,
		[MPLANE_FAULT_UP]	= node_up,
		[MPLANE_FAULT_DEGRADE]	= node_degrade,
		[MPLANE_FAULT_LOSS]	= node_loss,
		[MPLANE_FAULT_CLEAR]	= node_clear,
	};
	static const enum mplane_fault_via vias[__MPLANE_FAULT_MAX] = {
		[MPLANE_FAULT_DOWN]	= MPLANE_FAULT_VIA_ADMIN,
		[MPLANE_FAULT_UP]	= MPLANE_FAULT_VIA_ADMIN,
		[MPLANE_FAULT_DEGRADE]	= MPLANE_FAULT_VIA_TBF,
		[MPLANE_FAULT_CLEAR]	= MPLANE_FAULT_VIA_ALL,
	};
	int err = 0;

	s->via = vias[s->action];
	if (s->action == MPLANE_FAULT_LOSS)
		s->via = fault_loss_via(c, t, &err);
	if (!err) {
		fault_emit(c, t, s);
		err = apply_per_node(c, t, s, fns[s->action]);
	}
	/* Links that came and went: the leaves route around them. */
	if (!err && c->reroute && (s->action == MPLANE_FAULT_DOWN ||
				   s->action == MPLANE_FAULT_UP ||
				   s->action == MPLANE_FAULT_CLEAR))
		err = fault_reroute(c, t);
	s->done_ns = mp_mono_ns();
	s->err = err;
	return err;
}
