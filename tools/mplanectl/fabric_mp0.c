// SPDX-License-Identifier: GPL-2.0
/*
 * fabric up, fourth step, when mplane.ko is loaded: mp0 on every host,
 * the multi-plane device over its rails, owning the host's mplane
 * addresses.  Per host, on the socket inside its namespace:
 *   1. mp0 is made (kind mplane, with the policy and the probe interval)
 *      and its ifindex read back, with the policy the kernel gave it;
 *   2. one batch: each rail r<P> enslaved, as plane P, with its rate as
 *      its weight (and, with --cc dcqcn, fq under its tbf, which paces
 *      mp0's QPs); mp0's addresses; mp0 up; its routes (fabric_routes.c).
 * With --cc dcqcn, mp0 is made with IFLA_MPLANE_CC's algorithm DCQCN, all
 * else the module's defaults.
 * Then, once every host has mp0, each gets its peers, every other host's
 * mplane address: probes start only when there is an mp0 to answer
 * them, so that none is lost to a host not made yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "mp_linkmsg.h"
#include "mp_names.h"
#include "mp_nlbatch.h"
#include "mp_out.h"
#include "fabric.h"

#define MBIT	1000000ULL

bool fabric_mp0_available(void)
{
	return !access("/sys/module/mplane", F_OK);
}

static void setting(struct mp_settings *s, unsigned int attr,
		    unsigned int width, uint32_t val)
{
	s->set |= 1U << attr;
	s->width[attr] = width;
	s->val[attr] = val;
}

/* The kernel's answer about mp0: its ifindex, and the policy it has. */
static int read_mp0(struct mp_rtnl *r, struct mp_fabric_node *n)
{
	struct mp_link *l = malloc(sizeof(*l));
	struct mp_nlerr e;
	const char *policy;
	int err;

	if (!l)
		return -ENOMEM;
	err = mp_rtnl_get_link(r, FABRIC_MP0_NAME, l, &e);
	if (err) {
		mp_nlerr_report(n->netns, err, &e);
	} else {
		n->mp0 = true;
		n->mp0_ifindex = l->ifindex;
		policy = l->present & (1U << IFLA_MPLANE_POLICY) ?
			 mp_name(&mp_policy_names, l->val[IFLA_MPLANE_POLICY]) :
			 NULL;
		snprintf(n->mp0_policy, sizeof(n->mp0_policy), "%s",
			 policy ? policy : "?");
	}
	free(l);
	return err;
}

static int make_mp0(const struct fabric_build *b, struct mp_rtnl *r,
		    struct mp_fabric_node *n, struct mp_settings *s)
{
	struct nlmsghdr *nlh;
	struct mp_nlbatch nb;
	int err;

	memset(s, 0, sizeof(*s));
	if (b->mp0_policy >= 0)
		setting(s, IFLA_MPLANE_POLICY, 1, b->mp0_policy);
	if (b->f->probe_interval_us) {
		setting(s, IFLA_MPLANE_PROBE_INTERVAL_US, 4,
			b->f->probe_interval_us);
		setting(s, IFLA_MPLANE_PROBE_MISSES, 4, FABRIC_PROBE_MISSES);
	}
	if (b->f->cc != MPLANE_CC_OFF)
		mp_settings_set_cc(s, IFLA_MPLANE_CC_ALGO, 1, b->f->cc);
	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	nlh = fabric_link_msg(&nb, NLM_F_CREATE | NLM_F_EXCL, 0, "%s",
			      FABRIC_MP0_NAME);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, FABRIC_MP0_NAME);
	if (mp_link_put_settings(nlh, MP_NLBATCH_MSG, s))
		nb.err = -EMSGSIZE;
	err = fabric_flush(&nb, n);
	mp_nlbatch_free(&nb);
	return err ? err : read_mp0(r, n);
}

/*
 * A plane's weight is its capacity for mp0's balancing: the rail's rate
 * in Mbit/s (the unit of the link speed the kernel takes without one),
 * so that a plane at half the rate of another gets half its traffic.
 */
static uint32_t rail_weight(const struct mp_fabric_port *rail)
{
	uint64_t w = (rail->rate_bps + MBIT / 2) / MBIT;

	return w < 1 ? 1 : w > MPLANE_WEIGHT_MAX ? MPLANE_WEIGHT_MAX : w;
}

static void enslave(struct mp_nlbatch *nb, const struct mp_fabric_port *rail,
		    int mp0, struct mp_settings *s)
{
	struct nlmsghdr *nlh;

	nlh = fabric_link_msg(nb, 0, rail->ifindex, "%s: master mp0",
			      rail->ifname);
	mnl_attr_put_u32(nlh, IFLA_MASTER, mp0);
	/* Plane settings only once the rail has its master. */
	memset(s, 0, sizeof(*s));
	setting(s, IFLA_MPLANE_PLANE_WEIGHT, 4, rail_weight(rail));
	nlh = fabric_link_msg(nb, 0, rail->ifindex, "%s: plane weight",
			      rail->ifname);
	if (mp_link_put_plane_settings(nlh, MP_NLBATCH_MSG, s))
		nb->err = -EMSGSIZE;
}

static int config_mp0(const struct fabric_build *b, struct mp_rtnl *r,
		      const struct mp_fabric_node *n, struct mp_settings *s)
{
	struct mp_fabric_port mp0 = {
		.ifname = FABRIC_MP0_NAME,
		.ifindex = n->mp0_ifindex,
		.addr4 = n->mplane4,
		.plen4 = 32,
		.addr6 = n->mplane6,
		.plen6 = 128,
	};
	struct mp_nlbatch nb;
	unsigned int i;
	int err;

	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	for (i = 0; i < n->nports; i++) {
		enslave(&nb, &n->ports[i], mp0.ifindex, s);
		if (b->f->cc == MPLANE_CC_DCQCN)
			fabric_fq(&nb, &n->ports[i]);
	}
	fabric_addr(&nb, &mp0, AF_INET);
	fabric_addr(&nb, &mp0, AF_INET6);
	fabric_link_up(&nb, mp0.ifindex, mp0.ifname);
	fabric_mp0_routes(&nb, b->f, n, mp0.ifindex);
	err = nb.err ? nb.err : mp_nlbatch_flush(&nb);
	if (err)
		fabric_qdisc_report(&nb, n->netns);
	mp_nlbatch_free(&nb);
	return err;
}

/* Every other host, from the next one on, as many as mp0 takes. */
static void peers_of(const struct mp_fabric *f, const struct mp_fabric_node *n,
		     struct mp_settings *s)
{
	const struct mp_fabric_node *o;
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->set = 1U << IFLA_MPLANE_PEERS;
	for (k = 1; k < f->hosts && s->npeers < MPLANE_MAX_PEERS; k++) {
		o = &f->nodes[(n->index + k) % f->hosts];
		s->peers[s->npeers].len = 4;
		memcpy(s->peers[s->npeers].bytes, &o->mplane4, 4);
		s->npeers++;
	}
}

static int set_peers(const struct fabric_build *b, struct mp_rtnl *r,
		     const struct mp_fabric_node *n, struct mp_settings *s)
{
	struct nlmsghdr *nlh;
	struct mp_nlbatch nb;
	int err;

	peers_of(b->f, n, s);
	if (!s->npeers)
		return 0;
	err = mp_nlbatch_init(&nb, r);
	if (err)
		return err;
	nlh = fabric_link_msg(&nb, 0, n->mp0_ifindex, "%s: peers",
			      FABRIC_MP0_NAME);
	if (mp_link_put_settings(nlh, MP_NLBATCH_MSG, s))
		nb.err = -EMSGSIZE;
	err = fabric_flush(&nb, n);
	mp_nlbatch_free(&nb);
	return err;
}

int fabric_build_mp0(struct fabric_build *b)
{
	struct mp_settings *s = malloc(sizeof(*s));
	struct mp_fabric *f = b->f;
	unsigned int i;
	int err = s ? 0 : -ENOMEM;

	/* Hosts are the first nodes: node i is host i. */
	for (i = 0; i < f->hosts && !err; i++) {
		err = make_mp0(b, &b->rtnl[i], &f->nodes[i], s);
		if (!err)
			err = config_mp0(b, &b->rtnl[i], &f->nodes[i], s);
		fabric_progress(b, "mp0", i + 1, f->hosts);
	}
	for (i = 0; i < f->hosts && !err && f->probe_interval_us; i++)
		err = set_peers(b, &b->rtnl[i], &f->nodes[i], s);
	if (err == -ENOMEM)
		mp_err("mp0: %s", strerror(ENOMEM));
	free(s);
	return err;
}
