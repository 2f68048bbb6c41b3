// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <libmnl/libmnl.h>

#include "mp_capture.h"
#include "mp_poll.h"
#include "mp_rtnl.h"
#include "mp_run.h"
#include "mplane_events.h"

#define RDMA_GLOB	"/sys/class/infiniband/*/ports/*/hw_counters/*"

/* The link statistics most worth a timeline; the rest rarely move. */
static const struct {
	const char *name;
	size_t off;
} netdev_fields[] = {
	{ "rx_packets",	offsetof(struct rtnl_link_stats64, rx_packets) },
	{ "tx_packets",	offsetof(struct rtnl_link_stats64, tx_packets) },
	{ "rx_bytes",	offsetof(struct rtnl_link_stats64, rx_bytes) },
	{ "tx_bytes",	offsetof(struct rtnl_link_stats64, tx_bytes) },
	{ "rx_errors",	offsetof(struct rtnl_link_stats64, rx_errors) },
	{ "tx_errors",	offsetof(struct rtnl_link_stats64, tx_errors) },
	{ "rx_dropped",	offsetof(struct rtnl_link_stats64, rx_dropped) },
	{ "tx_dropped",	offsetof(struct rtnl_link_stats64, tx_dropped) },
};
#define NETDEV_FIELDS	(sizeof(netdev_fields) / sizeof(netdev_fields[0]))

struct counter {
	char *name;
	uint32_t kind;
	uint32_t ifindex;
	uint64_t val;
	uint64_t ts;		/* when val was read; 0: never */
	bool fresh;		/* read this tick */
};

struct plink {
	int ifindex;
	char name[IF_NAMESIZE];
	int netdev_id;		/* first of NETDEV_FIELDS counters, or -1 */
	int eth_id;		/* first ethtool counter, or -1 */
	unsigned int eth_n;
};

struct rdma_file {
	int fd;
	uint32_t id;
};

struct mp_poller {
	struct counter *c;
	unsigned int n, cap;
	struct plink *links;
	unsigned int nlinks;
	struct mp_rtnl rtnl;
	bool have_rtnl;
	int ioc_fd;			/* for SIOCETHTOOL; -1 when unused */
	struct ethtool_stats *eth;	/* room for the largest link's */
	struct rdma_file *rdma;
	unsigned int nrdma;
};

static int add_counter(struct mp_poller *p, uint32_t kind, uint32_t ifindex,
		       const char *name)
{
	if (p->n >= MP_CAPTURE_MAX_COUNTERS)
		return -E2BIG;
	if (p->n == p->cap) {
		unsigned int cap = p->cap ? p->cap * 2 : 64;
		struct counter *c = realloc(p->c, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		p->c = c;
		p->cap = cap;
	}
	p->c[p->n] = (struct counter){ .kind = kind, .ifindex = ifindex };
	p->c[p->n].name = strdup(name);
	if (!p->c[p->n].name)
		return -ENOMEM;
	return p->n++;
}

/* Links: the ones named in @ifaces, or every one but loopback. */

struct pick {
	struct mp_poller *p;
	const char *ifaces;
};

static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *s = list;

	while (s && *s) {
		if (!strncmp(s, name, len) && (s[len] == ',' || !s[len]))
			return true;
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return false;
}

static int pick_link(const struct mp_link *l, int type, void *data)
{
	struct pick *k = data;
	struct mp_poller *p = k->p;
	struct plink *pl;

	(void)type;
	if (k->ifaces ? !in_list(k->ifaces, l->name) :
			(l->flags & IFF_LOOPBACK))
		return 0;
	pl = realloc(p->links, (p->nlinks + 1) * sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	p->links = pl;
	pl = &p->links[p->nlinks++];
	*pl = (struct plink){ .ifindex = l->ifindex, .netdev_id = -1,
			      .eth_id = -1 };
	snprintf(pl->name, sizeof(pl->name), "%s", l->name);
	return 0;
}

static void restart_pick(void *data)
{
	struct pick *k = data;

	k->p->nlinks = 0;
}

/* Every name of @ifaces must be a link: say which is not. */
static int check_ifaces(struct mp_poller *p, const char *ifaces, char *what,
			size_t size)
{
	char buf[1024], *tok, *save = NULL;
	unsigned int i;

	snprintf(buf, sizeof(buf), "%s", ifaces);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < p->nlinks; i++)
			if (!strcmp(p->links[i].name, tok))
				break;
		if (i == p->nlinks) {
			snprintf(what, size, "%s", tok);
			return -ENODEV;
		}
	}
	return 0;
}

static int netdev_names(struct mp_poller *p)
{
	char name[IF_NAMESIZE + 32];
	unsigned int i, f;
	int id;

	for (i = 0; i < p->nlinks; i++)
		for (f = 0; f < NETDEV_FIELDS; f++) {
			snprintf(name, sizeof(name), "%s/%s", p->links[i].name,
				 netdev_fields[f].name);
			id = add_counter(p, MPLANE_COUNTER_NETDEV,
					 p->links[i].ifindex, name);
			if (id < 0)
				return id;
			if (!f)
				p->links[i].netdev_id = id;
		}
	return 0;
}

/* ethtool -S: the strings once, here; the values each tick. */

static int ethtool_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr = {};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static unsigned int ethtool_count(int fd, const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} s = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			 .sset_mask = 1ULL << ETH_SS_STATS } };

	if (ethtool_ioctl(fd, ifname, &s) ||
	    !(s.hdr.sset_mask & (1ULL << ETH_SS_STATS)))
		return 0;
	return s.len;
}

static int ethtool_link_names(struct mp_poller *p, struct plink *l,
			      unsigned int *most)
{
	unsigned int n = ethtool_count(p->ioc_fd, l->name), i;
	char name[IF_NAMESIZE + ETH_GSTRING_LEN + 16];
	struct ethtool_gstrings *gs;
	int id, err = 0;

	if (!n)
		return 0;	/* this driver has no ethtool -S */
	gs = calloc(1, sizeof(*gs) + n * ETH_GSTRING_LEN);
	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	if (ethtool_ioctl(p->ioc_fd, l->name, gs) || gs->len != n)
		goto out;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/ethtool/%.*s", l->name,
			 ETH_GSTRING_LEN, (char *)gs->data + i * ETH_GSTRING_LEN);
		id = add_counter(p, MPLANE_COUNTER_ETHTOOL, l->ifindex, name);
		if (id < 0) {
			err = id;
			goto out;
		}
		if (!i)
			l->eth_id = id;
	}
	l->eth_n = n;
	if (n > *most)
		*most = n;
out:
	free(gs);
	return err;
}

static int ethtool_names(struct mp_poller *p)
{
	unsigned int i, most = 0;
	int err;

	p->ioc_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (p->ioc_fd < 0)
		return -errno;
	for (i = 0; i < p->nlinks; i++) {
		err = ethtool_link_names(p, &p->links[i], &most);
		if (err)
			return err;
	}
	p->eth = calloc(1, sizeof(*p->eth) + most * sizeof(uint64_t));
	return p->eth ? 0 : -ENOMEM;
}

/* RDMA: "/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts" is
 * named "rxe0/1/rcvd_pkts", the kernel's own counter name. */
static int rdma_name(const char *path, char *name, size_t size)
{
	char dev[64], port[16], ctr[128];

	if (sscanf(path, "/sys/class/infiniband/%63[^/]/ports/%15[^/]/hw_counters/%127s",
		   dev, port, ctr) != 3)
		return -EINVAL;
	/* A setting (how long values are cached), not a counter. */
	if (!strcmp(ctr, "lifespan"))
		return -EINVAL;
	snprintf(name, size, "%s/%s/%s", dev, port, ctr);
	return 0;
}

static int rdma_names(struct mp_poller *p)
{
	char name[256];
	glob_t g = {};
	size_t i;
	int fd, id, err = 0;

	if (glob(RDMA_GLOB, 0, NULL, &g))
		return 0;	/* no RDMA device: nothing to poll */
	p->rdma = calloc(g.gl_pathc, sizeof(*p->rdma));
	if (!p->rdma) {
		globfree(&g);
		return -ENOMEM;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		if (rdma_name(g.gl_pathv[i], name, sizeof(name)))
			continue;
		fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		id = add_counter(p, MPLANE_COUNTER_RDMA, 0, name);
		if (id < 0) {
			close(fd);
			err = id;
			break;
		}
		p->rdma[p->nrdma++] = (struct rdma_file){ .fd = fd, .id = id };
	}
	globfree(&g);
	return err;
}

int mp_poll_open(struct mp_poller **pp, const struct mp_poll_opts *o,
		 char *what, size_t what_size)
{
	struct mp_poller *p = calloc(1, sizeof(*p));
	struct pick k = { .p = p, .ifaces = o->ifaces };
	struct mp_nlerr e;
	int err;

	if (!p)
		return -ENOMEM;
	p->ioc_fd = -1;
	snprintf(what, what_size, "listing the links");
	if (o->netdev || o->ethtool) {
		err = mp_rtnl_open(&p->rtnl, 0);
		if (err)
			goto fail;
		p->have_rtnl = true;
		err = mp_rtnl_dump_links(&p->rtnl, pick_link, restart_pick, &k, &e);
		if (!err && o->ifaces)
			err = check_ifaces(p, o->ifaces, what, what_size);
		if (err)
			goto fail;
	}
	snprintf(what, what_size, "reading counter names");
	err = o->netdev ? netdev_names(p) : 0;
	if (!err && o->ethtool)
		err = ethtool_names(p);
	if (!err && o->rdma)
		err = rdma_names(p);
	if (err)
		goto fail;
	*pp = p;
	return 0;
fail:
	mp_poll_free(p);
	return err;
}

int mp_poll_names(struct mp_poller *p, mp_poll_name_cb cb, void *data)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->n; i++) {
		err = cb(data, i, p->c[i].kind, p->c[i].ifindex, p->c[i].name);
		if (err)
			return err;
	}
	return 0;
}

unsigned int mp_poll_count(const struct mp_poller *p)
{
	return p->n;
}

static void set_value(struct mp_poller *p, int id, uint64_t val, uint64_t ts)
{
	struct counter *c = &p->c[id];

	c->fresh = !c->ts || c->val != val;
	c->val = val;
	c->ts = ts;
}

/* One RTM_GETSTATS answer: the 64-bit link statistics of one link. */
static int on_stats(const struct nlmsghdr *nlh, void *data)
{
	const struct if_stats_msg *ifsm = mnl_nlmsg_get_payload(nlh);
	const struct rtnl_link_stats64 *s = NULL;
	struct mp_poller *p = data;
	const struct nlattr *a;
	uint64_t ts = mp_mono_ns(), v;
	unsigned int i, f;

	if (nlh->nlmsg_type != RTM_NEWSTATS)
		return 0;
	for (i = 0; i < p->nlinks; i++)
		if (p->links[i].ifindex == (int)ifsm->ifindex)
			break;
	if (i == p->nlinks || p->links[i].netdev_id < 0)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifsm))
		if (mnl_attr_get_type(a) == IFLA_STATS_LINK_64 &&
		    mnl_attr_get_payload_len(a) >= sizeof(*s))
			s = mnl_attr_get_payload(a);
	if (!s)
		return 0;
	for (f = 0; f < NETDEV_FIELDS; f++) {
		memcpy(&v, (const char *)s + netdev_fields[f].off, sizeof(v));
		set_value(p, p->links[i].netdev_id + f, v, ts);
	}
	return 0;
}

static void tick_netdev(struct mp_poller *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct if_stats_msg *ifsm;
	struct mp_nlerr e;

	nlh->nlmsg_type = RTM_GETSTATS;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));
	ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	/* A failed tick keeps the old values; the next one catches up. */
	mp_rtnl_request(&p->rtnl, nlh, on_stats, p, &e);
}

static void tick_ethtool(struct mp_poller *p)
{
	unsigned int i, j;
	uint64_t ts;

	for (i = 0; i < p->nlinks; i++) {
		struct plink *l = &p->links[i];

		if (!l->eth_n)
			continue;
		p->eth->cmd = ETHTOOL_GSTATS;
		p->eth->n_stats = l->eth_n;
		if (ethtool_ioctl(p->ioc_fd, l->name, p->eth) ||
		    p->eth->n_stats != l->eth_n)
			continue;
		ts = mp_mono_ns();
		for (j = 0; j < l->eth_n; j++)
			set_value(p, l->eth_id + j, p->eth->data[j], ts);
	}
}

static void tick_rdma(struct mp_poller *p)
{
	char buf[32];
	unsigned int i;
	ssize_t len;
	uint64_t ts;
	char *end;

	for (i = 0; i < p->nrdma; i++) {
		len = pread(p->rdma[i].fd, buf, sizeof(buf) - 1, 0);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		ts = mp_mono_ns();
		set_value(p, p->rdma[i].id, strtoull(buf, &end, 10), ts);
	}
}

int mp_poll_tick(struct mp_poller *p, bool all, mp_poll_event_cb cb,
		 void *data)
{
	struct mplane_event e = {
		.hdr = {
			.version = MPLANE_EVENT_VERSION,
			.type = MPLANE_EV_COUNTER,
			.len = sizeof(e),
			.plane = MPLANE_EVENT_NO_PLANE,
		},
	};
	unsigned int i;
	int cpu = sched_getcpu(), err;

	for (i = 0; i < p->n; i++)
		p->c[i].fresh = false;
	if (p->nlinks && p->links[0].netdev_id >= 0)
		tick_netdev(p);
	if (p->eth)
		tick_ethtool(p);
	tick_rdma(p);
	e.hdr.cpu = cpu < 0 ? 0 : cpu;
	for (i = 0; i < p->n; i++) {
		struct counter *c = &p->c[i];

		if (!c->ts || !(c->fresh || all))
			continue;
		e.hdr.ifindex = c->ifindex;
		e.hdr.flags = i;
		e.hdr.ts_ns = c->fresh ? c->ts : mp_mono_ns();
		e.val[0] = c->val;
		e.val[1] = c->kind;
		err = cb(data, &e);
		if (err)
			return err;
	}
	return 0;
}

void mp_poll_free(struct mp_poller *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->c[i].name);
	for (i = 0; i < p->nrdma; i++)
		close(p->rdma[i].fd);
	if (p->have_rtnl)
		mp_rtnl_close(&p->rtnl);
	if (p->ioc_fd >= 0)
		close(p->ioc_fd);
	free(p->c);
	free(p->links);
	free(p->rdma);
	free(p->eth);
	free(p);
}
