// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric fault --reroute: the control plane a fabric of static
 * routes lacks.  When a link between a leaf and a spine goes down, the
 * leaf stops using it at once (ignore_routes_with_linkdown), but the
 * other leaves of the plane know nothing and keep sending a share of that
 * leaf's traffic to the spine, which has no way left to it: a black hole,
 * which measures the missing routing protocol rather than the data path.
 * With --reroute, once a step is made, every leaf of each plane it
 * touched routes each other leaf's hosts over the spines whose links to
 * both leaves are up, as a routing protocol's withdrawals would make it
 * (at once, where BGP takes a moment), and back when the links come up.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "mp_nlbatch.h"
#include "fabric.h"
#include "fabric_fault.h"

struct uplink_walk {
	const struct mp_fabric *f;
	const struct mp_fabric_node *leaf;
	unsigned char *up;		/* the plane's leaves x spines */
};

/* A leaf's port to a spine is usable when it is up with a carrier:
 * either end going down takes the carrier away. */
static int uplink_cb(const struct mp_link *l, int msg_type, void *data)
{
	struct uplink_walk *w = data;
	const struct mp_fabric_port *p;
	unsigned int i;

	(void)msg_type;
	for (i = 0; i < w->leaf->nports; i++) {
		p = &w->leaf->ports[i];
		if (strcmp(p->ifname, l->name) ||
		    w->f->nodes[p->peer_node].role != MP_NODE_SPINE)
			continue;
		w->up[w->leaf->index * w->f->spines +
		      w->f->nodes[p->peer_node].index] =
			(l->flags & IFF_UP) && l->carrier != 0;
	}
	return 0;
}

static void fill_reroute(struct mp_nlbatch *nb, const struct fault_ctx *c,
			 const struct mp_fabric_node *n,
			 const unsigned int *ports, unsigned int np,
			 const struct fault_step *s)
{
	(void)ports;
	(void)np;
	(void)s;
	fabric_leaf_routes_over(nb, &c->f, n, c->uplinks);
}

/* Every leaf of plane @plane, anew from the links' state now. */
static int reroute_plane(struct fault_ctx *c, int plane)
{
	const struct mp_fabric *f = &c->f;
	struct uplink_walk w = { .f = f };
	struct mp_nlerr e;
	unsigned int i;
	int err = 0;

	w.up = calloc((size_t)f->leaves * f->spines, 1);
	if (!w.up)
		return -ENOMEM;
	for (i = 0; i < f->nnodes && !err; i++) {
		w.leaf = &f->nodes[i];
		if (w.leaf->role != MP_NODE_LEAF || w.leaf->plane != plane)
			continue;
		err = fault_rtnl(c, i) ?
		      mp_rtnl_dump_links(fault_rtnl(c, i), uplink_cb, NULL, &w, &e) :
		      -EINVAL;
	}
	c->uplinks = w.up;
	for (i = 0; i < f->nnodes && !err; i++)
		if (f->nodes[i].role == MP_NODE_LEAF && f->nodes[i].plane == plane)
			err = fault_batch(c, i, fill_reroute, NULL, 0, NULL);
	c->uplinks = NULL;
	free(w.up);
	return err;
}

int fault_reroute(struct fault_ctx *c, const struct fault_target *t)
{
	bool done[FABRIC_MAX_PLANES] = { false };
	const struct mp_fabric_node *n;
	unsigned int i;
	int err = 0;

	for (i = 0; i < t->nports && !err; i++) {
		n = &c->f.nodes[t->ports[i].node];
		if (n->role == MP_NODE_HOST || n->plane < 0 ||
		    n->plane >= FABRIC_MAX_PLANES || done[n->plane])
			continue;
		done[n->plane] = true;
		err = reroute_plane(c, n->plane);
	}
	return err;
}
