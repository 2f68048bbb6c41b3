// SPDX-License-Identifier: GPL-2.0
/*
 * The plan of a fabric: every node and port with its name, peer, MAC and
 * addresses, computed from the sizes alone, so that the builder, the
 * state file and Documentation/fabric.md agree by construction.
 *
 * MACs are 02:PP:RR:NN:KK:II: locally administered, plane PP, role RR
 * (01 host, 02 leaf, 03 spine), node index NN, then the port: KK 00 for
 * a downlink (or a host's rail) and 01 for a leaf's uplink, II the index
 * of the node at the other end (the host, leaf or spine; 00 on a host).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "fabric.h"

enum { MAC_HOST = 1, MAC_LEAF = 2, MAC_SPINE = 3 };

unsigned int fabric_leaf_of(const struct mp_fabric *f, unsigned int host)
{
	/* Rail-optimised: hosts fill the leaves in order, and a host is on
	 * the same leaf index in every plane. */
	return host * f->leaves / f->hosts;
}

unsigned int fabric_leaf_node(const struct mp_fabric *f, unsigned int plane,
			      unsigned int leaf)
{
	return f->hosts + plane * (f->leaves + f->spines) + leaf;
}

unsigned int fabric_spine_node(const struct mp_fabric *f, unsigned int plane,
			       unsigned int spine)
{
	return fabric_leaf_node(f, plane, f->leaves) + spine;
}

static void addr4(struct in_addr *a, unsigned int b1, unsigned int b2,
		  unsigned int b3, unsigned int b4)
{
	a->s_addr = htonl(b1 << 24 | b2 << 16 | b3 << 8 | b4);
}

/* The eight 16-bit groups of an IPv6 address, as it is written. */
static void addr6(struct in6_addr *a, unsigned int g0, unsigned int g1,
		  unsigned int g2, unsigned int g3, unsigned int g7)
{
	unsigned int g[8] = { g0, g1, g2, g3, 0, 0, 0, g7 };
	int i;

	for (i = 0; i < 8; i++) {
		a->s6_addr[2 * i] = g[i] >> 8;
		a->s6_addr[2 * i + 1] = g[i] & 0xff;
	}
}

void fabric_mplane_addr4(unsigned int host, struct in_addr *a)
{
	addr4(a, 10, 99, host, 1);
}

void fabric_mplane_addr6(unsigned int host, struct in6_addr *a)
{
	addr6(a, 0xfd99, 0, 0, 0, 1);
	a->s6_addr[12] = host >> 8;
	a->s6_addr[13] = host & 0xff;
}

char *fabric_addr_str(int family, const void *addr, unsigned int plen,
		      char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, plen);
	return buf;
}

static void set_mac(struct mp_fabric_port *p, unsigned int plane,
		    unsigned int role, unsigned int node, unsigned int kind,
		    unsigned int other)
{
	unsigned char mac[6] = { 0x02, plane, role, node, kind, other };

	memcpy(p->mac, mac, sizeof(mac));
}

static void set_node(const struct mp_fabric *f, struct mp_fabric_node *n,
		     enum mp_node_role role, int plane, int index)
{
	static const char role_char[] = { 'h', 'l', 's' };

	if (role == MP_NODE_HOST)
		snprintf(n->name, sizeof(n->name), "h%d", index);
	else
		snprintf(n->name, sizeof(n->name), "p%d%c%d", plane,
			 role_char[role], index);
	snprintf(n->netns, sizeof(n->netns), "%s-%s", f->prefix, n->name);
	n->role = role;
	n->plane = plane;
	n->index = index;
}

static void set_peer(const struct mp_fabric *f, struct mp_fabric_port *p,
		     unsigned int node, const char *fmt, unsigned int i)
{
	snprintf(p->peer, sizeof(p->peer), "%s", f->nodes[node].name);
	snprintf(p->peer_ifname, sizeof(p->peer_ifname), fmt, i);
	p->rate_bps = f->rate_bps;
}

/*
 * The plane byte of a host port's MAC, and of the leaf port facing it:
 * the port's plane, or with --host-bond plane 0's in every plane.  A
 * bond gives all its ports one MAC and sends a frame to one gateway
 * MAC out of any of them, so every plane must know the host, and show
 * it its leaf, by the same MACs: the planes are apart, and nothing
 * sees two of them.
 */
static unsigned int host_mac_plane(const struct mp_fabric *f,
				   unsigned int plane)
{
	return f->host_bond ? 0 : plane;
}

/* Host H's mplane addresses, and its rail in plane P: r<P>,
 * 10.(100+P).H.2/24, fd10:P:H::2/64. */
static void plan_host(const struct mp_fabric *f, unsigned int h)
{
	struct mp_fabric_port *p;
	unsigned int plane;

	fabric_mplane_addr4(h, &f->nodes[h].mplane4);
	fabric_mplane_addr6(h, &f->nodes[h].mplane6);
	for (plane = 0; plane < f->planes; plane++) {
		p = &f->nodes[h].ports[plane];
		snprintf(p->ifname, sizeof(p->ifname), "r%u", plane);
		set_peer(f, p, fabric_leaf_node(f, plane, fabric_leaf_of(f, h)),
			 "h%u", h);
		set_mac(p, host_mac_plane(f, plane), MAC_HOST, h, 0, 0);
		addr4(&p->addr4, 10, 100 + plane, h, 2);
		p->plen4 = 24;
		addr6(&p->addr6, 0xfd10, plane, h, 0, 2);
		p->plen6 = 64;
	}
}

/*
 * Leaf L of plane P: h<H> to each of its hosts (10.(100+P).H.1/24,
 * fd10:P:H::1/64), then s<S> to each spine (10.(200+P).L.(2S)/31,
 * fd20:P:L:S::/127).
 */
static void plan_leaf(const struct mp_fabric *f, unsigned int plane,
		      unsigned int leaf)
{
	struct mp_fabric_node *n = &f->nodes[fabric_leaf_node(f, plane, leaf)];
	struct mp_fabric_port *p = n->ports;
	unsigned int h, s;

	for (h = 0; h < f->hosts; h++) {
		if (fabric_leaf_of(f, h) != leaf)
			continue;
		snprintf(p->ifname, sizeof(p->ifname), "h%u", h);
		set_peer(f, p, h, "r%u", plane);
		set_mac(p, host_mac_plane(f, plane), MAC_LEAF, leaf, 0, h);
		addr4(&p->addr4, 10, 100 + plane, h, 1);
		p->plen4 = 24;
		addr6(&p->addr6, 0xfd10, plane, h, 0, 1);
		p->plen6 = 64;
		p++;
	}
	for (s = 0; s < f->spines; s++, p++) {
		snprintf(p->ifname, sizeof(p->ifname), "s%u", s);
		set_peer(f, p, fabric_spine_node(f, plane, s), "l%u", leaf);
		set_mac(p, plane, MAC_LEAF, leaf, 1, s);
		addr4(&p->addr4, 10, 200 + plane, leaf, 2 * s);
		p->plen4 = 31;
		addr6(&p->addr6, 0xfd20, plane, leaf, s, 0);
		p->plen6 = 127;
	}
}

/* Spine S of plane P: l<L> to each leaf, the odd end of the leaf's /31. */
static void plan_spine(const struct mp_fabric *f, unsigned int plane,
		       unsigned int spine)
{
	struct mp_fabric_node *n = &f->nodes[fabric_spine_node(f, plane, spine)];
	struct mp_fabric_port *p;
	unsigned int l;

	for (l = 0; l < f->leaves; l++) {
		p = &n->ports[l];
		snprintf(p->ifname, sizeof(p->ifname), "l%u", l);
		set_peer(f, p, fabric_leaf_node(f, plane, l), "s%u", spine);
		set_mac(p, plane, MAC_SPINE, spine, 0, l);
		addr4(&p->addr4, 10, 200 + plane, l, 2 * spine + 1);
		p->plen4 = 31;
		addr6(&p->addr6, 0xfd20, plane, l, spine, 1);
		p->plen6 = 127;
	}
}

static unsigned int hosts_on_leaf(const struct mp_fabric *f,
				  unsigned int leaf)
{
	unsigned int h, n = 0;

	for (h = 0; h < f->hosts; h++)
		n += fabric_leaf_of(f, h) == leaf;
	return n;
}

/* Names and port arrays first: ports name their peers by node name. */
static int plan_nodes(struct mp_fabric *f)
{
	struct mp_fabric_node *n;
	unsigned int i, p, l, s;

	for (i = 0; i < f->hosts; i++) {
		n = &f->nodes[i];
		set_node(f, n, MP_NODE_HOST, -1, i);
		n->nports = f->planes;
	}
	for (p = 0; p < f->planes; p++) {
		for (l = 0; l < f->leaves; l++) {
			n = &f->nodes[fabric_leaf_node(f, p, l)];
			set_node(f, n, MP_NODE_LEAF, p, l);
			n->nports = hosts_on_leaf(f, l) + f->spines;
		}
		for (s = 0; s < f->spines; s++) {
			n = &f->nodes[fabric_spine_node(f, p, s)];
			set_node(f, n, MP_NODE_SPINE, p, s);
			n->nports = f->leaves;
		}
	}
	for (i = 0; i < f->nnodes; i++) {
		n = &f->nodes[i];
		n->ports = calloc(n->nports, sizeof(*n->ports));
		if (!n->ports)
			return -ENOMEM;
	}
	return 0;
}

int fabric_plan(struct mp_fabric *f)
{
	unsigned int i, p;
	int err;

	f->nnodes = f->hosts + f->planes * (f->leaves + f->spines);
	f->nodes = calloc(f->nnodes, sizeof(*f->nodes));
	if (!f->nodes)
		return -ENOMEM;
	err = plan_nodes(f);
	if (err)
		return err;
	for (i = 0; i < f->hosts; i++)
		plan_host(f, i);
	for (p = 0; p < f->planes; p++) {
		for (i = 0; i < f->leaves; i++)
			plan_leaf(f, p, i);
		for (i = 0; i < f->spines; i++)
			plan_spine(f, p, i);
	}
	return mp_fabric_link_peers(f) ? -EINVAL : 0;
}
