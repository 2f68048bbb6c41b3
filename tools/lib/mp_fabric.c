// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading the state file of a fabric.  The file is ours (written by
 * 'mplanectl fabric up'), but it is read by other tools that must not
 * crash on one edited by hand: every field is checked for its type and
 * size, and a bad one makes the whole load fail with -EBADMSG.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <json-c/json.h>

#include "mp_fabric.h"
#include "mp_names.h"

static const char *const role_names[] = {
	[MP_NODE_HOST]	= "host",
	[MP_NODE_LEAF]	= "leaf",
	[MP_NODE_SPINE]	= "spine",
};

const char *mp_fabric_role_name(enum mp_node_role role)
{
	return (unsigned int)role < 3 ? role_names[role] : "?";
}

int mp_fabric_role_parse(const char *word)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(word, role_names[i]))
			return i;
	return -1;
}

int mp_fabric_state_path(const char *prefix, char *buf, unsigned int size)
{
	return snprintf(buf, size, MP_FABRIC_RUN_DIR "/%s.json", prefix);
}

char *mp_fabric_mac_str(const unsigned char *mac, char *buf)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x",
		mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

int mp_fabric_mac_parse(const char *s, unsigned char *mac)
{
	unsigned int b[6];
	char end;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &end) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
	return 0;
}

/* The getters fail (-1) on a missing key or a value of another type. */
static int get_str(struct json_object *o, const char *key, char *buf,
		   size_t size)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	if (strlen(s) >= size)
		return -1;
	strcpy(buf, s);
	return 0;
}

static int get_int(struct json_object *o, const char *key, long long min,
		   long long max, long long *val)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	*val = json_object_get_int64(v);
	return *val < min || *val > max ? -1 : 0;
}

static int get_uint(struct json_object *o, const char *key, unsigned int max,
		    unsigned int *val)
{
	long long v;

	if (get_int(o, key, 0, max, &v))
		return -1;
	*val = v;
	return 0;
}

/*
 * A key renamed since the first state files ("planes" is "plane_count",
 * as a count is in every command's JSON): @key, else @old where only it
 * is there, so that a fabric built by an older mplanectl is still shown
 * and taken down.
 */
static const char *renamed(struct json_object *o, const char *key,
			   const char *old)
{
	return json_object_object_get_ex(o, key, NULL) ? key : old;
}

/* Keys added after the first state files: absent is @def. */
static int get_opt_int(struct json_object *o, const char *key, long long min,
		       long long max, long long def, long long *val)
{
	*val = def;
	return json_object_object_get_ex(o, key, NULL) ?
	       get_int(o, key, min, max, val) : 0;
}

static int get_opt_pct(struct json_object *o, const char *key, double *val)
{
	struct json_object *v;

	*val = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return -1;
	*val = json_object_get_double(v);
	return *val < 0 || *val > 100 ? -1 : 0;
}

/* "10.100.3.2/24" or "fd10:0:3::2/64" into an address and its length. */
static int get_prefix(struct json_object *o, const char *key, int family,
		      void *addr, unsigned char *plen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	long len;

	if (get_str(o, key, buf, sizeof(buf)))
		return -1;
	slash = strchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	len = strtol(slash + 1, &end, 10);
	if (*end || len < 0 || len > (family == AF_INET ? 32 : 128))
		return -1;
	*plen = len;
	return inet_pton(family, buf, addr) == 1 ? 0 : -1;
}

static int load_port(struct json_object *o, struct mp_fabric_port *p)
{
	char mac[32];
	long long v;

	if (get_str(o, "ifname", p->ifname, sizeof(p->ifname)) ||
	    get_int(o, "ifindex", 0, 0x7fffffff, &v))
		return -1;
	p->ifindex = v;
	if (get_str(o, "mac", mac, sizeof(mac)) ||
	    mp_fabric_mac_parse(mac, p->mac) ||
	    get_str(o, "peer", p->peer, sizeof(p->peer)) ||
	    get_str(o, "peer_ifname", p->peer_ifname, sizeof(p->peer_ifname)) ||
	    get_int(o, "rate_bps", 0, 0x7fffffffffffffffLL, &v))
		return -1;
	p->rate_bps = v;
	if (get_prefix(o, "ipv4", AF_INET, &p->addr4, &p->plen4) ||
	    get_prefix(o, "ipv6", AF_INET6, &p->addr6, &p->plen6) ||
	    get_opt_int(o, "delay_us", 0, 0xffffffffLL, 0, &v))
		return -1;
	p->delay_us = v;
	/* Files from before --buffer: the one buffer there was. */
	if (get_opt_int(o, "buffer_us", 0, 0xffffffffLL, MP_FABRIC_DEF_BUFFER_US, &v))
		return -1;
	p->buffer_us = v;
	return get_opt_pct(o, "loss_pct", &p->loss_pct);
}

/* A host's "mp0": null (or absent) for none, else its ifindex and policy. */
static int load_mp0(struct json_object *o, struct mp_fabric_node *n)
{
	struct json_object *mp0;
	long long v;

	if (!json_object_object_get_ex(o, "mp0", &mp0) || !mp0)
		return 0;
	if (!json_object_is_type(mp0, json_type_object) ||
	    get_int(mp0, "ifindex", 1, 0x7fffffff, &v) ||
	    get_str(mp0, "policy", n->mp0_policy, sizeof(n->mp0_policy)))
		return -1;
	n->mp0 = true;
	n->mp0_ifindex = v;
	return 0;
}

/* A host's mplane addresses, and its mp0. */
static int load_host(struct json_object *o, struct mp_fabric_node *n)
{
	unsigned char plen;

	if (get_prefix(o, "mplane_ipv4", AF_INET, &n->mplane4, &plen) ||
	    get_prefix(o, "mplane_ipv6", AF_INET6, &n->mplane6, &plen))
		return -1;
	return load_mp0(o, n);
}

static int load_node(struct json_object *o, struct mp_fabric_node *n)
{
	struct json_object *ports;
	char role[16];
	long long v;
	size_t i;

	if (get_str(o, "name", n->name, sizeof(n->name)) ||
	    get_str(o, "netns", n->netns, sizeof(n->netns)) ||
	    get_str(o, "role", role, sizeof(role)) ||
	    mp_fabric_role_parse(role) < 0)
		return -1;
	n->role = mp_fabric_role_parse(role);
	if (get_int(o, "plane", -1, 255, &v))
		return -1;
	n->plane = v;
	if (get_int(o, "index", 0, 0xffff, &v))
		return -1;
	n->index = v;
	if (n->role == MP_NODE_HOST && load_host(o, n))
		return -1;
	if (!json_object_object_get_ex(o, "ports", &ports) ||
	    !json_object_is_type(ports, json_type_array))
		return -1;
	n->nports = json_object_array_length(ports);
	n->ports = calloc(n->nports ? n->nports : 1, sizeof(*n->ports));
	if (!n->ports)
		return -ENOMEM;
	for (i = 0; i < n->nports; i++)
		if (load_port(json_object_array_get_idx(ports, i),
			      &n->ports[i]))
			return -1;
	return 0;
}

int mp_fabric_port_index(const struct mp_fabric_node *n, const char *ifname)
{
	unsigned int i;

	for (i = 0; i < n->nports; i++)
		if (!strcmp(n->ports[i].ifname, ifname))
			return i;
	return -1;
}

int mp_fabric_link_peers(struct mp_fabric *f)
{
	const struct mp_fabric_node *peer;
	struct mp_fabric_port *p;
	unsigned int i, j;

	for (i = 0; i < f->nnodes; i++) {
		for (j = 0; j < f->nodes[i].nports; j++) {
			p = &f->nodes[i].ports[j];
			peer = mp_fabric_node(f, p->peer);
			if (!peer)
				return -1;
			p->peer_node = peer - f->nodes;
			p->peer_port = mp_fabric_port_index(peer, p->peer_ifname);
			if (p->peer_port < 0)
				return -1;
		}
	}
	return 0;
}

/* What came after the first state files, with what it meant before. */
static int load_defaults(struct json_object *o, struct mp_fabric *f)
{
	struct json_object *mp0;
	const char *cc_key;
	long long v;

	if (get_opt_int(o, "host_rate_bps", 0, 0x7fffffffffffffffLL,
			f->rate_bps, &v))
		return -1;
	f->host_rate_bps = v;
	if (get_opt_int(o, "uplink_rate_bps", 0, 0x7fffffffffffffffLL,
			f->rate_bps, &v))
		return -1;
	f->uplink_rate_bps = v;
	if (get_opt_int(o, "delay_us", 0, 0xffffffffLL, 0, &v))
		return -1;
	f->delay_us = v;
	if (get_opt_int(o, "buffer_us", 0, 0xffffffffLL, MP_FABRIC_DEF_BUFFER_US, &v))
		return -1;
	f->buffer_us = v;
	if (get_opt_int(o, "probe_interval_us", 0, 0xffffffffLL, 0, &v))
		return -1;
	f->probe_interval_us = v;
	if (json_object_object_get_ex(o, renamed(o, "has_mp0", "mp0"), &mp0)) {
		if (!json_object_is_type(mp0, json_type_boolean))
			return -1;
		f->mp0 = json_object_get_boolean(mp0);
	}
	if (json_object_object_get_ex(o, "host_multipath", &mp0)) {
		if (!json_object_is_type(mp0, json_type_boolean))
			return -1;
		f->host_multipath = json_object_get_boolean(mp0);
	}
	if (json_object_object_get_ex(o, "host_bond", &mp0)) {
		if (!json_object_is_type(mp0, json_type_boolean))
			return -1;
		f->host_bond = json_object_get_boolean(mp0);
	}
	/* "cc_algo": "off", "dcqcn" or "notify"; absent in files from before it. */
	cc_key = renamed(o, "cc_algo", "cc");
	if (json_object_object_get_ex(o, cc_key, NULL)) {
		uint32_t algo;
		char cc[16];

		if (get_str(o, cc_key, cc, sizeof(cc)))
			return -1;
		if (mp_name_parse(&mp_cc_names, cc, &algo))
			return -1;
		f->cc = algo;
	}
	if (json_object_object_get_ex(o, "mp0_missing", NULL) &&
	    get_str(o, "mp0_missing", f->mp0_missing, sizeof(f->mp0_missing)))
		return -1;
	return get_opt_pct(o, "loss_pct", &f->loss_pct);
}

static int load_fabric(struct json_object *o, struct mp_fabric *f)
{
	struct json_object *nodes;
	long long rate;
	size_t i;
	int err;

	if (get_str(o, "prefix", f->prefix, sizeof(f->prefix)) ||
	    get_uint(o, renamed(o, "plane_count", "planes"), 255, &f->planes) ||
	    get_uint(o, renamed(o, "leaf_count", "leaves"), 255, &f->leaves) ||
	    get_uint(o, renamed(o, "spine_count", "spines"), 255, &f->spines) ||
	    get_uint(o, renamed(o, "host_count", "hosts"), 255, &f->hosts) ||
	    get_int(o, "rate_bps", 0, 0x7fffffffffffffffLL, &rate))
		return -1;
	f->rate_bps = rate;
	if (load_defaults(o, f))
		return -1;
	if (!json_object_object_get_ex(o, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array))
		return -1;
	f->nnodes = json_object_array_length(nodes);
	f->nodes = calloc(f->nnodes ? f->nnodes : 1, sizeof(*f->nodes));
	if (!f->nodes)
		return -ENOMEM;
	for (i = 0; i < f->nnodes; i++) {
		err = load_node(json_object_array_get_idx(nodes, i),
				&f->nodes[i]);
		if (err)
			return err;
	}
	return mp_fabric_link_peers(f);
}

int mp_fabric_load(const char *prefix, struct mp_fabric *f)
{
	char path[256];

	memset(f, 0, sizeof(*f));
	if (mp_fabric_state_path(prefix, path, sizeof(path)) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return mp_fabric_load_file(path, f);
}

int mp_fabric_load_file(const char *path, struct mp_fabric *f)
{
	struct json_object *o;
	FILE *file;
	int err;

	memset(f, 0, sizeof(*f));
	/* json_object_from_file() tells no errno: look first. */
	file = fopen(path, "r");
	if (!file)
		return -errno;
	fclose(file);
	o = json_object_from_file(path);
	if (!o)
		return -EBADMSG;
	err = load_fabric(o, f);
	json_object_put(o);
	if (err) {
		mp_fabric_free(f);
		return err == -ENOMEM ? err : -EBADMSG;
	}
	return 0;
}

void mp_fabric_free(struct mp_fabric *f)
{
	unsigned int i;

	if (f->nodes)
		for (i = 0; i < f->nnodes; i++)
			free(f->nodes[i].ports);
	free(f->nodes);
	f->nodes = NULL;
	f->nnodes = 0;
}

const struct mp_fabric_node *mp_fabric_node(const struct mp_fabric *f,
					    const char *name)
{
	unsigned int i;

	for (i = 0; i < f->nnodes; i++)
		if (!strcmp(f->nodes[i].name, name))
			return &f->nodes[i];
	return NULL;
}

const struct mp_fabric_node *mp_fabric_host(const struct mp_fabric *f,
					    unsigned int host)
{
	unsigned int i;

	for (i = 0; i < f->nnodes; i++)
		if (f->nodes[i].role == MP_NODE_HOST &&
		    f->nodes[i].index == (int)host)
			return &f->nodes[i];
	return NULL;
}

/* The host @host, when a workload can reach it: with mp0, or a rail. */
static const struct mp_fabric_node *reachable(const struct mp_fabric *f,
					      unsigned int host)
{
	const struct mp_fabric_node *n = mp_fabric_host(f, host);

	return n && (n->mp0 || n->nports) ? n : NULL;
}

/* The host's mplane addresses are its own (on mp0, lo or its bond), or
 * it has only its rails, of which plane 0's is its first port (r0). */
static bool owns_mplane(const struct mp_fabric *f,
			const struct mp_fabric_node *n)
{
	return n->mp0 || f->host_multipath || f->host_bond;
}

int mp_fabric_host_addr4(const struct mp_fabric *f, unsigned int host,
			 struct in_addr *addr)
{
	const struct mp_fabric_node *n = reachable(f, host);

	if (n)
		*addr = owns_mplane(f, n) ? n->mplane4 :
			n->ports[0].addr4;
	return n ? 0 : -ENOENT;
}

int mp_fabric_host_addr6(const struct mp_fabric *f, unsigned int host,
			 struct in6_addr *addr)
{
	const struct mp_fabric_node *n = reachable(f, host);

	if (n)
		*addr = owns_mplane(f, n) ? n->mplane6 :
			n->ports[0].addr6;
	return n ? 0 : -ENOENT;
}
