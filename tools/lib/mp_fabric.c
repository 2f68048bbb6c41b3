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
	    get_prefix(o, "ipv6", AF_INET6, &p->addr6, &p->plen6))
		return -1;
	return 0;
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

static int load_fabric(struct json_object *o, struct mp_fabric *f)
{
	struct json_object *nodes;
	long long rate;
	size_t i;
	int err;

	if (get_str(o, "prefix", f->prefix, sizeof(f->prefix)) ||
	    get_uint(o, "planes", 255, &f->planes) ||
	    get_uint(o, "leaves", 255, &f->leaves) ||
	    get_uint(o, "spines", 255, &f->spines) ||
	    get_uint(o, "hosts", 255, &f->hosts) ||
	    get_int(o, "rate_bps", 0, 0x7fffffffffffffffLL, &rate))
		return -1;
	f->rate_bps = rate;
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
	struct json_object *o;
	char path[256];
	FILE *file;
	int err;

	memset(f, 0, sizeof(*f));
	if (mp_fabric_state_path(prefix, path, sizeof(path)) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
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
