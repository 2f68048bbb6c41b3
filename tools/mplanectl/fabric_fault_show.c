// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric fault show: what is broken now, as the kernel has it
 * (not as some fault said): the schedules still running, and every port
 * that is down, runs at another rate than 'fabric up' gave it, or loses
 * packets, with how many the dropper or netem let through and dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_cmd.h"
#include "mp_fault.h"
#include "mp_out.h"
#include "mp_print.h"
#include "fabric.h"
#include "fabric_fault.h"
#include "mplane_events.h"

#define MAX_SCHEDS	64

struct port_state {
	bool found, up;
	uint64_t rate_bps;
	struct fault_loss_counts loss;
	enum mplane_fault_via via;
};

struct flags_walk {
	const struct mp_fabric_node *n;
	struct port_state *st;
};

static int flags_cb(const struct mp_link *l, int msg_type, void *data)
{
	struct flags_walk *w = data;
	unsigned int i;

	(void)msg_type;
	for (i = 0; i < w->n->nports; i++) {
		if (w->n->ports[i].ifindex == l->ifindex) {
			w->st[i].found = true;
			w->st[i].up = l->flags & IFF_UP;
		}
	}
	return 0;
}

/* Every port of node @node as it is now: 0 or -errno. */
static int read_node(struct fault_ctx *c, unsigned int node,
		     struct port_state *st)
{
	const struct mp_fabric_node *n = &c->f.nodes[node];
	struct flags_walk w = { .n = n, .st = st };
	struct mp_rtnl *r = fault_rtnl(c, node);
	struct fault_loss_counts bpf;
	struct mp_nlerr e;
	unsigned int i;
	int err;

	if (!r)
		return -EINVAL;
	err = mp_rtnl_dump_links(r, flags_cb, NULL, &w, &e);
	for (i = 0; !err && i < n->nports; i++) {
		err = fault_loss_netem_read(r, &n->ports[i], &st[i].loss,
					    &st[i].rate_bps);
		st[i].via = MPLANE_FAULT_VIA_NETEM;
	}
	if (err)
		return err;
	err = fault_enter(c, node);
	for (i = 0; !err && i < n->nports; i++) {
		err = fault_loss_bpf_read(&n->ports[i], &bpf);
		if (!err && bpf.on) {
			st[i].loss = bpf;
			st[i].via = MPLANE_FAULT_VIA_BPF;
		}
	}
	if (fault_leave(c) && !err)
		err = -EINVAL;
	return err;
}

static bool faulty(const struct mp_fabric_port *p, const struct port_state *s)
{
	return !s->found || !s->up || s->rate_bps != p->rate_bps ||
	       (s->loss.on && s->loss.ppm);
}

static void print_port(const struct mp_fabric_node *n,
		       const struct mp_fabric_port *p,
		       const struct port_state *s)
{
	char name[64];

	snprintf(name, sizeof(name), "%s/%s", n->name, p->ifname);
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_JSON, "node", NULL, n->name);
	mp_print_str(MP_PRINT_JSON, "port", NULL, p->ifname);
	mp_print_str(MP_PRINT_TEXT, NULL, "  %-12s", name);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, p->ifindex);
	mp_print_bool(MP_PRINT_JSON, "found", NULL, s->found);
	mp_print_bool(MP_PRINT_JSON, "up", NULL, s->up);
	mp_print_str(MP_PRINT_TEXT, NULL, " %s", !s->found ? "missing" :
		     s->up ? "up" : "down");
	mp_print_u64(MP_PRINT_JSON, "built_rate_bps", NULL, p->rate_bps);
	mp_print_u64(MP_PRINT_JSON, "rate_bps", NULL, s->rate_bps);
	if (s->rate_bps != p->rate_bps)
		mp_print_u64(MP_PRINT_TEXT, NULL, ", rate %" PRIu64 " bit/s",
			     s->rate_bps);
	mp_print_u64(MP_PRINT_JSON, "loss_ppm", NULL,
		     s->loss.on ? s->loss.ppm : 0);
	if (s->loss.on) {
		mp_print_str(MP_PRINT_ANY, "loss_via", ", loss via %s",
			     mp_fault_via_name(s->via));
		if (s->loss.tc_hook)
			mp_print_str(MP_PRINT_ANY, "tc_hook", " on %s",
				     s->loss.tc_hook);
		else
			mp_print_null(MP_PRINT_JSON, "tc_hook", NULL);
		mp_print_float(MP_PRINT_TEXT, NULL, " %g%%",
			       s->loss.ppm / 10000.0);
		mp_print_u64(MP_PRINT_ANY, "passed", ": %" PRIu64 " passed",
			     s->loss.passed);
		mp_print_u64(MP_PRINT_ANY, "dropped", ", %" PRIu64 " dropped",
			     s->loss.dropped);
	} else {
		mp_print_null(MP_PRINT_JSON, "loss_via", NULL);
		mp_print_null(MP_PRINT_JSON, "tc_hook", NULL);
	}
	mp_print_text("\n");
	mp_print_close_object();
}

static void print_scheds(const struct fault_ctx *c)
{
	struct fault_sched_info s[MAX_SCHEDS];
	unsigned int i, n = fault_sched_list(c->f.prefix, s, MAX_SCHEDS);

	mp_print_text("%u schedule%s running\n", n, n == 1 ? "" : "s");
	mp_print_open_array("schedules");
	for (i = 0; i < n; i++) {
		mp_print_open_object(NULL);
		mp_print_s64(MP_PRINT_ANY, "pid", "  pid %" PRId64, s[i].pid);
		mp_print_str(MP_PRINT_ANY, "what", ": %s\n", s[i].what);
		mp_print_close_object();
	}
	mp_print_close_array();
}

int fault_show(struct fault_ctx *c)
{
	const struct mp_fabric_node *n;
	struct port_state *st;
	unsigned int i, j, shown = 0;
	int err = 0;

	mp_print_start();
	mp_print_str(MP_PRINT_JSON, "prefix", NULL, c->f.prefix);
	print_scheds(c);
	mp_print_open_array("ports");
	for (i = 0; i < c->f.nnodes && !err; i++) {
		n = &c->f.nodes[i];
		st = calloc(n->nports + 1, sizeof(*st));
		err = st ? read_node(c, i, st) : -ENOMEM;
		for (j = 0; !err && j < n->nports; j++) {
			if (!faulty(&n->ports[j], &st[j]))
				continue;
			print_port(n, &n->ports[j], &st[j]);
			shown++;
		}
		if (err)
			mp_err("%s: %s", n->name, strerror(-err));
		free(st);
	}
	mp_print_close_array();
	mp_print_text("%u port%s with a fault\n", shown, shown == 1 ? "" : "s");
	mp_print_end();
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
