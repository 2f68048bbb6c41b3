// SPDX-License-Identifier: GPL-2.0
/*
 * The state file of a fabric, /run/mplane/fabric/PREFIX.json: what 'up'
 * built, for 'show' and for other tools (lib/mp_fabric.c reads it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "fabric.h"
#include "mp_names.h"

static void add_str(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, json_object_new_string(s));
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/* "loss_pct": 0.5, written as people write it (no 0.50000000000000001). */
static void add_pct(struct json_object *o, const char *key, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%g", v);
	json_object_object_add(o, key, json_object_new_double_s(v, buf));
}

static struct json_object *port_json(const struct mp_fabric_port *p)
{
	struct json_object *o = json_object_new_object();
	char buf[INET6_ADDRSTRLEN + 8];

	add_str(o, "ifname", p->ifname);
	add_int(o, "ifindex", p->ifindex);
	add_str(o, "mac", mp_fabric_mac_str(p->mac, buf));
	add_str(o, "peer", p->peer);
	add_str(o, "peer_ifname", p->peer_ifname);
	add_int(o, "rate_bps", p->rate_bps);
	add_str(o, "ipv4", fabric_addr_str(AF_INET, &p->addr4, p->plen4, buf,
					   sizeof(buf)));
	add_str(o, "ipv6", fabric_addr_str(AF_INET6, &p->addr6, p->plen6,
					   buf, sizeof(buf)));
	add_int(o, "delay_us", p->delay_us);
	add_pct(o, "loss_pct", p->loss_pct);
	add_int(o, "buffer_us", p->buffer_us);
	return o;
}

/*
 * A host also has its mplane addresses, which the fabric routes to it,
 * and its mp0 (null when it has none).
 */
static void add_host(struct json_object *o, const struct mp_fabric_node *n)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct json_object *mp0 = NULL;

	add_str(o, "mplane_ipv4", fabric_addr_str(AF_INET, &n->mplane4, 32,
						  buf, sizeof(buf)));
	add_str(o, "mplane_ipv6", fabric_addr_str(AF_INET6, &n->mplane6, 128,
						  buf, sizeof(buf)));
	if (n->mp0) {
		mp0 = json_object_new_object();
		add_str(mp0, "ifname", FABRIC_MP0_NAME);
		add_int(mp0, "ifindex", n->mp0_ifindex);
		add_str(mp0, "policy", n->mp0_policy);
	}
	json_object_object_add(o, "mp0", mp0);
}

static struct json_object *node_json(const struct mp_fabric_node *n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ports = json_object_new_array();
	unsigned int i;

	add_str(o, "name", n->name);
	add_str(o, "netns", n->netns);
	add_str(o, "role", mp_fabric_role_name(n->role));
	add_int(o, "plane", n->plane);
	add_int(o, "index", n->index);
	if (n->role == MP_NODE_HOST)
		add_host(o, n);
	for (i = 0; i < n->nports; i++)
		json_object_array_add(ports, port_json(&n->ports[i]));
	json_object_object_add(o, "ports", ports);
	return o;
}

struct json_object *fabric_state_json(const struct mp_fabric *f)
{
	struct json_object *o = json_object_new_object();
	struct json_object *nodes = json_object_new_array();
	unsigned int i;

	add_str(o, "prefix", f->prefix);
	add_int(o, "plane_count", f->planes);
	add_int(o, "leaf_count", f->leaves);
	add_int(o, "spine_count", f->spines);
	add_int(o, "host_count", f->hosts);
	add_int(o, "rate_bps", f->rate_bps);
	add_int(o, "host_rate_bps", f->host_rate_bps);
	add_int(o, "uplink_rate_bps", f->uplink_rate_bps);
	add_int(o, "delay_us", f->delay_us);
	add_pct(o, "loss_pct", f->loss_pct);
	add_int(o, "buffer_us", f->buffer_us);
	json_object_object_add(o, "has_mp0", json_object_new_boolean(f->mp0));
	if (!f->mp0 && f->mp0_missing[0])
		add_str(o, "mp0_missing", f->mp0_missing);
	add_int(o, "probe_interval_us", f->probe_interval_us);
	json_object_object_add(o, "host_multipath",
			       json_object_new_boolean(f->host_multipath));
	json_object_object_add(o, "host_bond",
			       json_object_new_boolean(f->host_bond));
	add_str(o, "cc_algo", mp_name(&mp_cc_names, f->cc));
	for (i = 0; i < f->nnodes; i++)
		json_object_array_add(nodes, node_json(&f->nodes[i]));
	json_object_object_add(o, "nodes", nodes);
	return o;
}

/* Written aside and renamed: a reader never sees half a file. */
int fabric_state_write(const struct mp_fabric *f)
{
	struct json_object *o = fabric_state_json(f);
	char path[256], tmp[272];
	int err = 0;

	mp_fabric_state_path(f->prefix, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE))
		err = errno ? -errno : -EIO;
	else if (rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	json_object_put(o);
	return err;
}
