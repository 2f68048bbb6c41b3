/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A test fabric built by 'mplanectl fabric up': hosts with one rail per
 * plane, and per plane a leaf-spine of routers, each node in its own
 * network namespace.  The builder writes the state file
 * /run/mplane/fabric/PREFIX.json; other tools (the BPF loader) read it
 * back with mp_fabric_load().  Documentation/fabric.md has the layout.
 */
#ifndef MP_FABRIC_H
#define MP_FABRIC_H

#include <netinet/in.h>

#define MP_FABRIC_RUN_DIR	"/run/mplane/fabric"
#define MP_FABRIC_PIN_DIR	"/sys/fs/bpf/mplane/fabric"
#define MP_FABRIC_DEF_PREFIX	"mpf"

enum mp_node_role { MP_NODE_HOST, MP_NODE_LEAF, MP_NODE_SPINE };

struct mp_fabric_port {
	char ifname[16];
	int ifindex;			/* in the node's namespace; 0: unknown */
	unsigned char mac[6];
	char peer[32];			/* node name at the other end */
	char peer_ifname[16];
	unsigned long long rate_bps;
	/* Added to the agreed API: the port's addresses, and where its peer
	 * is in mp_fabric.nodes (filled by mp_fabric_load() too). */
	struct in_addr addr4;
	unsigned char plen4;
	struct in6_addr addr6;
	unsigned char plen6;
	int peer_node;
	int peer_port;
};

struct mp_fabric_node {
	char name[32];			/* "h3", "p0l1", "p1s0" */
	char netns[64];			/* "PREFIX-" and the name */
	enum mp_node_role role;
	int plane;			/* -1 for hosts */
	int index;			/* H, L or S */
	unsigned int nports;
	struct mp_fabric_port *ports;
};

struct mp_fabric {
	char prefix[32];
	unsigned int planes, leaves, spines, hosts;
	unsigned long long rate_bps;
	unsigned int nnodes;
	struct mp_fabric_node *nodes;
};

/* The state of fabric @prefix into @f (free it with mp_fabric_free()):
 * 0, -ENOENT when there is no such fabric, -EBADMSG for a state file
 * that does not parse, or another negative errno. */
int mp_fabric_load(const char *prefix, struct mp_fabric *f);
void mp_fabric_free(struct mp_fabric *f);

/* The node called @name ("h3"), or NULL. */
const struct mp_fabric_node *mp_fabric_node(const struct mp_fabric *f,
					    const char *name);

/* The index in @n->ports of the port called @ifname, or -1. */
int mp_fabric_port_index(const struct mp_fabric_node *n, const char *ifname);

/* Fill peer_node and peer_port of every port from the names of its
 * peer: 0, or -1 when one names a node or port that is not there. */
int mp_fabric_link_peers(struct mp_fabric *f);

/* "host", "leaf", "spine"; and back (-1 for an unknown word). */
const char *mp_fabric_role_name(enum mp_node_role role);
int mp_fabric_role_parse(const char *word);

/* "/run/mplane/fabric/PREFIX.json" into @buf; the length, as snprintf. */
int mp_fabric_state_path(const char *prefix, char *buf, unsigned int size);

/* "02:01:03:00:00:05" into @buf (at least 18 bytes), and back (0/-1). */
char *mp_fabric_mac_str(const unsigned char *mac, char *buf);
int mp_fabric_mac_parse(const char *s, unsigned char *mac);

#endif /* MP_FABRIC_H */
