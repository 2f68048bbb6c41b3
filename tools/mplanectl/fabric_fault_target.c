// SPDX-License-Identifier: GPL-2.0
/*
 * What a fault is applied to: a link (both ends), one port, a switch
 * (every port of it) or a plane (both ends of every link of the plane,
 * the hosts' rails into it included), named as 'fabric show' names nodes
 * and ports, and turned into the list of ports it covers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_fault.h"
#include "mp_names.h"
#include "fabric.h"
#include "fabric_fault.h"
#include "mplane_events.h"

static int add_port(struct fault_target *t, unsigned int node,
		    unsigned int port, unsigned int max)
{
	if (t->nports >= max)
		return -ENOSPC;
	t->ports[t->nports++] = (struct fault_port){ node, port };
	return 0;
}

static unsigned int count_ports(const struct mp_fabric *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nnodes; i++)
		n += f->nodes[i].nports;
	return n;
}

/* Every port of node @node. */
static void add_node(const struct mp_fabric *f, struct fault_target *t,
		     unsigned int node, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < f->nodes[node].nports; i++)
		add_port(t, node, i, max);
}

/* Every link of a plane has a leaf at one end: each link once, from its
 * leaf, both ends. */
static void add_plane(const struct mp_fabric *f, struct fault_target *t,
		      unsigned int plane, unsigned int max)
{
	const struct mp_fabric_node *n;
	unsigned int i, j;

	for (i = 0; i < f->nnodes; i++) {
		n = &f->nodes[i];
		if (n->role != MP_NODE_LEAF || n->plane != (int)plane)
			continue;
		for (j = 0; j < n->nports; j++) {
			add_port(t, i, j, max);
			add_port(t, n->ports[j].peer_node,
				 n->ports[j].peer_port, max);
		}
	}
}

static int alloc_ports(const struct mp_fabric *f, struct fault_target *t)
{
	/* Never more than every end of every link. */
	t->ports = calloc(count_ports(f) + 1, sizeof(*t->ports));
	return t->ports ? 0 : -ENOMEM;
}

static int no_port(const struct mp_fabric *f, const struct mp_fabric_node *n,
		   const char *port)
{
	char names[256] = "";
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < n->nports && len < sizeof(names); i++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				i ? ", " : "", n->ports[i].ifname);
	return mp_usage_err("%s of fabric %s has no port '%s' (it has %s)",
			    n->name, f->prefix, port, names);
}

/* "NODE:PORT" (a link or a port) or "NODE" (a switch) into @t. */
static int parse_node_port(const struct mp_fabric *f, const char *spec,
			   bool one_end, struct fault_target *t)
{
	const struct mp_fabric_node *n;
	char node[32];
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	int port = -1;

	if (len >= sizeof(node))
		return mp_usage_err("bad target '%s': want NODE:PORT (a link, such as p0l0:s1), NODE (a switch) or 'plane P'",
				    spec);
	memcpy(node, spec, len);
	node[len] = '\0';
	n = mp_fabric_node(f, node);
	if (!n)
		return mp_usage_err("bad target '%s': fabric %s has no node '%s' (see 'mplanectl fabric show --prefix %s')",
				    spec, f->prefix, node, f->prefix);
	if (colon) {
		port = mp_fabric_port_index(n, colon + 1);
		if (port < 0)
			return no_port(f, n, colon + 1);
	} else if (n->role == MP_NODE_HOST) {
		return mp_usage_err("bad target '%s': a host is not a switch; name one of its rails (%s:r0) or a plane",
				    spec, node);
	} else if (one_end) {
		return mp_usage_err("bad target '%s': a port is NODE:PORT, such as %s:%s",
				    spec, node, n->ports[0].ifname);
	}
	t->node = n - f->nodes;
	t->port = port;
	t->plane = n->plane >= 0 ? n->plane :
		   port >= 0 ? f->nodes[n->ports[port].peer_node].plane : -1;
	t->kind = !colon ? MPLANE_FAULT_SWITCH :
		  one_end ? MPLANE_FAULT_PORT : MPLANE_FAULT_LINK;
	snprintf(t->name, sizeof(t->name), "%s", spec);
	return MP_EXIT_OK;
}

static int parse_plane(const struct mp_fabric *f, const char *spec,
		       struct fault_target *t)
{
	uint64_t plane;

	if (!spec)
		return mp_usage_err("'plane' wants a plane number, such as 'plane 0'");
	if (mp_arg_u64("plane", spec, 0, f->planes - 1, &plane))
		return MP_EXIT_USAGE;
	t->kind = MPLANE_FAULT_PLANE;
	t->plane = plane;
	snprintf(t->name, sizeof(t->name), "plane %u", (unsigned int)plane);
	return MP_EXIT_OK;
}

int fault_target_parse(const struct mp_fabric *f, const char *kind,
		       const char *spec, struct fault_target *t)
{
	unsigned int max = count_ports(f) + 1;
	uint32_t v;
	int rc, k = -1;

	memset(t, 0, sizeof(*t));
	t->node = t->port = -1;
	t->plane = -1;
	if (kind) {
		if (mp_name_parse(&mp_fault_target_names, kind, &v) ||
		    v == MPLANE_FAULT_FABRIC)
			return mp_usage_err("bad target kind '%s': want link, port, switch or plane",
					    kind);
		k = v;
	}
	if (k == MPLANE_FAULT_PLANE)
		rc = parse_plane(f, spec, t);
	else if (!spec)	/* kind is set: run() passes one of the two at least */
		rc = mp_usage_err("'%s' wants a name, such as %s",
				  kind ? kind : "target",
				  k == MPLANE_FAULT_SWITCH ? "p0s1" : "p0l0:s1");
	else
		rc = parse_node_port(f, spec, k == MPLANE_FAULT_PORT, t);
	if (rc == MP_EXIT_OK && k == MPLANE_FAULT_SWITCH &&
	    t->kind != MPLANE_FAULT_SWITCH)
		rc = mp_usage_err("bad target '%s': a switch is a node name, such as p0s1",
				  spec);
	if (rc == MP_EXIT_OK && k == MPLANE_FAULT_LINK &&
	    t->kind != MPLANE_FAULT_LINK)
		rc = mp_usage_err("bad target '%s': a link is NODE:PORT, such as p0l0:s1",
				  spec);
	if (rc != MP_EXIT_OK)
		return rc;
	if (alloc_ports(f, t))
		return MP_EXIT_ERR;
	switch (t->kind) {
	case MPLANE_FAULT_LINK:
		add_port(t, t->node, t->port, max);
		add_port(t, f->nodes[t->node].ports[t->port].peer_node,
			 f->nodes[t->node].ports[t->port].peer_port, max);
		break;
	case MPLANE_FAULT_PORT:
		add_port(t, t->node, t->port, max);
		break;
	case MPLANE_FAULT_SWITCH:
		add_node(f, t, t->node, max);
		break;
	default:
		add_plane(f, t, t->plane, max);
	}
	return MP_EXIT_OK;
}

int fault_target_fabric(const struct mp_fabric *f, struct fault_target *t)
{
	unsigned int i, max = count_ports(f) + 1;

	memset(t, 0, sizeof(*t));
	t->kind = MPLANE_FAULT_FABRIC;
	t->node = t->port = -1;
	t->plane = -1;
	snprintf(t->name, sizeof(t->name), "fabric");
	if (alloc_ports(f, t))
		return MP_EXIT_ERR;
	for (i = 0; i < f->nnodes; i++)
		add_node(f, t, i, max);
	return MP_EXIT_OK;
}

void fault_target_free(struct fault_target *t)
{
	free(t->ports);
	t->ports = NULL;
	t->nports = 0;
}
