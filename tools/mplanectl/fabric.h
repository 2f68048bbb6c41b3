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

/* "100mbit" (tc units) into bits per second: MP_EXIT_OK or _USAGE. */
int fabric_rate_arg(const char *opt, const char *arg, uint64_t *bps);

/* "100mbit", "1.5gbit", for people. */
char *fabric_rate_str(uint64_t bps, char *buf, size_t size);

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
};

int fabric_build_netns(struct fabric_build *b);
int fabric_build_links(struct fabric_build *b);
int fabric_build_config(struct fabric_build *b);
/* "fabric up: WHAT I/N" on stderr, in place on a terminal. */
void fabric_progress(const struct fabric_build *b, const char *what,
		     unsigned int i, unsigned int n);

struct mp_nlbatch;
/*
 * Queue what a port is given by 'fabric up' but its qdiscs: up, its
 * addresses, neighbours for the far end (fabric_config.c).  What the
 * kernel takes away when the port goes down comes back with it and the
 * node's routes ('fabric fault').
 */
void fabric_config_port(struct mp_nlbatch *nb, const struct mp_fabric *f,
			const struct mp_fabric_port *p);
/* Queue the routes of node @n (fabric_routes.c). */
void fabric_routes(struct mp_nlbatch *nb, const struct mp_fabric *f,
		   const struct mp_fabric_node *n);
/* Queue a root tbf at the port's rate on it (fabric_tbf.c). */
void fabric_tbf(struct mp_nlbatch *nb, const struct mp_fabric_port *p);
/* tbf's burst and limit for @rate_bps, in bytes. */
uint32_t fabric_tbf_burst(uint64_t rate_bps);
uint32_t fabric_tbf_limit(uint64_t rate_bps);

#endif /* MPLANECTL_FABRIC_H */
