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

#include <stdbool.h>
#include <netinet/in.h>
#include <linux/mplane.h>

#define MP_FABRIC_RUN_DIR	"/run/mplane/fabric"
#define MP_FABRIC_PIN_DIR	"/sys/fs/bpf/mplane/fabric"
#define MP_FABRIC_DEF_PREFIX	"mpf"
/* A port's buffer where none is asked for (fabric up --buffer). */
#define MP_FABRIC_DEF_BUFFER_US	20000U

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
	/*
	 * netem on what this end sends, when either is not 0: one-way
	 * delay and random loss (Documentation/fabric.md, "Shaping").
	 */
	unsigned int delay_us;
	double loss_pct;
	/* tbf's queue, as time at the port's rate; 0 in plans made by hand:
	 * the default (fabric up's --buffer). */
	unsigned int buffer_us;
};

struct mp_fabric_node {
	char name[32];			/* "h3", "p0l1", "p1s0" */
	char netns[64];			/* "PREFIX-" and the name */
	enum mp_node_role role;
	int plane;			/* -1 for hosts */
	int index;			/* H, L or S */
	unsigned int nports;
	struct mp_fabric_port *ports;
	/*
	 * Hosts only: the mplane addresses (10.99.H.1, fd99::H:1), and the
	 * mp0 that owns them when 'fabric up' made one (with its policy as
	 * it was made: 'mplanectl link set' may have changed it since).
	 */
	struct in_addr mplane4;
	struct in6_addr mplane6;
	bool mp0;
	int mp0_ifindex;
	char mp0_policy[16];
};

struct mp_fabric {
	char prefix[32];
	unsigned int planes, leaves, spines, hosts;
	unsigned long long rate_bps;	/* links without a more specific rate */
	unsigned int nnodes;
	struct mp_fabric_node *nodes;
	/* Added later; a state file without them loads as "none". */
	unsigned long long host_rate_bps;	/* host-leaf links, by default */
	unsigned long long uplink_rate_bps;	/* leaf-spine links, by default */
	unsigned int delay_us;		/* netem on every link, by default */
	double loss_pct;
	unsigned int buffer_us;		/* every port's, by default */
	bool mp0;			/* every host has an mp0 */
	/* No mp0: every host owns its mplane addresses on lo and reaches
	 * the others' over all its rails, one multipath route (the kernel's
	 * ECMP, by an L4 hash): the baseline mp0 is measured against. */
	bool host_multipath;
	/* No mp0: every host bonds its rails (balance-xor, an L3+L4 hash,
	 * miimon), the bond owns its mplane addresses; a host's rails and
	 * the leaf ports facing them have plane 0's MACs in every plane,
	 * as a bond over switches that act as one (MLAG) needs. */
	bool host_bond;
	char mp0_missing[48];		/* why not: "--no-mp0", "mplane.ko ..." */
	unsigned int probe_interval_us;	/* mp0's probes; 0: no peers set */
	uint8_t cc;			/* mp0's enum mplane_cc; with DCQCN,
					 * each host rail has fq under its tbf */
};

/* The state of fabric @prefix into @f (free it with mp_fabric_free()):
 * 0, -ENOENT when there is no such fabric, -EBADMSG for a state file
 * that does not parse, or another negative errno. */
int mp_fabric_load(const char *prefix, struct mp_fabric *f);
void mp_fabric_free(struct mp_fabric *f);

/* As mp_fabric_load(), from the state file @path. */
int mp_fabric_load_file(const char *path, struct mp_fabric *f);

/* The node called @name ("h3"), or NULL. */
const struct mp_fabric_node *mp_fabric_node(const struct mp_fabric *f,
					    const char *name);

/* Host number @host (the H of h<H>), or NULL. */
const struct mp_fabric_node *mp_fabric_host(const struct mp_fabric *f,
					    unsigned int host);

/*
 * The address a workload on another host uses to reach host @host: its
 * mplane address (10.99.H.1, fd99::H:1) when it has mp0, which spreads
 * the traffic over every plane, else its rail address in plane 0
 * (10.100.H.2, fd10:0:H::2), which the fabric routes in plane 0 only.
 * Either is reachable from every other host of the fabric, and the
 * source address the kernel picks for it is the sender's own of the
 * same kind.  0, or -ENOENT when the fabric has no host @host.
 */
int mp_fabric_host_addr4(const struct mp_fabric *f, unsigned int host,
			 struct in_addr *addr);
int mp_fabric_host_addr6(const struct mp_fabric *f, unsigned int host,
			 struct in6_addr *addr);

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
