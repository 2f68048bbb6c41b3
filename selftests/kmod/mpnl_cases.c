// SPDX-License-Identifier: GPL-2.0
/*
 * mpnl cases: netlink requests generated from a table of mplane's
 * attributes (uapi/linux/mplane.h), sent to an mplane device and one of
 * its rails, each with the answer it must get:
 *
 *   - every writable attribute with payloads of the wrong length, and
 *     with values just outside its range and at its type's maximum:
 *     refused, the extack naming the attribute ("(IFLA_MPLANE_X) must
 *     be") and its upper bound, and pointing at it (NLMSGERR_ATTR_OFFS);
 *     then its lowest and highest value (and 0 where 0 means off):
 *     accepted (a rate-max under the rate-min refused as such), and
 *     the setting put back;
 *   - every read-only attribute: refused as read-only;
 *   - unknown attribute types: ignored in the device's and the rail's
 *     data (rtnetlink parses link data leniently) but refused inside
 *     the IFLA_MPLANE_CC nest, which the policy checks strictly;
 *   - nests misused: CC or PEERS as a plain u32, a nest inside CC, a
 *     peer of 5 bytes, 65 peers.
 *
 * After each attribute's refusals, and again after its accepted values
 * were put back, every writable setting must be what it was: nothing
 * refused was applied.  One line per case ("ok|NAME|ERRNO|EXTACK" or
 * "FAIL|NAME|WHY"), then "cases N failed M"; exit 1 on any failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "linux/mplane.h"
#include "mp_linkmsg.h"
#include "mp_rtnl.h"
#include "mpnl.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

enum where { DEV, CC, SLAVE };

struct attr_desc {
	const char *name;
	enum where where;
	unsigned int type;
	unsigned int width;	/* 1 or 4 bytes; 0: read-only */
	__u32 lo, hi;
	bool or_zero;		/* 0 is good too */
	bool no_msg;		/* refused without a message of ours (PAD) */
};

#define A(w, t, width, lo, hi)	{ #t, w, t, width, lo, hi, false, false }
#define RO(w, t)		{ #t, w, t, 0, 0, 0, false, false }

static const struct attr_desc attrs[] = {
	RO(DEV, IFLA_MPLANE_PLANE_COUNT),
	A(DEV, IFLA_MPLANE_POLICY, 1, 0, __MPLANE_POLICY_MAX - 1),
	A(DEV, IFLA_MPLANE_FLOWLET_GAP_US, 4, 1, MPLANE_FLOWLET_GAP_US_MAX),
	A(DEV, IFLA_MPLANE_PROBE_INTERVAL_US, 4, MPLANE_PROBE_INTERVAL_US_MIN,
	  MPLANE_PROBE_INTERVAL_US_MAX),
	A(DEV, IFLA_MPLANE_PROBE_MISSES, 4, MPLANE_PROBE_MISSES_MIN,
	  MPLANE_PROBE_MISSES_MAX),
	A(DEV, IFLA_MPLANE_HOLDDOWN_MS, 4, 0, MPLANE_HOLDDOWN_MS_MAX),
	A(DEV, IFLA_MPLANE_CONG_THRESHOLD, 4, 1, MPLANE_CONG_THRESHOLD_MAX),
	A(DEV, IFLA_MPLANE_CONG_HALFLIFE_US, 4, 1, MPLANE_CONG_HALFLIFE_US_MAX),
	A(DEV, IFLA_MPLANE_GSO_MODE, 1, 0, __MPLANE_GSO_MAX - 1),
	{ "IFLA_MPLANE_SAMPLE_INTERVAL_US", DEV, IFLA_MPLANE_SAMPLE_INTERVAL_US,
	  4, MPLANE_SAMPLE_INTERVAL_US_MIN, MPLANE_SAMPLE_INTERVAL_US_MAX,
	  true, false },
	RO(DEV, IFLA_MPLANE_QPS),
	A(DEV, IFLA_MPLANE_REORDER_US, 4, 0, MPLANE_REORDER_US_MAX),
	A(CC, IFLA_MPLANE_CC_ALGO, 1, 0, __MPLANE_CC_MAX - 1),
	A(CC, IFLA_MPLANE_CC_CNP_INTERVAL_US, 4, 0,
	  MPLANE_CC_CNP_INTERVAL_US_MAX),
	{ "IFLA_MPLANE_CC_RATE_MAX_KBPS", CC, IFLA_MPLANE_CC_RATE_MAX_KBPS, 4,
	  MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX, true, false },
	A(CC, IFLA_MPLANE_CC_RATE_MIN_KBPS, 4, MPLANE_CC_RATE_KBPS_MIN,
	  MPLANE_CC_RATE_KBPS_MAX),
	A(CC, IFLA_MPLANE_CC_RATE_AI_KBPS, 4, MPLANE_CC_RATE_KBPS_MIN,
	  MPLANE_CC_RATE_KBPS_MAX),
	A(CC, IFLA_MPLANE_CC_RATE_HAI_KBPS, 4, MPLANE_CC_RATE_KBPS_MIN,
	  MPLANE_CC_RATE_KBPS_MAX),
	A(CC, IFLA_MPLANE_CC_TIME_RESET_US, 4, MPLANE_CC_TIME_RESET_US_MIN,
	  MPLANE_CC_TIME_RESET_US_MAX),
	A(CC, IFLA_MPLANE_CC_BYTE_RESET, 4, MPLANE_CC_BYTE_RESET_MIN,
	  MPLANE_CC_BYTE_RESET_MAX),
	A(CC, IFLA_MPLANE_CC_THRESHOLD, 4, MPLANE_CC_THRESHOLD_MIN,
	  MPLANE_CC_THRESHOLD_MAX),
	A(CC, IFLA_MPLANE_CC_ALPHA_G, 4, 0, MPLANE_CC_ALPHA_MAX),
	A(CC, IFLA_MPLANE_CC_ALPHA_PERIOD_US, 4, MPLANE_CC_ALPHA_PERIOD_US_MIN,
	  MPLANE_CC_ALPHA_PERIOD_US_MAX),
	A(CC, IFLA_MPLANE_CC_ALPHA_INITIAL, 4, MPLANE_CC_ALPHA_INITIAL_MIN,
	  MPLANE_CC_ALPHA_MAX),
	A(CC, IFLA_MPLANE_CC_REDUCE_PERIOD_US, 4, 0,
	  MPLANE_CC_REDUCE_PERIOD_US_MAX),
	A(CC, IFLA_MPLANE_CC_MIN_DEC_FAC, 4, 0, MPLANE_CC_MIN_DEC_FAC_MAX),
	A(CC, IFLA_MPLANE_CC_QP_MAX, 4, MPLANE_CC_QP_MAX_MIN,
	  MPLANE_CC_QP_MAX_MAX),
	RO(CC, IFLA_MPLANE_CC_QP_COUNT),
	RO(CC, IFLA_MPLANE_CC_QP_EVICTIONS),
	RO(CC, IFLA_MPLANE_CC_CNP_UNKNOWN),
	RO(CC, IFLA_MPLANE_CC_BAD_BTH),
	{ "IFLA_MPLANE_CC_PAD", CC, IFLA_MPLANE_CC_PAD, 0, 0, 0, false, true },
	RO(SLAVE, IFLA_MPLANE_PLANE_ID),
	RO(SLAVE, IFLA_MPLANE_PLANE_STATE),
	RO(SLAVE, IFLA_MPLANE_PLANE_REASON),
	A(SLAVE, IFLA_MPLANE_PLANE_WEIGHT, 4, 0, MPLANE_WEIGHT_MAX),
	A(SLAVE, IFLA_MPLANE_PLANE_ADMIN, 1, 0, __MPLANE_ADMIN_MAX - 1),
	RO(SLAVE, IFLA_MPLANE_PLANE_LOAD),
	RO(SLAVE, IFLA_MPLANE_PLANE_CONG_SCORE),
	RO(SLAVE, IFLA_MPLANE_PLANE_STATS),
	{ "IFLA_MPLANE_PLANE_PAD", SLAVE, IFLA_MPLANE_PLANE_PAD, 0, 0, 0, false,
	  true },
};

/* What a case must get back. */
enum want { ACCEPT, IGNORE, RANGE, READ_ONLY, REFUSE, BELOW_MIN };

struct run {
	struct mp_rtnl *r;
	const char *mp0, *rail;
	unsigned int cases, failed;
};

/* One attribute: its type, and @len payload bytes (a u8 or a u32 in
 * host order, or what @raw holds). */
struct payload {
	unsigned int type;
	const void *raw;
	unsigned int len;
	__u32 v;
};

static void put_payload(struct nlmsghdr *nlh, const struct payload *p)
{
	__u8 b[8] = {};

	if (p->raw) {
		mnl_attr_put(nlh, p->type, p->len, p->raw);
		return;
	}
	if (p->len == 1)
		b[0] = p->v;
	else
		memcpy(b, &p->v, p->len < 4 ? p->len : 4);
	mnl_attr_put(nlh, p->type, p->len, b);
}

/* RTM_NEWLINK changing @where's data of @dev by @p. */
static int send_change(struct run *run, enum where where,
		       const struct payload *p, struct mp_nlerr *e)
{
	const char *dev = where == SLAVE ? run->rail : run->mp0;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *linkinfo, *data, *cc = NULL;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	if (where != SLAVE)
		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "mplane");
	data = mnl_attr_nest_start(nlh, where == SLAVE ? IFLA_INFO_SLAVE_DATA :
							 IFLA_INFO_DATA);
	if (where == CC)
		cc = mnl_attr_nest_start(nlh, IFLA_MPLANE_CC);
	put_payload(nlh, p);
	if (cc)
		mnl_attr_nest_end(nlh, cc);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return mp_rtnl_request(run->r, nlh, NULL, NULL, e);
}

/* Every writable setting, as the kernel reports it. */
struct settings {
	__u32 dev[MP_ATTR_SLOTS];
	__u64 cc[MP_CC_SLOTS];
	__u32 slave[MP_ATTR_SLOTS];
};

static int read_settings(struct run *run, struct settings *s)
{
	struct mp_nlerr e = { .offs = -1 };
	struct mp_link *l = malloc(sizeof(*l));
	unsigned int i;
	int err;

	memset(s, 0, sizeof(*s));
	if (!l)
		return -ENOMEM;
	err = mp_rtnl_get_link(run->r, run->mp0, l, &e);
	for (i = 0; !err && i < N(attrs); i++) {
		if (!attrs[i].width || attrs[i].where == SLAVE)
			continue;
		if (attrs[i].where == DEV)
			s->dev[attrs[i].type] = l->val[attrs[i].type];
		else
			s->cc[attrs[i].type] = l->cc_val[attrs[i].type];
	}
	if (!err)
		err = mp_rtnl_get_link(run->r, run->rail, l, &e);
	for (i = 0; !err && i < N(attrs); i++)
		if (attrs[i].width && attrs[i].where == SLAVE)
			s->slave[attrs[i].type] = l->plane.val[attrs[i].type];
	free(l);
	return err;
}

static __u32 setting(const struct settings *s, const struct attr_desc *a)
{
	if (a->where == DEV)
		return s->dev[a->type];
	if (a->where == CC)
		return s->cc[a->type];
	return s->slave[a->type];
}

static void report(struct run *run, bool ok, const char *name,
		   const char *what, int err, const struct mp_nlerr *e)
{
	run->cases++;
	run->failed += !ok;
	if (ok)
		printf("ok|%s|%d|%s\n", name, -err, e->msg);
	else
		printf("FAIL|%s|%s: errno %d, extack '%s', offset %d\n", name,
		       what, -err, e->msg, e->offs);
}

/* Whether the answer is what @want says, and why not in @why. */
static bool as_wanted(enum want want, const struct attr_desc *a, int err,
		      const struct mp_nlerr *e, const char **why)
{
	char hi[32];

	*why = NULL;
	if (want == ACCEPT || want == IGNORE) {
		if (err)
			*why = "refused";
		return !err;
	}
	if (!err)
		*why = "accepted";
	else if (e->offs < 0)
		*why = "the extack points at no attribute";
	else if (!e->msg[0] && !(a && a->no_msg))
		*why = "no extack message";
	else if (want == READ_ONLY && !strstr(e->msg, "read-only"))
		*why = "not refused as read-only";
	else if (want == BELOW_MIN && !strstr(e->msg, "must not be above"))
		*why = "not refused for the rate-min above it";
	if (*why || want != RANGE)
		return !*why;
	snprintf(hi, sizeof(hi), "..%u", a->hi);
	if (err != -ERANGE)
		*why = "not ERANGE";
	else if (!strstr(e->msg, a->name) || !strstr(e->msg, ") must be"))
		*why = "the extack names no attribute and range";
	else if (!strstr(e->msg, hi))
		*why = "the extack's range is not the uapi's";
	return !*why;
}

static void one(struct run *run, const struct attr_desc *a, enum where where,
		const struct payload *p, enum want want, const char *what)
{
	struct mp_nlerr e = { .offs = -1 };
	const char *why;
	char name[128];
	int err;
	bool ok;

	err = send_change(run, where, p, &e);
	snprintf(name, sizeof(name), "%s%s%s", a ? a->name : "", a ? " " : "",
		 what);
	ok = as_wanted(want, a, err, &e, &why);
	report(run, ok, name, why, err, &e);
}

static void value(struct run *run, const struct attr_desc *a, __u32 v,
		  enum want want, const char *what)
{
	struct payload p = { .type = a->type, .len = a->width, .v = v };
	char label[48];

	snprintf(label, sizeof(label), "%s %u", what, v);
	one(run, a, a->where, &p, want, label);
}

static void unchanged(struct run *run, const struct attr_desc *a,
		      const struct settings *was, const char *after)
{
	struct mp_nlerr e = { .offs = -1 };
	struct settings now;
	char name[128];
	bool same;

	same = !read_settings(run, &now) && !memcmp(&now, was, sizeof(now));
	snprintf(name, sizeof(name), "%s: settings unchanged after %s",
		 a->name, after);
	report(run, same, name, "a setting changed", 0, &e);
}

static void lengths(struct run *run, const struct attr_desc *a)
{
	static const unsigned int lens[] = { 0, 1, 2, 4, 8 };
	struct payload p = { .type = a->type, .v = a->lo };
	char what[32];
	unsigned int i;

	for (i = 0; i < N(lens); i++) {
		if (lens[i] == a->width)
			continue;
		p.len = lens[i];
		snprintf(what, sizeof(what), "as %u bytes", lens[i]);
		one(run, a, a->where, &p, REFUSE, what);
	}
}

static void writable(struct run *run, const struct attr_desc *a,
		     const struct settings *was)
{
	__u32 top = a->width == 1 ? 0xff : 0xffffffff;

	lengths(run, a);
	if (a->lo > 1 || (a->lo == 1 && !a->or_zero))
		value(run, a, a->lo - 1, RANGE, "below");
	if (a->hi < top)
		value(run, a, a->hi + 1, RANGE, "above");
	if (a->hi + 1 < top)
		value(run, a, top, RANGE, "at the type's top");
	unchanged(run, a, was, "its refusals");
	if (a->where == CC && a->type == IFLA_MPLANE_CC_RATE_MAX_KBPS &&
	    was->cc[IFLA_MPLANE_CC_RATE_MIN_KBPS] > a->lo) {
		/* Between settings: no rate-max below the rate-min. */
		value(run, a, a->lo, BELOW_MIN, "lowest, under rate-min");
		value(run, a, was->cc[IFLA_MPLANE_CC_RATE_MIN_KBPS], ACCEPT,
		      "at rate-min");
	} else {
		value(run, a, a->lo, ACCEPT, "lowest");
	}
	value(run, a, a->hi, ACCEPT, "highest");
	if (a->or_zero)
		value(run, a, 0, ACCEPT, "off");
	value(run, a, setting(was, a), ACCEPT, "back to");
	unchanged(run, a, was, "its values were put back");
}

static void read_only(struct run *run, const struct attr_desc *a)
{
	struct payload p = { .type = a->type, .len = 4 };

	one(run, a, a->where, &p, a->no_msg ? REFUSE : READ_ONLY, "as a u32");
	p.len = 8;
	one(run, a, a->where, &p, a->no_msg ? REFUSE : READ_ONLY, "as a u64");
}

/* Types no policy knows, and nests used wrongly. */
static void strays(struct run *run)
{
	static const __u8 peer5[] = { 5 + 4, 0, IFLA_MPLANE_PEER, 0,
				      1, 2, 3, 4, 5, 0, 0, 0 };
	static const __u8 not_nest[] = { 1, 0, 0, 0 };
	static const __u8 one_byte[] = { 1 };
	__u8 many[65 * 8];
	static const struct { enum where where; unsigned int type; } unknown[] = {
		{ DEV, 0 }, { DEV, IFLA_MPLANE_MAX + 1 }, { DEV, 0x3fff },
		{ SLAVE, IFLA_MPLANE_PLANE_MAX + 1 }, { SLAVE, 0x3fff },
	};
	struct payload p = { .len = 4, .v = 1 };
	unsigned int i;
	char what[48];

	for (i = 0; i < N(unknown); i++) {
		p.type = unknown[i].type;
		snprintf(what, sizeof(what), "unknown type %u of the %s",
			 p.type, unknown[i].where == DEV ? "device" : "rail");
		one(run, NULL, unknown[i].where, &p, IGNORE, what);
	}
	p.type = IFLA_MPLANE_CC_MAX + 1;
	one(run, NULL, CC, &p, REFUSE, "unknown type in the CC nest");
	p.type = 0x3fff;
	one(run, NULL, CC, &p, REFUSE, "type 0x3fff in the CC nest");
	p = (struct payload){ .type = IFLA_MPLANE_CC, .raw = not_nest,
			      .len = sizeof(not_nest) };
	one(run, NULL, DEV, &p, REFUSE, "CC as a u32");
	p.type = IFLA_MPLANE_PEERS;
	one(run, NULL, DEV, &p, REFUSE, "PEERS as a u32");
	p = (struct payload){ .type = IFLA_MPLANE_CC_ALGO | NLA_F_NESTED,
			      .raw = one_byte, .len = sizeof(one_byte) };
	one(run, NULL, CC, &p, REFUSE, "CC's algo marked as a nest");
	p = (struct payload){ .type = IFLA_MPLANE_PEERS | NLA_F_NESTED,
			      .raw = peer5, .len = sizeof(peer5) };
	one(run, NULL, DEV, &p, REFUSE, "a peer of 5 bytes");
	for (i = 0; i < 65; i++)
		memcpy(many + 8 * i, (const __u8[]){ 8, 0, IFLA_MPLANE_PEER, 0,
						     10, 9, 0, 1 + i }, 8);
	p = (struct payload){ .type = IFLA_MPLANE_PEERS | NLA_F_NESTED,
			      .raw = many, .len = sizeof(many) };
	one(run, NULL, DEV, &p, REFUSE, "65 peers");
}

int mpnl_cases(struct mp_rtnl *r, const char *mp0, const char *rail)
{
	struct run run = { .r = r, .mp0 = mp0, .rail = rail };
	struct settings was;
	unsigned int i;

	if (read_settings(&run, &was)) {
		fprintf(stderr, "mpnl: reading %s and %s failed\n", mp0, rail);
		return 1;
	}
	for (i = 0; i < N(attrs); i++) {
		if (attrs[i].width)
			writable(&run, &attrs[i], &was);
		else
			read_only(&run, &attrs[i]);
	}
	strays(&run);
	printf("cases %u failed %u\n", run.cases, run.failed);
	return run.failed ? 1 : 0;
}
