// SPDX-License-Identifier: GPL-2.0
/*
 * How each link of a fabric is shaped: its rate, and netem's delay and
 * loss.  Every end of every link takes the most specific setting that
 * covers it: its own (the topology file's "links"), its plane's
 * ("plane_rates"), its role's (--host-rate, --uplink-rate), then every
 * link's (--rate, --delay, --loss).  The result is in each port of the
 * plan, so that the builder, the state file and the BPF loader (which
 * models each port's queue from its rate) agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "fabric.h"

void fabric_spec_init(struct fabric_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->delay_us = -1;
	s->loss_pct = -1;
	s->buffer_us = -1;
}

void fabric_spec_free(struct fabric_spec *s)
{
	free(s->links);
	s->links = NULL;
	s->nlinks = 0;
}

static int want_string(struct json_object *v, const char *what)
{
	if (json_object_is_type(v, json_type_string))
		return MP_EXIT_OK;
	return mp_usage_err("bad %s: want a string, such as \"50mbit\", \"1ms\" or \"1%%\"",
			    what);
}

/* The rate @v (a string), called @what in messages. */
static int rate_value(struct json_object *v, const char *what, uint64_t *bps)
{
	if (want_string(v, what))
		return MP_EXIT_USAGE;
	return fabric_rate_arg(what, json_object_get_string(v), bps);
}

/* {"host_rate": RATE, "uplink_rate": RATE}, either or both. */
static int plane_roles(struct fabric_rates *r, struct json_object *o,
		       const char *what)
{
	char key_what[FABRIC_WHAT_MAX + 32];
	int ret = MP_EXIT_OK;

	json_object_object_foreach(o, key, v) {
		snprintf(key_what, sizeof(key_what), "%s.%s", what, key);
		if (!strcmp(key, "host_rate"))
			ret = rate_value(v, key_what, &r->host_bps);
		else if (!strcmp(key, "uplink_rate"))
			ret = rate_value(v, key_what, &r->uplink_bps);
		else
			ret = mp_usage_err("bad %s: unknown key '%s': want host_rate or uplink_rate",
					   what, key);
		if (ret)
			return ret;
	}
	return MP_EXIT_OK;
}

int fabric_spec_plane_rates(struct fabric_spec *s, struct json_object *v,
			    const char *file)
{
	char what[FABRIC_WHAT_MAX];
	uint64_t plane, bps;
	int ret;

	if (!json_object_is_type(v, json_type_object))
		return mp_usage_err("bad plane_rates in %s: want an object of planes, such as {\"1\": \"50mbit\"}",
				    file);
	json_object_object_foreach(v, key, rate) {
		snprintf(what, sizeof(what), "plane_rates in %s: key", file);
		ret = mp_arg_u64(what, key, 0, FABRIC_MAX_PLANES - 1, &plane);
		if (ret)
			return ret;
		snprintf(what, sizeof(what), "plane_rates.%s in %s", key, file);
		snprintf(s->plane_what[plane], sizeof(s->plane_what[0]), "%s",
			 what);
		if (json_object_is_type(rate, json_type_object)) {
			ret = plane_roles(&s->plane[plane], rate, what);
		} else {
			ret = rate_value(rate, what, &bps);
			s->plane[plane].host_bps = bps;
			s->plane[plane].uplink_bps = bps;
		}
		if (ret)
			return ret;
	}
	return MP_EXIT_OK;
}

static int name_value(struct json_object *v, const char *what, char *buf,
		      size_t size)
{
	if (!json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= size)
		return mp_usage_err("bad %s: want a node or port name, such as \"p0l0\" or \"s1\"",
				    what);
	strcpy(buf, json_object_get_string(v));
	return MP_EXIT_OK;
}

static int direction_value(struct json_object *v, const char *what,
			   bool *out_only)
{
	const char *s = json_object_get_string(v);

	if (json_object_is_type(v, json_type_string) &&
	    (!strcmp(s, "both") || !strcmp(s, "out"))) {
		*out_only = !strcmp(s, "out");
		return MP_EXIT_OK;
	}
	return mp_usage_err("bad %s: want \"both\" (the default) or \"out\" (what the port sends only)",
			    what);
}

/* One key of a links[] entry. */
static int link_key(struct fabric_link_spec *l, const char *key,
		    struct json_object *v)
{
	char what[FABRIC_WHAT_MAX + 32];
	uint64_t us;

	snprintf(what, sizeof(what), "%s: %s", l->what, key);
	if (!strcmp(key, "node"))
		return name_value(v, what, l->node, sizeof(l->node));
	if (!strcmp(key, "port"))
		return name_value(v, what, l->port, sizeof(l->port));
	if (!strcmp(key, "rate"))
		return rate_value(v, what, &l->rate_bps);
	if (!strcmp(key, "direction"))
		return direction_value(v, what, &l->out_only);
	if (want_string(v, what))
		return MP_EXIT_USAGE;
	if (!strcmp(key, "loss"))
		return fabric_loss_arg(what, json_object_get_string(v),
				       &l->loss_pct);
	if (!strcmp(key, "buffer")) {
		if (fabric_time_arg(what, json_object_get_string(v),
				    FABRIC_MIN_BUFFER_US, FABRIC_MAX_BUFFER_US,
				    &us))
			return MP_EXIT_USAGE;
		l->buffer_us = us;
		return MP_EXIT_OK;
	}
	if (strcmp(key, "delay"))
		return mp_usage_err("bad %s: unknown key '%s': want node, port, rate, delay, loss, buffer or direction",
				    l->what, key);
	if (fabric_time_arg(what, json_object_get_string(v), 0,
			    FABRIC_MAX_DELAY_US, &us))
		return MP_EXIT_USAGE;
	l->delay_us = us;
	return MP_EXIT_OK;
}

static int link_entry(struct fabric_link_spec *l, struct json_object *o)
{
	int ret;

	l->delay_us = -1;
	l->loss_pct = -1;
	l->buffer_us = -1;
	if (!json_object_is_type(o, json_type_object))
		return mp_usage_err("bad %s: want an object such as {\"node\": \"p0l0\", \"port\": \"s1\", \"rate\": \"20mbit\"}",
				    l->what);
	json_object_object_foreach(o, key, v) {
		ret = link_key(l, key, v);
		if (ret)
			return ret;
	}
	if (!l->node[0] || !l->port[0])
		return mp_usage_err("bad %s: want both \"node\" and \"port\", the link's end on that node",
				    l->what);
	return MP_EXIT_OK;
}

int fabric_spec_links(struct fabric_spec *s, struct json_object *v,
		      const char *file)
{
	size_t i, n;
	int ret;

	if (!json_object_is_type(v, json_type_array))
		return mp_usage_err("bad links in %s: want an array of links, such as [{\"node\": \"p0l0\", \"port\": \"s1\", \"rate\": \"20mbit\"}]",
				    file);
	n = json_object_array_length(v);
	s->links = calloc(n ? n : 1, sizeof(*s->links));
	if (!s->links)
		return mp_usage_err("links in %s: out of memory", file);
	for (i = 0; i < n; i++) {
		snprintf(s->links[i].what, sizeof(s->links[i].what),
			 "links[%zu] in %s", i, file);
		ret = link_entry(&s->links[i], json_object_array_get_idx(v, i));
		if (ret)
			return ret;
	}
	s->nlinks = n;
	return MP_EXIT_OK;
}

/* The plane a port carries: a host's rail r<P> is in plane P. */
static unsigned int port_plane(const struct mp_fabric_node *n,
			       const struct mp_fabric_port *p)
{
	return n->role == MP_NODE_HOST ? (unsigned int)(p - n->ports) :
					 (unsigned int)n->plane;
}

/* The defaults of every port: its plane's or its role's rate. */
static void shape_defaults(struct mp_fabric *f, const struct fabric_spec *s)
{
	const struct fabric_rates *pr;
	struct mp_fabric_node *n;
	struct mp_fabric_port *p;
	unsigned int i, j;
	bool host_link;
	uint64_t bps;

	for (i = 0; i < f->nnodes; i++) {
		n = &f->nodes[i];
		for (j = 0; j < n->nports; j++) {
			p = &n->ports[j];
			pr = &s->plane[port_plane(n, p)];
			host_link = n->role == MP_NODE_HOST ||
				    f->nodes[p->peer_node].role == MP_NODE_HOST;
			bps = host_link ? pr->host_bps : pr->uplink_bps;
			p->rate_bps = bps ? bps : host_link ? f->host_rate_bps :
							      f->uplink_rate_bps;
			p->delay_us = f->delay_us;
			p->loss_pct = f->loss_pct;
			p->buffer_us = f->buffer_us;
		}
	}
}

static void shape_port(struct mp_fabric_port *p,
		       const struct fabric_link_spec *l)
{
	if (l->rate_bps)
		p->rate_bps = l->rate_bps;
	if (l->delay_us >= 0)
		p->delay_us = l->delay_us;
	if (l->loss_pct >= 0)
		p->loss_pct = l->loss_pct;
	if (l->buffer_us >= 0)
		p->buffer_us = l->buffer_us;
}

static int shape_link(struct mp_fabric *f, const struct fabric_link_spec *l)
{
	const struct mp_fabric_node *n = mp_fabric_node(f, l->node);
	struct mp_fabric_port *p = NULL;
	unsigned int i;

	if (!n)
		return mp_usage_err("bad %s: no node '%s' in this fabric (h<H>, p<P>l<L> or p<P>s<S>)",
				    l->what, l->node);
	for (i = 0; i < n->nports && !p; i++)
		if (!strcmp(n->ports[i].ifname, l->port))
			p = &n->ports[i];
	if (!p)
		return mp_usage_err("bad %s: node %s has no port '%s' (its ports are %s to %s)",
				    l->what, l->node, l->port, n->ports[0].ifname,
				    n->ports[n->nports - 1].ifname);
	shape_port(p, l);
	if (!l->out_only)
		shape_port(&f->nodes[p->peer_node].ports[p->peer_port], l);
	return MP_EXIT_OK;
}

/*
 * With DCQCN, a packet in a switch's queue must be the switch's, not
 * its sender's.  A veth keeps the sending socket's charge on what it
 * forwards (so that TCP small queues work across namespaces), and ar's
 * redirect never reaches the IP layer that would drop it: the packet
 * stays charged to its socket until it leaves the last switch port.  A
 * sender's send buffer then bounds what it has in the whole fabric,
 * which a real switch's buffer does not see, and which hides both the
 * incast that fills a buffer and what a rate cut drains: four senders of
 * 16 KiB could never fill a 100 ms buffer (selftests/kmod/cc_fabric.sh).
 * netem orphans what it delays, as a NIC's transmit completion would:
 * every switch port without a delay of its own gets 1 us of it.
 */
static void hold_in_switches(struct mp_fabric *f)
{
	struct mp_fabric_node *n;
	unsigned int i, j;

	for (i = 0; i < f->nnodes; i++) {
		n = &f->nodes[i];
		if (n->role == MP_NODE_HOST)
			continue;
		for (j = 0; j < n->nports; j++)
			if (!n->ports[j].delay_us)
				n->ports[j].delay_us = FABRIC_CC_HOLD_US;
	}
}

int fabric_shape(struct mp_fabric *f, const struct fabric_spec *s)
{
	unsigned int i;
	int ret;

	f->rate_bps = s->rate_bps;
	f->host_rate_bps = s->role.host_bps ? s->role.host_bps : s->rate_bps;
	f->uplink_rate_bps = s->role.uplink_bps ? s->role.uplink_bps :
						  s->rate_bps;
	f->delay_us = s->delay_us > 0 ? s->delay_us : 0;
	f->loss_pct = s->loss_pct > 0 ? s->loss_pct : 0;
	f->buffer_us = s->buffer_us > 0 ? s->buffer_us : MP_FABRIC_DEF_BUFFER_US;
	for (i = f->planes; i < FABRIC_MAX_PLANES; i++)
		if (s->plane_what[i][0])
			return mp_usage_err("bad %s: this fabric has planes 0 to %u",
					    s->plane_what[i], f->planes - 1);
	shape_defaults(f, s);
	for (i = 0; i < s->nlinks; i++) {
		ret = shape_link(f, &s->links[i]);
		if (ret)
			return ret;
	}
	if (f->cc == MPLANE_CC_DCQCN)
		hold_in_switches(f);
	return MP_EXIT_OK;
}
