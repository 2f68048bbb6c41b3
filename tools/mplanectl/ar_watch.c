// SPDX-License-Identifier: GPL-2.0
/*
 * The watcher keeps each switch's maps in line with its kernel: one
 * rtnetlink socket in each switch's namespace, subscribed to links,
 * neighbours and routes.
 *
 * A port's change of state goes to the switch's mp_ar_port_state
 * program, which updates the port map and emits the port_state event in
 * one step.  A port counts as up when it is administratively up and has
 * a carrier, the same test the kernel applies to its own routes' next
 * hops.
 *
 * A change of routes or neighbours makes the switch's routes be read
 * again, once per batch of messages.  That is how a route whose gateway
 * had no MAC (a port that flapped loses its neighbours) comes back to ar
 * once the kernel has resolved it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>

#include "ar.h"
#include "mp_net.h"
#include "mp_netns.h"
#include "mp_out.h"
#include "mp_run.h"
#include "mp_rtnl.h"

struct watched {
	const struct mp_fabric_node *node;
	struct mp_rtnl rtnl;
	int prog_fd;
	int lpm4_fd, lpm6_fd;
	int *ifindex;		/* of each port, in node->ports order */
	bool routes_changed;
};

#define WATCH_GROUPS	(RTMGRP_LINK | RTMGRP_NEIGH | RTMGRP_IPV4_ROUTE | \
			 RTMGRP_IPV6_ROUTE)

/* The argument of mp_ar_port_state in bpf/ar.bpf.c. */
struct port_state_args {
	__u32 ifindex;
	__u32 up;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int set_state(const struct watched *w, int ifindex, bool up)
{
	struct port_state_args args = { .ifindex = ifindex, .up = up };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &args,
		    .ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(w->prog_fd, &opts))
		return -errno;
	return opts.retval ? -ENOENT : 0;
}

static int on_link(const struct mp_link *l, int msg_type, void *data)
{
	const struct watched *w = data;
	unsigned int i;
	bool up;

	for (i = 0; i < w->node->nports; i++) {
		if (w->ifindex[i] != l->ifindex)
			continue;
		up = msg_type == RTM_NEWLINK && (l->flags & IFF_UP) &&
		     (l->flags & IFF_LOWER_UP);
		set_state(w, l->ifindex, up);
	}
	return 0;
}

static int pinned(const struct mp_fabric *f, const struct mp_fabric_node *n,
		  const char *name)
{
	char path[256];

	if (ar_pin_path(path, sizeof(path), f->prefix, n->name, name))
		return -1;
	return bpf_obj_get(path);
}

/* Open the switch's socket and program from inside its namespace. */
static int watch_open(const struct mp_fabric *f, struct watched *w)
{
	const struct mp_fabric_node *n = w->node;
	struct mp_nlerr e;
	char path[256];
	unsigned int i;
	int err;

	err = mp_netns_enter(n->netns);
	if (err)
		return err;
	w->ifindex = calloc(n->nports ? n->nports : 1, sizeof(int));
	if (!w->ifindex)
		return -ENOMEM;
	for (i = 0; i < n->nports; i++)
		w->ifindex[i] = if_nametoindex(n->ports[i].ifname);
	err = ar_pin_path(path, sizeof(path), f->prefix, n->name,
			  AR_PROG_PORT_STATE);
	if (err)
		return err;
	w->prog_fd = bpf_obj_get(path);
	if (w->prog_fd < 0)
		return -errno;
	w->lpm4_fd = pinned(f, n, "mp_lpm4");
	w->lpm6_fd = pinned(f, n, "mp_lpm6");
	if (w->lpm4_fd < 0 || w->lpm6_fd < 0)
		return -ENOENT;
	err = mp_rtnl_open(&w->rtnl, WATCH_GROUPS);
	if (err)
		return err;
	/* Subscribed first, then dumped: no change falls in between. */
	return mp_rtnl_dump_links(&w->rtnl, on_link, NULL, w, &e);
}

static void watch_close(struct watched *w)
{
	mp_rtnl_close(&w->rtnl);
	if (w->prog_fd >= 0)
		close(w->prog_fd);
	if (w->lpm4_fd >= 0)
		close(w->lpm4_fd);
	if (w->lpm6_fd >= 0)
		close(w->lpm6_fd);
	free(w->ifindex);
}

static int open_all(const struct mp_fabric *f, struct watched *ws,
		    unsigned int *nw)
{
	int home, err = 0;
	unsigned int i;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return -errno;
	for (i = 0; i < f->nnodes && !err; i++) {
		if (f->nodes[i].role == MP_NODE_HOST)
			continue;
		ws[*nw].node = &f->nodes[i];
		ws[*nw].prog_fd = -1;
		ws[*nw].lpm4_fd = -1;
		ws[*nw].lpm6_fd = -1;
		err = watch_open(f, &ws[*nw]);
		(*nw)++;
		if (err)
			mp_err("%s: watching ports: %s (is ar attached?)",
			       f->nodes[i].name, strerror(-err));
		if (mp_netns_return(home) && !err)
			err = -EIO;
	}
	close(home);
	return err;
}

/* Unless a newer watcher has written its own pid there meanwhile. */
static void remove_own_pidfile(const char *path)
{
	FILE *fp = fopen(path, "r");
	int pid = 0;

	if (!fp)
		return;
	if (fscanf(fp, "%d", &pid) != 1)
		pid = 0;
	fclose(fp);
	if (pid == getpid())
		unlink(path);
}

/* Read what waits on @w's socket: links at once, routes and neighbours
 * noted for one sync after the batch. */
static int read_msgs(struct watched *w)
{
	const struct nlmsghdr *m;
	struct mp_link l;
	int len;

	len = mnl_socket_recvfrom(w->rtnl.nl, w->rtnl.buf, MP_RTNL_BUF);
	if (len < 0)
		return -errno;
	for (m = (void *)w->rtnl.buf; mnl_nlmsg_ok(m, len);
	     m = mnl_nlmsg_next(m, &len)) {
		switch (m->nlmsg_type) {
		case RTM_NEWLINK:
		case RTM_DELLINK:
			if (!mp_link_parse(m, &l))
				on_link(&l, m->nlmsg_type, w);
			break;
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
		case RTM_NEWNEIGH:
		case RTM_DELNEIGH:
			w->routes_changed = true;
			break;
		}
	}
	return 0;
}

/* Read the switch's routes again, from inside its namespace. */
static int sync_routes(struct watched *w)
{
	struct ar_route_stats rs;
	int home, err;

	w->routes_changed = false;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return -errno;
	err = mp_netns_enter(w->node->netns);
	if (!err)
		err = ar_sync_routes(w->lpm4_fd, w->lpm6_fd, &rs);
	if (mp_netns_return(home) && !err)
		err = -EIO;
	close(home);
	return err;
}

static int loop(struct watched *ws, unsigned int nw)
{
	struct pollfd pfd[nw];
	struct mp_nlerr e;
	unsigned int i;
	int err;

	for (i = 0; i < nw; i++) {
		pfd[i].fd = mnl_socket_get_fd(ws[i].rtnl.nl);
		pfd[i].events = POLLIN;
	}
	while (!stopping) {
		if (poll(pfd, nw, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < nw; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			err = read_msgs(&ws[i]);
			/* Events were lost: the whole state again. */
			if (err == -ENOBUFS) {
				err = mp_rtnl_dump_links(&ws[i].rtnl, on_link,
							 NULL, &ws[i], &e);
				ws[i].routes_changed = true;
			}
			if (err && err != -EINTR)
				return err;
			if (ws[i].routes_changed)
				sync_routes(&ws[i]);
		}
	}
	return 0;
}

int ar_watch(const struct mp_fabric *f, const char *pidfile)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct watched *ws;
	unsigned int nw = 0, i;
	int err;

	ws = calloc(f->nnodes ? f->nnodes : 1, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	err = open_all(f, ws, &nw);
	if (!err && pidfile)
		err = mp_run_pidfile_write(pidfile, getpid(), NULL);
	if (!err)
		err = loop(ws, nw);
	for (i = 0; i < nw; i++)
		watch_close(&ws[i]);
	free(ws);
	if (pidfile)
		remove_own_pidfile(pidfile);
	return err;
}
