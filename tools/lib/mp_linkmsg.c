// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "mp_linkmsg.h"

bool mp_link_is_mplane(const struct mp_link *l)
{
	return !strcmp(l->kind, MPLANE_LINK_KIND);
}

bool mp_link_is_plane(const struct mp_link *l)
{
	return l->master && !strcmp(l->slave_kind, MPLANE_LINK_KIND);
}

/* Kernels send u8 and u32 where the uapi says so; any width is taken. */
static bool get_uint(const struct nlattr *a, uint64_t *v)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		*v = mnl_attr_get_u8(a);
		return true;
	case 2:
		*v = mnl_attr_get_u16(a);
		return true;
	case 4:
		*v = mnl_attr_get_u32(a);
		return true;
	case 8:
		*v = mnl_attr_get_u64(a);
		return true;
	}
	return false;
}

/* Strings from the kernel end in NUL, but are not trusted to. */
static void get_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t len = mnl_attr_get_payload_len(a);

	if (len >= size)
		len = size - 1;
	memcpy(buf, mnl_attr_get_payload(a), len);
	buf[len] = '\0';
}

/*
 * A number of a nest into @present and @val; @nested are the attributes
 * (a bit each) that are nests, whose length may look like a number's.
 */
static void get_number(const struct nlattr *a, uint32_t nested,
		       uint32_t *present, uint32_t *val)
{
	unsigned int type = mnl_attr_get_type(a);
	uint64_t v;

	if (type >= MP_ATTR_SLOTS || (nested & (1u << type)) ||
	    !get_uint(a, &v))
		return;
	*present |= 1u << type;
	val[type] = v;
}

static void get_peers(const struct nlattr *nest, struct mp_link *l)
{
	const struct nlattr *a;
	struct mp_addr *p;
	size_t len;

	mnl_attr_for_each_nested(a, nest) {
		len = mnl_attr_get_payload_len(a);
		if (mnl_attr_get_type(a) != IFLA_MPLANE_PEER ||
		    (len != 4 && len != 16) || l->npeers == MP_PEERS_MAX)
			continue;
		p = &l->peers[l->npeers++];
		p->len = len;
		memcpy(p->bytes, mnl_attr_get_payload(a), len);
	}
}

/* IFLA_MPLANE_CC: u8, u32 and u64 alike; PAD and newer ones skipped. */
static void get_cc(const struct nlattr *nest, struct mp_link *l)
{
	const struct nlattr *a;
	unsigned int type;
	uint64_t v;

	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		if (!type || type == IFLA_MPLANE_CC_PAD ||
		    type > IFLA_MPLANE_CC_MAX || !get_uint(a, &v))
			continue;
		l->cc_present |= 1u << type;
		l->cc_val[type] = v;
	}
}

static void get_qp(const struct nlattr *nest, struct mp_qp *q)
{
	const struct nlattr *a;
	unsigned int type;
	size_t len;
	uint64_t v;

	memset(q, 0, sizeof(*q));
	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		if (type == IFLA_MPLANE_QP_PEER) {
			len = mnl_attr_get_payload_len(a);
			if (len != 4 && len != 16)
				continue;
			q->peer.len = len;
			memcpy(q->peer.bytes, mnl_attr_get_payload(a), len);
		} else if (!type || type == IFLA_MPLANE_QP_PAD ||
			   type > IFLA_MPLANE_QP_MAX || !get_uint(a, &v)) {
			continue;
		} else {
			q->val[type] = v;
		}
		q->present |= 1u << type;
	}
}

static void get_qps(const struct nlattr *nest, struct mp_link *l)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != IFLA_MPLANE_QP ||
		    l->nqps == MPLANE_QPS_DUMP_MAX)
			continue;
		get_qp(a, &l->qps[l->nqps++]);
	}
}

#define DEVICE_NESTS	((1u << IFLA_MPLANE_PEERS) | (1u << IFLA_MPLANE_CC) | \
			 (1u << IFLA_MPLANE_QPS))

void mp_link_parse_device_attr(const struct nlattr *a, struct mp_link *l)
{
	get_number(a, DEVICE_NESTS, &l->present, l->val);
	switch (mnl_attr_get_type(a)) {
	case IFLA_MPLANE_PEERS:
		l->present |= 1u << IFLA_MPLANE_PEERS;
		get_peers(a, l);
		break;
	case IFLA_MPLANE_CC:
		l->present |= 1u << IFLA_MPLANE_CC;
		get_cc(a, l);
		break;
	case IFLA_MPLANE_QPS:
		l->present |= 1u << IFLA_MPLANE_QPS;
		get_qps(a, l);
		break;
	}
}

void mp_link_parse_plane_attr(const struct nlattr *a, struct mp_plane_info *p)
{
	const struct nlattr *s;
	unsigned int type;
	uint64_t v;

	get_number(a, 1u << IFLA_MPLANE_PLANE_STATS, &p->present, p->val);
	if (mnl_attr_get_type(a) != IFLA_MPLANE_PLANE_STATS)
		return;
	p->present |= 1u << IFLA_MPLANE_PLANE_STATS;
	mnl_attr_for_each_nested(s, a) {
		type = mnl_attr_get_type(s);
		/* PAD sits among the counters, not after them. */
		if (!type || type == IFLA_MPLANE_PSTAT_PAD ||
		    type > IFLA_MPLANE_PSTAT_MAX || !get_uint(s, &v))
			continue;
		p->stats_present |= 1u << type;
		p->stats[type] = v;
	}
}

static void get_device_data(const struct nlattr *data, struct mp_link *l)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data)
		mp_link_parse_device_attr(a, l);
}

static void get_plane_data(const struct nlattr *data, struct mp_plane_info *p)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data)
		mp_link_parse_plane_attr(a, p);
}

static void get_linkinfo(const struct nlattr *info, struct mp_link *l)
{
	const struct nlattr *a, *data = NULL, *slave_data = NULL;

	mnl_attr_for_each_nested(a, info) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_INFO_KIND:
			get_str(a, l->kind, sizeof(l->kind));
			break;
		case IFLA_INFO_SLAVE_KIND:
			get_str(a, l->slave_kind, sizeof(l->slave_kind));
			break;
		case IFLA_INFO_DATA:
			data = a;
			break;
		case IFLA_INFO_SLAVE_DATA:
			slave_data = a;
			break;
		}
	}
	/* Data means what its kind says, whichever came first. */
	if (data && mp_link_is_mplane(l))
		get_device_data(data, l);
	if (slave_data && !strcmp(l->slave_kind, MPLANE_LINK_KIND))
		get_plane_data(slave_data, &l->plane);
}

int mp_link_parse(const struct nlmsghdr *nlh, struct mp_link *l)
{
	const struct ifinfomsg *ifi;
	const struct nlattr *a;
	size_t len;

	memset(l, 0, sizeof(*l));
	l->operstate = -1;
	l->carrier = -1;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EINVAL;
	ifi = mnl_nlmsg_get_payload(nlh);
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME:
			get_str(a, l->name, sizeof(l->name));
			break;
		case IFLA_MASTER:
			if (mnl_attr_get_payload_len(a) == 4)
				l->master = mnl_attr_get_u32(a);
			break;
		case IFLA_ADDRESS:
			/* Ethernet only: the callers want a MAC. */
			if (mnl_attr_get_payload_len(a) != sizeof(l->addr))
				break;
			memcpy(l->addr, mnl_attr_get_payload(a), sizeof(l->addr));
			l->has_addr = true;
			break;
		case IFLA_OPERSTATE:
			if (mnl_attr_get_payload_len(a) == 1)
				l->operstate = mnl_attr_get_u8(a);
			break;
		case IFLA_CARRIER:
			if (mnl_attr_get_payload_len(a) == 1)
				l->carrier = !!mnl_attr_get_u8(a);
			break;
		case IFLA_STATS64:
			/* Newer kernels append counters; older send fewer. */
			len = mnl_attr_get_payload_len(a);
			if (len > sizeof(l->stats64))
				len = sizeof(l->stats64);
			memcpy(&l->stats64, mnl_attr_get_payload(a), len);
			l->has_stats64 = true;
			break;
		case IFLA_LINKINFO:
			get_linkinfo(a, l);
			break;
		}
	}
	return 0;
}

static int put_uints(struct nlmsghdr *nlh, size_t size, uint32_t set,
		     const uint8_t *width, const uint32_t *val,
		     unsigned int slots)
{
	unsigned int type;

	for (type = 1; type < slots; type++) {
		if (!(set & (1u << type)) || !width[type])
			continue;
		if (width[type] == 1 ?
		    !mnl_attr_put_u8_check(nlh, size, type, val[type]) :
		    !mnl_attr_put_u32_check(nlh, size, type, val[type]))
			return -EMSGSIZE;
	}
	return 0;
}

static int put_attrs(struct nlmsghdr *nlh, size_t size,
		     const struct mp_settings *s)
{
	return put_uints(nlh, size, s->set, s->width, s->val, MP_ATTR_SLOTS);
}

/* The settings given, only: the kernel keeps the others as they are. */
static int put_cc(struct nlmsghdr *nlh, size_t size,
		  const struct mp_settings *s)
{
	struct nlattr *nest;

	if (!(s->set & (1u << IFLA_MPLANE_CC)) || !s->cc.set)
		return 0;
	nest = mnl_attr_nest_start_check(nlh, size, IFLA_MPLANE_CC);
	if (!nest || put_uints(nlh, size, s->cc.set, s->cc.width, s->cc.val,
			       MP_CC_SLOTS))
		return -EMSGSIZE;
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

/* An empty nest is sent on purpose: it is what clears the peers. */
static int put_peers(struct nlmsghdr *nlh, size_t size,
		     const struct mp_settings *s)
{
	struct nlattr *nest;
	unsigned int i;

	if (!(s->set & (1u << IFLA_MPLANE_PEERS)))
		return 0;
	nest = mnl_attr_nest_start_check(nlh, size, IFLA_MPLANE_PEERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < s->npeers; i++)
		if (!mnl_attr_put_check(nlh, size, IFLA_MPLANE_PEER,
					s->peers[i].len, s->peers[i].bytes))
			return -EMSGSIZE;
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

int mp_link_put_data(struct nlmsghdr *nlh, size_t size,
		     const struct mp_settings *s)
{
	if (put_attrs(nlh, size, s) || put_peers(nlh, size, s) ||
	    put_cc(nlh, size, s))
		return -EMSGSIZE;
	return 0;
}

int mp_link_put_plane_data(struct nlmsghdr *nlh, size_t size,
			   const struct mp_settings *s)
{
	return put_attrs(nlh, size, s) ? -EMSGSIZE : 0;
}

static int put_linkinfo(struct nlmsghdr *nlh, size_t size, uint16_t kind,
			uint16_t data_type, const struct mp_settings *s)
{
	struct nlattr *info, *data;
	int err;

	info = mnl_attr_nest_start_check(nlh, size, IFLA_LINKINFO);
	if (!info || !mnl_attr_put_strz_check(nlh, size, kind, MPLANE_LINK_KIND))
		return -EMSGSIZE;
	if (s->set) {
		data = mnl_attr_nest_start_check(nlh, size, data_type);
		if (!data)
			return -EMSGSIZE;
		err = data_type == IFLA_INFO_DATA ?
		      mp_link_put_data(nlh, size, s) :
		      mp_link_put_plane_data(nlh, size, s);
		if (err)
			return err;
		mnl_attr_nest_end(nlh, data);
	}
	mnl_attr_nest_end(nlh, info);
	return 0;
}

int mp_link_put_settings(struct nlmsghdr *nlh, size_t size,
			 const struct mp_settings *s)
{
	return put_linkinfo(nlh, size, IFLA_INFO_KIND, IFLA_INFO_DATA, s);
}

int mp_link_put_plane_settings(struct nlmsghdr *nlh, size_t size,
			       const struct mp_settings *s)
{
	return put_linkinfo(nlh, size, IFLA_INFO_SLAVE_KIND,
			    IFLA_INFO_SLAVE_DATA, s);
}

int mp_nlerr_parse(const struct nlmsghdr *nlh, int *error, const char **msg)
{
	return mp_nlerr_parse_offs(nlh, error, msg, NULL);
}

int mp_nlerr_parse_offs(const struct nlmsghdr *nlh, int *error,
			const char **msg, int *offs)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t off, orig;

	*msg = NULL;
	if (offs)
		*offs = -1;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EINVAL;
		*error = e->error;
		/* The request comes back whole unless NETLINK_CAP_ACK. */
		orig = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < NLMSG_HDRLEN)
				return 0;
			orig += e->msg.nlmsg_len - NLMSG_HDRLEN;
		}
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		/* A dump's end: 0, or the error that cut it short. */
		orig = sizeof(int);
		if (nlh->nlmsg_len < NLMSG_LENGTH(orig)) {
			*error = 0;	/* old kernels send no payload */
			return 0;
		}
		memcpy(error, mnl_nlmsg_get_payload(nlh), sizeof(int));
	} else {
		return -EINVAL;
	}
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* A message without room for its TLVs still has its error. */
	off = NLMSG_ALIGN(NLMSG_HDRLEN + orig);
	if (off > nlh->nlmsg_len)
		return 0;
	for (a = (const void *)((const char *)nlh + off);
	     mnl_attr_ok(a, (const char *)nlh + nlh->nlmsg_len - (const char *)a);
	     a = mnl_attr_next(a)) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			*msg = mnl_attr_get_str(a);
		if (offs && mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			*offs = mnl_attr_get_u32(a);
	}
	return 0;
}
