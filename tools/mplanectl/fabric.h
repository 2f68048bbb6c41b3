/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the 'mplanectl fabric' commands share: the size of a fabric and
 * its limits, the plan (names, addresses and MACs of every node and
 * port, Documentation/fabric.md), and finding a fabric's leftovers.
 */
#ifndef MPLANECTL_FABRIC_H
#define MPLANECTL_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>

#include "mp_fabric.h"
#include "mp_opt.h"

/* The subcommands of "fabric", one file each. */
int fabric_up_main(int argc, char **argv);
int fabric_down_main(int argc, char **argv);
int fabric_show_main(int argc, char **argv);
int fabric_exec_main(int argc, char **argv);
int fabric_fault_main(int argc, char **argv);

/*
 * Limits, from the addressing plan: a host number is one byte of
 * 10.(100+P).H.2 and 10.99.H.1, a plane one of 10.(200+P).L.(2S), and a
 * spine S needs 2S+1 <= 255 in the same address.
 */
#define FABRIC_MAX_HOSTS	250
#define FABRIC_MAX_PLANES	16
#define FABRIC_MAX_SPINES	128
#define FABRIC_MIN_RATE		10000ULL		/* 10kbit */
#define FABRIC_MAX_RATE		100000000000ULL		/* 100gbit */
#define FABRIC_DEF_RATE		100000000ULL		/* 100mbit */
/* Network namespace names are kept to device-name size (IFNAMSIZ). */
#define FABRIC_NAME_MAX		15

/* "--prefix NAME", which every command takes. */
#define FABRIC_PREFIX_OPTION	{ "prefix", required_argument, NULL, 'p' }
#define FABRIC_PREFIX_HELP \
"  -p, --prefix NAME  the fabric's name, which starts the name of each of\n" \
"                     its namespaces (default " MP_FABRIC_DEF_PREFIX "); letters, digits\n" \
"                     and '_'\n"

/* @arg as a fabric prefix into @prefix: MP_EXIT_OK or MP_EXIT_USAGE. */
int fabric_prefix_arg(const char *arg, char *prefix, size_t size);

/* The size of a prefix's buffer in a command's settings. */
#define FABRIC_PREFIX_SIZE	32

/* An mp_opt parser: @arg as a prefix into a char[FABRIC_PREFIX_SIZE]. */
int fabric_prefix_opt(const char *opt, const char *arg, void *field);

/* "--prefix NAME" in an option table, into @member of @type. */
#define FABRIC_PREFIX_OPT(type, member)					\
	{ "prefix", 'p', MP_OPT_CUSTOM, MP_OPT_AT(type, member), "NAME",	\
	  "the fabric's name, which starts the name of each of its namespaces; letters, digits and '_'", \
	  .parse = fabric_prefix_opt, .def = MP_FABRIC_DEF_PREFIX }

/* The settings and option table of a command whose one option is it. */
struct fabric_prefix_settings {
	char prefix[FABRIC_PREFIX_SIZE];
};

extern const struct mp_opt fabric_prefix_only_opts[];

/* "100mbit" (tc units) into bits per second: MP_EXIT_OK or _USAGE. */
int fabric_rate_arg(const char *opt, const char *arg, uint64_t *bps);

/* "100mbit", "1.5gbit", for people. */
char *fabric_rate_str(uint64_t bps, char *buf, size_t size);

/* netem's range here: a delay of 0 to 1 s, a loss of 0 to 100 percent. */
#define FABRIC_MAX_DELAY_US	1000000U

/* A port's buffer (tbf's limit), as time at the port's rate on top of
 * its burst: 1 ms to 1 s, MP_FABRIC_DEF_BUFFER_US by default. */
#define FABRIC_MIN_BUFFER_US	1000U
#define FABRIC_MAX_BUFFER_US	1000000U

/* With --cc dcqcn, what every switch port holds each packet for, when
 * no delay is asked of it (fabric_shape.c says why). */
#define FABRIC_CC_HOLD_US	1U

/*
 * "1ms", "250us", "0.5s" (a unit is needed) into microseconds, from
 * @min_us to @max_us: MP_EXIT_OK or MP_EXIT_USAGE.
 */
int fabric_time_arg(const char *opt, const char *arg, uint64_t min_us,
		    uint64_t max_us, uint64_t *us);

/* "1%", "0.5%" into a percentage: MP_EXIT_OK or MP_EXIT_USAGE. */
int fabric_loss_arg(const char *opt, const char *arg, double *pct);

/* "1ms", "250us", and "2%" for people. */
char *fabric_time_str(uint64_t us, char *buf, size_t size);
char *fabric_loss_str(double pct, char *buf, size_t size);

/* Ports of @f, or only those with netem when @netem. */
unsigned int fabric_count_ports(const struct mp_fabric *f, bool netem);
/* "16 veth pairs at 20mbit to 50mbit, netem on 4 ports", for people. */
char *fabric_links_str(const struct mp_fabric *f, char *buf, size_t size);
/* "mp0 on 4 hosts (flowlet)", or "no mp0 (--no-mp0)". */
char *fabric_mp0_str(const struct mp_fabric *f, char *buf, size_t size);

/* True for a node name of the plan: h<H>, p<P>l<L> or p<P>s<S>. */
bool fabric_node_name_ok(const char *name);

/*
 * Call @cb with the node name of every namespace of /run/netns that
 * belongs to fabric @prefix (PREFIX-<node name>): the number found, or
 * a negative errno (a missing /run/netns is none).
 */
int fabric_scan_netns(const char *prefix,
		      void (*cb)(const char *netns, void *data), void *data);

/* The node name of the longest name of a fabric of this size. */
unsigned int fabric_longest_node_name(unsigned int planes,
				      unsigned int leaves,
				      unsigned int spines, unsigned int hosts);

/*
 * Fill @f (prefix, sizes and rate already set) with every node and port
 * of the plan.  0 or -ENOMEM.  Node order: hosts, then per plane its
 * leaves and its spines.
 */
int fabric_plan(struct mp_fabric *f);
unsigned int fabric_leaf_of(const struct mp_fabric *f, unsigned int host);
unsigned int fabric_leaf_node(const struct mp_fabric *f, unsigned int plane,
			      unsigned int leaf);
unsigned int fabric_spine_node(const struct mp_fabric *f, unsigned int plane,
			       unsigned int spine);

/* A host's mplane addresses, 10.99.H.1 and fd99::H:1. */
void fabric_mplane_addr4(unsigned int host, struct in_addr *a);
void fabric_mplane_addr6(unsigned int host, struct in6_addr *a);
/* "ADDR/LEN" of a port's addresses, for people and the state file. */
char *fabric_addr_str(int family, const void *addr, unsigned int plen,
		      char *buf, size_t size);

/*
 * How the links of a fabric are shaped, as the command line and the
 * topology file ask (Documentation/fabric.md, "Shaping").  A rate of 0,
 * a delay or loss below 0 is "not given": the link takes the next less
 * specific value, in this order: the link's own (links[]), its plane's
 * (plane_rates), its role's (host_rate, uplink_rate), every link's.
 */
struct fabric_rates {
	uint64_t host_bps;		/* host-leaf links */
	uint64_t uplink_bps;		/* leaf-spine links */
};

/* Room for naming a value in a message: "links[2] in FILE". */
#define FABRIC_WHAT_MAX		320

struct fabric_link_spec {
	char what[FABRIC_WHAT_MAX];	/* "links[2] in FILE", for messages */
	char node[32];
	char port[16];
	bool out_only;			/* "direction": "out": one end only */
	uint64_t rate_bps;
	int64_t delay_us;
	double loss_pct;
	int64_t buffer_us;
};

struct fabric_spec {
	uint64_t rate_bps;		/* every link */
	struct fabric_rates role;
	struct fabric_rates plane[FABRIC_MAX_PLANES];
	char plane_what[FABRIC_MAX_PLANES][FABRIC_WHAT_MAX];
	int64_t delay_us;
	double loss_pct;
	int64_t buffer_us;
	unsigned int nlinks;
	struct fabric_link_spec *links;
};

/* An empty spec: nothing given. */
void fabric_spec_init(struct fabric_spec *s);
void fabric_spec_free(struct fabric_spec *s);

struct json_object;
/*
 * The topology file's "plane_rates" and "links" (@v, from @file) into
 * @s: MP_EXIT_OK or MP_EXIT_USAGE, with a message that names the key.
 */
int fabric_spec_plane_rates(struct fabric_spec *s, struct json_object *v,
			    const char *file);
int fabric_spec_links(struct fabric_spec *s, struct json_object *v,
		      const char *file);

/*
 * Give every port of the planned @f its rate, delay and loss from @s,
 * and @f its defaults: MP_EXIT_OK, or MP_EXIT_USAGE when @s names a
 * plane, node or port that @f does not have.
 */
int fabric_shape(struct mp_fabric *f, const struct fabric_spec *s);

/* Write the state file of @f atomically: 0 or a negative errno. */
int fabric_state_write(const struct mp_fabric *f);
/* The state of @f as JSON, as in the state file. */
struct json_object *fabric_state_json(const struct mp_fabric *f);

/* What fabric_destroy() removed. */
struct fabric_removed {
	unsigned int netns;
	unsigned int pids;
	bool state;
	bool pins;
};

/*
 * Remove everything of fabric @prefix: stop the processes of its pid
 * files, delete its namespaces, its BPF pins and its state file.  Goes
 * on past failures (reported); 0 or the first negative errno.
 */
int fabric_destroy(const char *prefix, struct fabric_removed *rm);

/*
 * A fabric being built by 'up', in three steps, each over every node:
 * namespaces (with their sysctls, and a socket opened in each), veth
 * pairs, then each node's addresses, neighbours, qdiscs and routes.
 */
struct fabric_build {
	struct mp_fabric *f;
	int home_fd;			/* the namespace we started in */
	int *nsfd;			/* per node: its namespace */
	struct mp_rtnl *rtnl;		/* per node: a socket inside it */
	bool progress;			/* a progress line on stderr */
	int mp0_policy;			/* enum mplane_policy, -1: the default */
};

int fabric_build_netns(struct fabric_build *b);
int fabric_build_links(struct fabric_build *b);
int fabric_build_config(struct fabric_build *b);
/* A fourth step when f->mp0: mp0 on every host (fabric_mp0.c). */
int fabric_build_mp0(struct fabric_build *b);

/* Whether mplane.ko is loaded, so that hosts can have mp0. */
bool fabric_mp0_available(void);
/* With f->host_bond, a fifth: bond0 over every host's rails
 * (fabric_bond.c), when the bonding driver is loaded. */
int fabric_build_bond(struct fabric_build *b);
bool fabric_bond_available(void);
#define FABRIC_BOND_NAME	"bond0"
#define FABRIC_MP0_NAME		"mp0"
#define FABRIC_DEF_PROBE_US	100000U		/* 100 ms */
#define FABRIC_PROBE_MISSES	3
/* "fabric up: WHAT I/N" on stderr, in place on a terminal. */
void fabric_progress(const struct fabric_build *b, const char *what,
		     unsigned int i, unsigned int n);

struct mp_nlbatch;
struct mp_rtnl;
/*
 * Queue: bring a link up, and add a port's IPv4 or IPv6 address (with
 * nodad) to it (fabric_config.c).
 */
void fabric_link_up(struct mp_nlbatch *nb, int ifindex, const char *name);
/* Queue an RTM_NEWLINK for @ifindex (0: a new link), reported as
 * @fmt with @arg if it fails; the caller adds its attributes. */
struct nlmsghdr *fabric_link_msg(struct mp_nlbatch *nb, uint16_t flags,
				 int ifindex, const char *fmt, const char *arg)
	__attribute__((format(printf, 4, 0)));
/* Send what @nb holds: 0, or the error, with which request of node @n
 * failed said on stderr (fabric_config.c). */
int fabric_flush(struct mp_nlbatch *nb, const struct mp_fabric_node *n);
void fabric_addr(struct mp_nlbatch *nb, const struct mp_fabric_port *p,
		 int family);
/*
 * Queue what a port is given by 'fabric up' but its qdiscs: up, its
 * addresses, neighbours for the far end (fabric_config.c).  What the
 * kernel takes away when the port goes down comes back with it and the
 * node's routes ('fabric fault').
 */
void fabric_config_port(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_port *p);
/*
 * Queue leaf @n's routes to the other leaves' hosts over the spines whose
 * links to both are up: @uplinks[L * spines + S] is leaf L's link to
 * spine S of @n's plane, non-zero when up (fabric_routes.c).
 */
void fabric_leaf_routes_over(struct mp_nlbatch *nb, const struct mp_fabric *f,
			     const struct mp_fabric_node *n,
			     const unsigned char *uplinks);
/* Queue the routes of node @n (fabric_routes.c). */
void fabric_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
		   const struct mp_fabric_node *n);
/* Queue the routes of host @n's mp0, ifindex @mp0 (fabric_routes.c). */
void fabric_mp0_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
		       const struct mp_fabric_node *n, int mp0);
/*
 * Queue host @n's routes to the others' mplane addresses over its bond,
 * ifindex @bond: via its plane-0 leaf port's addresses, on link, whose
 * permanent neighbours (the leaf's MAC, the same in every plane) are
 * queued first (fabric_routes.c).
 */
void fabric_bond_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_node *n, int bond);
/* Queue a permanent neighbour on port @p: port @q's address and MAC. */
void fabric_neigh(struct mp_nlbatch *nb, const struct mp_fabric_port *p,
		  const struct mp_fabric_port *q, int family);
/*
 * Queue the port's qdiscs (fabric_tbf.c): a root tbf at its rate, or,
 * with a delay or loss, a root netem with that tbf as its child.
 */
void fabric_tbf(struct mp_nlbatch *nb, const struct mp_fabric_port *p);
/* The label of a netem request says so: its failure is told apart. */
#define FABRIC_NETEM_LABEL	"netem qdisc"
/* lo is the first device of every namespace. */
#define FABRIC_LO_IFINDEX	1
/* The first failure of @nb, for @who; a missing netem said as such. */
void fabric_qdisc_report(const struct mp_nlbatch *nb, const char *who);
/*
 * Whether netem can be had: one on @r's loopback, removed at once.
 * 0, or a negative errno (reported, for @who).
 */
int fabric_netem_check(struct mp_rtnl *r, const char *who);
/*
 * Queue an fq qdisc as the child of the port's tbf (handle 20:), so that
 * the departure times mp0 gives packets of a paced QP (EDT) hold.
 */
void fabric_fq(struct mp_nlbatch *nb, const struct mp_fabric_port *p);
#define FABRIC_FQ_LABEL		"fq qdisc"
#define FABRIC_FQ_FLOW_LIMIT	10000
/* Whether fq can be had, as fabric_netem_check() for netem. */
int fabric_fq_check(struct mp_rtnl *r, const char *who);
/* tbf's burst for @rate_bps, and its limit for a buffer of @buffer_us
 * at that rate (0: the default), in bytes. */
uint32_t fabric_tbf_burst(uint64_t rate_bps);
uint32_t fabric_tbf_limit(uint64_t rate_bps, unsigned int buffer_us);

#endif /* MPLANECTL_FABRIC_H */
