// SPDX-License-Identifier: GPL-2.0
/*
 * The context of 'fabric fault': the fabric's state, its nodes'
 * namespaces (entered on demand, with an rtnetlink socket opened inside
 * each once), and the program that puts each fault on the telemetry
 * timeline (tools/include/mp_user_event.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

#include "mp_cmd.h"
#include "mp_netns.h"
#include "mp_out.h"
#include "mp_user_event.h"
#include "mplanectl.h"
#include "fabric_fault.h"
#include "mplane_events.h"

int fault_ctx_open(struct fault_ctx *c, const char *prefix)
{
	unsigned int i;
	int err;

	memset(c, 0, sizeof(*c));
	c->home_fd = -1;
	c->ev_fd = -1;
	c->tc_choice = -1;
	err = mp_fabric_load(prefix, &c->f);
	if (err == -ENOENT) {
		mp_err("no fabric '%s' (build one with 'mplanectl fabric up --prefix %s')",
		       prefix, prefix);
		return MP_EXIT_ERR;
	} else if (err) {
		mp_err("fabric %s: reading its state: %s", prefix,
		       strerror(-err));
		return MP_EXIT_ERR;
	}
	c->home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	c->ns = calloc(c->f.nnodes, sizeof(*c->ns));
	if (c->home_fd < 0 || !c->ns) {
		mp_err("%s", strerror(c->ns ? errno : ENOMEM));
		fault_ctx_close(c);
		return MP_EXIT_ERR;
	}
	for (i = 0; i < c->f.nnodes; i++)
		c->ns[i].fd = -1;
	return MP_EXIT_OK;
}

void fault_ctx_close(struct fault_ctx *c)
{
	unsigned int i;

	for (i = 0; c->ns && i < c->f.nnodes; i++) {
		if (c->ns[i].rtnl_open)
			mp_rtnl_close(&c->ns[i].rtnl);
		if (c->ns[i].fd >= 0)
			close(c->ns[i].fd);
	}
	free(c->ns);
	c->ns = NULL;
	if (c->home_fd >= 0)
		close(c->home_fd);
	c->home_fd = -1;
	if (c->ev_fd >= 0)
		close(c->ev_fd);
	c->ev_fd = -1;
	c->ev_tried = false;
	mp_fabric_free(&c->f);
}

void fault_ctx_forget_fds(struct fault_ctx *c)
{
	unsigned int i;

	/* Closed already: only the memory of the sockets goes. */
	for (i = 0; i < c->f.nnodes; i++) {
		if (c->ns[i].rtnl_open)
			mp_rtnl_close(&c->ns[i].rtnl);
		c->ns[i].rtnl_open = false;
		c->ns[i].fd = -1;
	}
	c->ev_fd = -1;
	c->ev_tried = false;
	c->home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

int fault_enter(struct fault_ctx *c, unsigned int node)
{
	struct fault_ns *ns = &c->ns[node];
	int err;

	if (ns->fd < 0) {
		ns->fd = mp_netns_open(c->f.nodes[node].netns);
		if (ns->fd < 0) {
			err = ns->fd;
			mp_err("%s: netns %s: %s", c->f.nodes[node].name,
			       c->f.nodes[node].netns, strerror(-err));
			return err;
		}
	}
	err = mp_netns_return(ns->fd);
	if (err)
		mp_err("%s: entering netns %s: %s", c->f.nodes[node].name,
		       c->f.nodes[node].netns, strerror(-err));
	return err;
}

int fault_leave(struct fault_ctx *c)
{
	int err = mp_netns_return(c->home_fd);

	if (err)
		mp_err("back to our own netns: %s", strerror(-err));
	return err;
}

struct mp_rtnl *fault_rtnl(struct fault_ctx *c, unsigned int node)
{
	struct fault_ns *ns = &c->ns[node];
	int err;

	if (ns->rtnl_open)
		return &ns->rtnl;
	/* A netlink socket belongs to the namespace it was opened in. */
	err = fault_enter(c, node);
	if (!err) {
		err = mp_rtnl_open(&ns->rtnl, 0);
		if (err)
			mp_err("%s: rtnetlink: %s", c->f.nodes[node].name,
			       strerror(-err));
	}
	if (fault_leave(c) && !err) {
		mp_rtnl_close(&ns->rtnl);
		err = -EINVAL;
	}
	ns->rtnl_open = !err;
	return err ? NULL : &ns->rtnl;
}

static unsigned int fault_role(enum mp_node_role role)
{
	switch (role) {
	case MP_NODE_HOST:
		return MPLANE_FAULT_ROLE_HOST;
	case MP_NODE_LEAF:
		return MPLANE_FAULT_ROLE_LEAF;
	default:
		return MPLANE_FAULT_ROLE_SPINE;
	}
}

/* FAULT's val[3]: the target, the way, and its node and port by name. */
static __u64 spec(const struct fault_ctx *c, const struct fault_target *t,
		  enum mplane_fault_via via)
{
	const struct mp_fabric_node *n, *peer;
	const struct mp_fabric_port *p;

	if (t->node < 0)
		return MPLANE_FAULT_SPEC(t->kind, via, 0, 0, 0, 0);
	n = &c->f.nodes[t->node];
	if (t->port < 0)
		return MPLANE_FAULT_SPEC(t->kind, via, fault_role(n->role),
					 n->index, 0, 0);
	p = &n->ports[t->port];
	peer = &c->f.nodes[p->peer_node];
	return MPLANE_FAULT_SPEC(t->kind, via, fault_role(n->role), n->index,
				 fault_role(peer->role), peer->index);
}

/*
 * Without the program (not root, no BPF filesystem) the fault is made
 * all the same, and said once: the timeline just does not show it.
 */
void fault_emit(struct fault_ctx *c, const struct fault_target *t,
		const struct fault_step *s)
{
	struct mp_user_event_args a = {
		.type = MPLANE_EV_FAULT,
		.flags = t->node >= 0 ? t->node : 0,
		.plane = t->plane >= 0 ? t->plane : MPLANE_EVENT_NO_PLANE,
		.val = { s->action, s->value, s->step, spec(c, t, s->via) },
	};
	int err;

	if (t->port >= 0)
		a.ifindex = c->f.nodes[t->node].ports[t->port].ifindex;
	if (!c->ev_tried) {
		c->ev_fd = mark_user_event_open();
		c->ev_tried = true;
	}
	err = c->ev_fd < 0 ? c->ev_fd : mark_user_event(c->ev_fd, &a);
	if (err && !c->ev_warned) {
		mp_err("warning: %s: not on the timeline: %s", t->name,
		       strerror(-err));
		c->ev_warned = true;
	}
}
