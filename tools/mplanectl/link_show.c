// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl link show: mplane devices and their planes, from one dump of
 * every link: a device is a link of kind "mplane", its planes are the
 * links whose master it is and whose slave kind is "mplane".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mplanectl.h"
#include "link.h"

#define LINE_WIDTH	76

static const struct mp_opt show_opts[] = {
	{}
};

static const struct mp_opt_cmd show_cmd = {
	.usage = "link show [DEV]",
	.about =
"Show every mplane device, or only DEV: its state, its settings (named as\n"
"'link set' takes them), its peers and counters, then one row per plane:\n"
"\n"
"  plane        the plane's index in the device\n"
"  rail         the device enslaved as that plane, its operstate, carrier\n"
"  state        up, down, congested, probing or admin_down, and the\n"
"  reason       why: none, carrier, holddown, probe_miss, ecn, admin or\n"
"               master_down\n"
"  admin        up, drain or down, as 'link plane' set it\n"
"  weight       capacity (0: the rail's link speed); load and cong_score\n"
"               are the current load and congestion scores\n"
"  tx_packets .. rate_cuts   the plane's counters ('drops' adds\n"
"               drop_no_route and drop_xmit; cnp counts CNPs received,\n"
"               cnp_sent those mp0 sent for CE it received, rate_cuts the\n"
"               QP rates those CNPs cut)\n"
"\n"
"The other counters of a plane are in JSON only: probes_refused and\n"
"probes_throttled, and those of resequencing (reorder-window): reorder_held\n"
"(packets that came past a PSN gap on the plane and were held),\n"
"reorder_filled (gaps a packet on it filled in time), reorder_expired\n"
"(gaps given up when the window ended) and reorder_overflows (gaps given\n"
"up when a QP's or the device's hold was full).\n"
"\n"
"Congestion control: a line \"cc ALGO ...\" with every setting of 'link set'\n"
"(cc, cnp-interval .. qp-max), a line of its counters (QPs tracked of\n"
"qp-max, evictions, CNPs for no known QP, RoCEv2 packets too short for a\n"
"BTH), then, after the planes, one row per QP whose rate is limited now\n"
"(at most 64, the most recently cut first):\n"
"\n"
"  peer         the address the QP sends to\n"
"  qpn          the peer's destination QPN, in hex\n"
"  rate, target the current (Rc) and target (Rt) rates, in kbit/s\n"
"  alpha        DCQCN's alpha, as a fraction of 1\n"
"  cnp_rx       CNPs received for it; cnp_tx: CNPs sent for CE on it\n"
"  cuts         its rate cuts; tx_bytes: bytes sent while tracked\n"
"\n"
"What the kernel does not report shows as '-' (and is left out of JSON).\n"
"Without DEV and without mplane devices nothing is printed.\n"
"\n"
"With -j, one JSON object; names are those of uapi/linux/mplane.h:\n"
"  {\"devices\":[{\"name\":\"mp0\",\"ifindex\":5,\"up\":true,\"operstate\":\"up\",\n"
"    \"plane_count\":2,\"policy\":\"flowlet\",\"flowlet_gap_us\":100,\n"
"    \"probe_interval_us\":1000,\"probe_misses\":3,\"holddown_ms\":50,\n"
"    \"cong_threshold\":64,\"cong_halflife_us\":1000,\"gso_mode\":\"whole\",\n"
"    \"sample_interval_us\":0,\"reorder_us\":0,\n"
"    \"peers\":[\"10.0.0.2\"],\n"
"    \"cc\":{\"algo\":\"dcqcn\",\"cnp_interval_us\":50,\"rate_max_kbps\":0,...,\n"
"      \"qp_max\":1024,\"qp_count\":1,\"qp_evictions\":0,\"cnp_unknown\":0,\n"
"      \"bad_bth\":0},\n"
"    \"stats64\":{\"rx_packets\":0,\"rx_bytes\":0,\"tx_packets\":0,...},\n"
"    \"planes\":[{\"index\":0,\"rail\":\"a0\",\"ifindex\":3,\"operstate\":\"up\",\n"
"      \"carrier\":true,\"state\":\"up\",\"reason\":\"none\",\"admin\":\"up\",\n"
"      \"weight\":0,\"load\":0,\"cong_score\":0,\n"
"      \"stats\":{\"tx_packets\":0,\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,\n"
"        \"selections\":0,\"drop_no_route\":0,\"drop_xmit\":0,\n"
"        \"state_changes\":0,\"failovers\":0,\"ecn_ce\":0,\"cnp\":0,\n"
"        \"probes_sent\":0,\"probes_lost\":0,\"cnp_sent\":0,\"rate_cuts\":0,\n"
"        \"probes_refused\":0,\"probes_throttled\":0,\"reorder_held\":0,\n"
"        \"reorder_filled\":0,\"reorder_expired\":0,\"reorder_overflows\":0}}],\n"
"    \"qps\":[{\"peer\":\"10.0.0.2\",\"qpn\":17,\"rate_kbps\":500000,\n"
"      \"target_kbps\":750000,\"alpha\":0.5,\"alpha_1024\":512,\"cnp_rx\":3,\n"
"      \"cnp_tx\":0,\"rate_cuts\":3,\"tx_bytes\":1048576}]}]}\n",
	.opts = show_opts,
	.footer =
"Examples:\n"
"  mplanectl link show\n"
"  mplanectl link show mp0\n"
"  mplanectl -j link show mp0 | jq '.devices[0].planes[] | {rail, state}'\n",
};

struct links {
	size_t n;
	struct mp_link *v;
};

struct show {
	const char *want;		/* DEV, or NULL for every device */
	bool want_seen;			/* a link of that name exists */
	char want_kind[32];
	struct links devs, planes;
	int err;
};

static int keep(struct links *ls, const struct mp_link *l)
{
	struct mp_link *v = realloc(ls->v, (ls->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[ls->n++] = *l;
	ls->v = v;
	return 0;
}

static int collect(const struct mp_link *l, int msg_type, void *data)
{
	struct show *sh = data;

	if (msg_type != RTM_NEWLINK)
		return 0;
	if (sh->want && !strcmp(l->name, sh->want)) {
		sh->want_seen = true;
		snprintf(sh->want_kind, sizeof(sh->want_kind), "%s", l->kind);
	}
	if (mp_link_is_mplane(l) && (!sh->want || !strcmp(l->name, sh->want)))
		return keep(&sh->devs, l);
	if (mp_link_is_plane(l))
		return keep(&sh->planes, l);
	return 0;
}

static void forget(void *data)
{
	struct show *sh = data;

	free(sh->devs.v);
	free(sh->planes.v);
	memset(&sh->devs, 0, sizeof(sh->devs));
	memset(&sh->planes, 0, sizeof(sh->planes));
	sh->want_seen = false;
}

static bool has(const struct mp_plane_info *p, unsigned int attr)
{
	return p->present & (1u << attr);
}

/* By device, then by plane index; a plane without one goes last. */
static int plane_cmp(const void *a, const void *b)
{
	const struct mp_link *x = a, *y = b;
	uint64_t ix = has(&x->plane, IFLA_MPLANE_PLANE_ID) ?
		x->plane.val[IFLA_MPLANE_PLANE_ID] : UINT64_MAX;
	uint64_t iy = has(&y->plane, IFLA_MPLANE_PLANE_ID) ?
		y->plane.val[IFLA_MPLANE_PLANE_ID] : UINT64_MAX;

	if (x->master != y->master)
		return x->master < y->master ? -1 : 1;
	if (ix != iy)
		return ix < iy ? -1 : 1;
	return x->ifindex - y->ifindex;
}

/* The planes of @dev, in @planes sorted by plane_cmp(). */
static const struct mp_link *planes_of(const struct mp_link *dev,
				       const struct links *planes, size_t *n)
{
	size_t i, first = planes->n;

	*n = 0;
	for (i = 0; i < planes->n; i++) {
		if (planes->v[i].master != dev->ifindex)
			continue;
		if (first == planes->n)
			first = i;
		(*n)++;
	}
	return *n ? &planes->v[first] : NULL;
}

/* ----- Output: text and JSON from the same calls ------------------------ */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1u << (n))

/* An enum's name, or its number when a newer kernel has more. */
static void print_enum(const char *key, const char *fmt,
		       const struct mp_names *names, uint64_t v)
{
	char num[16];

	if (mp_name(names, v))
		mp_print_str(MP_PRINT_JSON, key, NULL, mp_name(names, v));
	else
		mp_print_u64(MP_PRINT_JSON, key, NULL, v);
	mp_print_str(MP_PRINT_TEXT, NULL, fmt,
		     link_enum_str(names, v, num, sizeof(num)));
}

/* What the kernel did not send: '-' in text, nothing in JSON. */
static void print_maybe(bool present, const char *key, uint64_t v)
{
	if (present)
		mp_print_u64(MP_PRINT_ANY, key, "%" PRIu64, v);
	else
		mp_print_text("-");
}

/* "US" -> "us": the unit that the settings' argument names. */
static const char *unit(const struct mp_setting *st)
{
	if (!st->arg || !strcmp(st->arg, "N"))
		return "";
	/* "US|off": the number is in microseconds. */
	return !strncmp(st->arg, "US", 2) ? "us" :
	       !strncmp(st->arg, "MS", 2) ? "ms" :
	       !strcmp(st->arg, "KBPS") ? "kbit/s" :
	       !strcmp(st->arg, "PERCENT") ? "%" : "";
}

/* The 'link set' setting of @attr in @nest: text names it so. */
static const struct mp_setting *setting_of(unsigned int nest,
					   unsigned int attr)
{
	const struct mp_setting *st;

	for (st = link_dev_settings(); st->keyword; st++)
		if (st->nest == nest && st->attr == attr)
			return st;
	return NULL;
}

/* The JSON key of @attr in @f, a table of mp_names.h. */
static const char *key_of(const struct mp_field *f, unsigned int attr)
{
	for (; f->key; f++)
		if (f->attr == attr)
			return f->key;
	return NULL;
}

/*
 * "flowlet-gap 100us" in text, "flowlet_gap_us":100 in JSON; a field no
 * setting shows (plane_count: text counts the planes it lists) is JSON's.
 */
static void print_setting(const struct mp_field *f, unsigned int nest,
			  uint64_t v)
{
	const struct mp_setting *st = setting_of(nest, f->attr);

	if (!st || !st->width) {
		mp_print_u64(MP_PRINT_JSON, f->key, NULL, v);
		return;
	}
	mp_print_cell_open();
	mp_print_text("%s ", st->keyword);
	if (f->names) {
		print_enum(f->key, "%s", f->names, v);
	} else if (st->arg && strstr(st->arg, "|off") && !v) {
		/* "US|off" (sample-interval, reorder-window): 0 is off. */
		mp_print_u64(MP_PRINT_JSON, f->key, NULL, v);
		mp_print_text("off");
	} else {
		mp_print_u64(MP_PRINT_ANY, f->key, "%" PRIu64, v);
		mp_print_text("%s", f->attr == IFLA_MPLANE_CC_RATE_MAX_KBPS &&
			      nest == IFLA_MPLANE_CC && !v ?
			      " (line rate)" : unit(st));
	}
	mp_print_cell_close();
}

static bool has_cc(const struct mp_link *d, unsigned int attr)
{
	return d->cc_present & BIT(attr);
}

/* "qps 1 qp_evictions 0 ...": what congestion control counts. */
static void print_cc_counters(const struct mp_link *d)
{
	const uint64_t *v = d->cc_val;

	mp_print_words_open(4, LINE_WIDTH);
	mp_print_text("qps");
	if (has_cc(d, IFLA_MPLANE_CC_QP_COUNT)) {
		mp_print_cell_open();
		mp_print_u64(MP_PRINT_ANY, "qp_count", "%" PRIu64,
			     v[IFLA_MPLANE_CC_QP_COUNT]);
		if (!d->nqps && d->present & BIT(IFLA_MPLANE_QPS))
			mp_print_text(" (none limited)");
		mp_print_cell_close();
	} else {
		mp_print_text("-");
	}
	if (has_cc(d, IFLA_MPLANE_CC_QP_EVICTIONS))
		mp_print_u64(MP_PRINT_ANY, "qp_evictions", "qp_evictions %" PRIu64,
			     v[IFLA_MPLANE_CC_QP_EVICTIONS]);
	if (has_cc(d, IFLA_MPLANE_CC_CNP_UNKNOWN))
		mp_print_u64(MP_PRINT_ANY, "cnp_unknown", "cnp_unknown %" PRIu64,
			     v[IFLA_MPLANE_CC_CNP_UNKNOWN]);
	if (has_cc(d, IFLA_MPLANE_CC_BAD_BTH))
		mp_print_u64(MP_PRINT_ANY, "bad_bth", "bad_bth %" PRIu64,
			     v[IFLA_MPLANE_CC_BAD_BTH]);
	mp_print_words_close();
}

/*
 * "cc dcqcn cnp-interval 50us ...", every setting under its 'link set'
 * keyword, then the counters; nothing from a kernel without the nest.
 */
static void print_cc(const struct mp_link *d)
{
	const struct mp_field *f;

	if (!(d->present & BIT(IFLA_MPLANE_CC)))
		return;
	mp_print_open_object("cc");
	mp_print_words_open(4, LINE_WIDTH);
	for (f = mp_cc_fields; f->key; f++)
		if (has_cc(d, f->attr) && setting_of(IFLA_MPLANE_CC, f->attr))
			print_setting(f, IFLA_MPLANE_CC, d->cc_val[f->attr]);
	mp_print_words_close();
	print_cc_counters(d);
	mp_print_close_object();
}

static void print_stats64(const struct rtnl_link_stats64 *s)
{
	mp_print_open_object("stats64");
	mp_print_words_open(4, LINE_WIDTH);
	mp_print_cell_open();
	mp_print_u64(MP_PRINT_ANY, "rx_packets", "rx %" PRIu64, s->rx_packets);
	mp_print_u64(MP_PRINT_ANY, "rx_bytes", " packets %" PRIu64 " bytes,",
		     s->rx_bytes);
	mp_print_cell_close();
	mp_print_cell_open();
	mp_print_u64(MP_PRINT_ANY, "tx_packets", "tx %" PRIu64, s->tx_packets);
	mp_print_u64(MP_PRINT_ANY, "tx_bytes", " packets %" PRIu64 " bytes,",
		     s->tx_bytes);
	mp_print_cell_close();
	/* Text leaves the errors to 'ip -s link'. */
	mp_print_u64(MP_PRINT_JSON, "rx_errors", NULL, s->rx_errors);
	mp_print_u64(MP_PRINT_JSON, "tx_errors", NULL, s->tx_errors);
	mp_print_cell_open();
	mp_print_u64(MP_PRINT_ANY, "rx_dropped", "dropped rx %" PRIu64,
		     s->rx_dropped);
	mp_print_u64(MP_PRINT_ANY, "tx_dropped", " tx %" PRIu64, s->tx_dropped);
	mp_print_cell_close();
	mp_print_words_close();
	mp_print_close_object();
}

static void print_settings(const struct mp_link *d)
{
	char addr[MP_ADDR_STRLEN];
	const struct mp_field *f;
	unsigned int i;

	mp_print_words_open(4, LINE_WIDTH);
	for (f = mp_device_fields; f->key; f++)
		if (d->present & BIT(f->attr))
			print_setting(f, 0, d->val[f->attr]);
	mp_print_words_close();
	mp_print_words_open(4, LINE_WIDTH);
	mp_print_text("peers");
	mp_print_open_array("peers");
	for (i = 0; i < d->npeers; i++)
		mp_print_str(MP_PRINT_ANY, NULL, "%s",
			     mp_addr_str(&d->peers[i], addr, sizeof(addr)));
	mp_print_close_array();
	if (!d->npeers)
		mp_print_text("none");
	mp_print_words_close();
	print_cc(d);
	if (d->has_stats64)
		print_stats64(&d->stats64);
}

static const struct mp_print_col plane_cols[] = {
	{ .header = "plane" },
	{ .header = "rail", .left = true },
	{ .header = "operstate", .left = true },
	{ .header = "carrier", .left = true },
	{ .header = "state", .left = true },
	{ .header = "reason", .left = true },
	{ .header = "admin", .left = true },
	{ .header = "weight" },
	{ .header = "load" },
	{ .header = "cong_score" },
	{ .header = "tx_packets" },
	{ .header = "rx_packets" },
	{ .header = "selections" },
	{ .header = "drops" },
	{ .header = "failovers" },
	{ .header = "ecn_ce" },
	{ .header = "cnp" },
	{ .header = "probes_sent" },
	{ .header = "probes_lost" },
	{ .header = "cnp_sent" },
	{ .header = "rate_cuts" },
};

/* The plane counters with a column of their own; the rest are JSON's. */
#define PSTAT_COLUMNS (BIT(IFLA_MPLANE_PSTAT_TX_PACKETS) |		\
		       BIT(IFLA_MPLANE_PSTAT_RX_PACKETS) |		\
		       BIT(IFLA_MPLANE_PSTAT_SELECTIONS) |		\
		       BIT(IFLA_MPLANE_PSTAT_FAILOVERS) |		\
		       BIT(IFLA_MPLANE_PSTAT_ECN_CE) |			\
		       BIT(IFLA_MPLANE_PSTAT_CNP) |			\
		       BIT(IFLA_MPLANE_PSTAT_PROBES_SENT) |		\
		       BIT(IFLA_MPLANE_PSTAT_PROBES_LOST) |		\
		       BIT(IFLA_MPLANE_PSTAT_CNP_SENT) |			\
		       BIT(IFLA_MPLANE_PSTAT_RATE_CUTS))

/* Text's "drops": a packet lost for no route or refused by the rail. */
static void print_drops(const struct mp_plane_info *p)
{
	uint32_t mask = BIT(IFLA_MPLANE_PSTAT_DROP_NO_ROUTE) |
			BIT(IFLA_MPLANE_PSTAT_DROP_XMIT);

	if (p->stats_present & mask)
		mp_print_u64(MP_PRINT_TEXT, NULL, "%" PRIu64,
			     p->stats[IFLA_MPLANE_PSTAT_DROP_NO_ROUTE] +
			     p->stats[IFLA_MPLANE_PSTAT_DROP_XMIT]);
	else
		mp_print_text("-");
}

/* The counters in their uapi order, which is also their columns'. */
static void print_plane_stats(const struct mp_plane_info *p)
{
	bool nest = has(p, IFLA_MPLANE_PLANE_STATS), present;
	const char *name;
	unsigned int i;

	if (nest)
		mp_print_open_object("stats");
	for (i = 1; i < mp_pstat_names.count; i++) {
		name = mp_name(&mp_pstat_names, i);
		if (!name)
			continue;
		present = nest && p->stats_present & BIT(i);
		if (PSTAT_COLUMNS & BIT(i))
			print_maybe(present, name, p->stats[i]);
		else if (present)
			mp_print_u64(MP_PRINT_JSON, name, NULL, p->stats[i]);
		if (i == IFLA_MPLANE_PSTAT_DROP_XMIT)
			print_drops(p);
	}
	if (nest)
		mp_print_close_object();
}

static void print_plane(const struct mp_link *rail)
{
	const struct mp_plane_info *p = &rail->plane;
	const struct mp_field *f;

	mp_print_table_row();
	mp_print_open_object(NULL);
	print_maybe(has(p, IFLA_MPLANE_PLANE_ID), "index",
		    p->val[IFLA_MPLANE_PLANE_ID]);
	mp_print_str(MP_PRINT_ANY, "rail", "%s", rail->name);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, rail->ifindex);
	if (rail->operstate >= 0)
		print_enum("operstate", "%s", &mp_operstate_names,
			   rail->operstate);
	else
		mp_print_text("-");
	if (rail->carrier >= 0) {
		mp_print_bool(MP_PRINT_JSON, "carrier", NULL, rail->carrier);
		mp_print_text("%s", rail->carrier ? "yes" : "no");
	} else {
		mp_print_text("-");
	}
	for (f = mp_plane_fields; f->key; f++)
		if (!has(p, f->attr))
			mp_print_text("-");
		else if (f->names)
			print_enum(f->key, "%s", f->names, p->val[f->attr]);
		else
			mp_print_u64(MP_PRINT_ANY, f->key, "%" PRIu64,
				     p->val[f->attr]);
	print_plane_stats(p);
	mp_print_close_object();
}

static const struct mp_print_col qp_cols[] = {
	{ .header = "peer", .left = true },
	{ .header = "qpn" },
	{ .header = "rate" },
	{ .header = "target" },
	{ .header = "alpha" },
	{ .header = "cnp_rx" },
	{ .header = "cnp_tx" },
	{ .header = "cuts" },
	{ .header = "tx_bytes" },
};

static bool has_qp(const struct mp_qp *q, unsigned int attr)
{
	return q->present & BIT(attr);
}

/* A rate in kbit/s as people read it: "750Mbit/s", "1.5Gbit/s". */
static void print_rate(const struct mp_qp *q, unsigned int attr)
{
	static const char *const units[] = { "kbit/s", "Mbit/s", "Gbit/s" };
	double v = q->val[attr];
	unsigned int u = 0;

	if (!has_qp(q, attr)) {
		mp_print_text("-");
		return;
	}
	mp_print_u64(MP_PRINT_JSON, key_of(mp_qp_fields, attr), NULL,
		     q->val[attr]);
	while (v >= 1000 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1000;
		u++;
	}
	mp_print_text("%.4g%s", v, units[u]);
}

static void print_qp_val(const struct mp_qp *q, unsigned int attr)
{
	print_maybe(has_qp(q, attr), key_of(mp_qp_fields, attr), q->val[attr]);
}

static void print_qp(const struct mp_qp *q)
{
	char addr[MP_ADDR_STRLEN];
	uint64_t alpha = q->val[IFLA_MPLANE_QP_ALPHA];

	mp_print_table_row();
	mp_print_open_object(NULL);
	if (has_qp(q, IFLA_MPLANE_QP_PEER))
		mp_print_str(MP_PRINT_ANY, "peer", "%s",
			     mp_addr_str(&q->peer, addr, sizeof(addr)));
	else
		mp_print_text("-");
	if (has_qp(q, IFLA_MPLANE_QP_QPN))
		mp_print_u64(MP_PRINT_ANY, "qpn", "0x%06" PRIx64,
			     q->val[IFLA_MPLANE_QP_QPN]);
	else
		mp_print_text("-");
	print_rate(q, IFLA_MPLANE_QP_RATE_KBPS);
	print_rate(q, IFLA_MPLANE_QP_TARGET_KBPS);
	if (has_qp(q, IFLA_MPLANE_QP_ALPHA)) {
		/* Every digit, as json-c printed it before: scripts compare. */
		mp_print_double(MP_PRINT_ANY, "alpha", "%.3f",
				(double)alpha / MPLANE_CC_ALPHA_ONE);
		mp_print_u64(MP_PRINT_JSON, "alpha_1024", NULL, alpha);
	} else {
		mp_print_text("-");
	}
	print_qp_val(q, IFLA_MPLANE_QP_CNP_RX);
	print_qp_val(q, IFLA_MPLANE_QP_CNP_TX);
	print_qp_val(q, IFLA_MPLANE_QP_RATE_CUTS);
	print_qp_val(q, IFLA_MPLANE_QP_TX_BYTES);
	mp_print_close_object();
}

/* Below the planes: a QP's peer is an address, never a plane's index. */
static void print_qps(const struct mp_link *d)
{
	size_t i;

	/* An mplane.ko from before congestion control sends none. */
	if (!(d->present & BIT(IFLA_MPLANE_QPS)))
		return;
	mp_print_open_array("qps");
	mp_print_table_open(4, qp_cols, ARRAY_SIZE(qp_cols));
	for (i = 0; i < d->nqps; i++)
		print_qp(&d->qps[i]);
	mp_print_table_close();
	mp_print_close_array();
}

static void print_planes(const struct mp_link *d, const struct mp_link *planes,
			 size_t n)
{
	size_t i;

	mp_print_open_array("planes");
	if (!n)
		mp_print_text("    no planes: add one with 'ip link set RAIL master %s'\n",
			      d->name);
	mp_print_table_open(4, plane_cols, ARRAY_SIZE(plane_cols));
	for (i = 0; i < n; i++)
		print_plane(&planes[i]);
	mp_print_table_close();
	mp_print_close_array();
}

static void print_device(const struct mp_link *d, const struct mp_link *planes,
			 size_t n)
{
	mp_print_open_object(NULL);
	mp_print_str(MP_PRINT_ANY, "name", "%s", d->name);
	mp_print_u64(MP_PRINT_JSON, "ifindex", NULL, d->ifindex);
	mp_print_bool(MP_PRINT_JSON, "up", NULL, d->flags & IFF_UP);
	mp_print_text(": %s", d->flags & IFF_UP ? "up" : "down");
	if (d->operstate >= 0)
		print_enum("operstate", ", operstate %s", &mp_operstate_names,
			   d->operstate);
	else
		mp_print_text(", operstate -");
	mp_print_text(", %zu plane%s\n", n, n == 1 ? "" : "s");
	print_settings(d);
	print_planes(d, planes, n);
	print_qps(d);
	mp_print_close_object();
}

static void print_devices(const struct show *sh)
{
	const struct mp_link *planes;
	size_t i, n;

	mp_print_start();
	mp_print_open_array("devices");
	for (i = 0; i < sh->devs.n; i++) {
		if (i)
			mp_print_text("\n");
		planes = planes_of(&sh->devs.v[i], &sh->planes, &n);
		print_device(&sh->devs.v[i], planes, n);
	}
	mp_print_close_array();
	mp_print_end();
}

static int show(struct show *sh)
{
	struct mp_nlerr e;
	struct mp_rtnl r;
	int err;

	if (link_open(&r, 0))
		return MP_EXIT_ERR;
	err = mp_rtnl_dump_links(&r, collect, forget, sh, &e);
	mp_rtnl_close(&r);
	if (err) {
		mp_nlerr_report("dumping links", err, &e);
		return MP_EXIT_ERR;
	}
	if (sh->want && !sh->devs.n) {
		if (!sh->want_seen)
			mp_err("%s: %s", sh->want, strerror(ENODEV));
		else if (sh->want_kind[0])
			mp_err("%s: not an mplane device (kind %s)", sh->want,
			       sh->want_kind);
		else
			mp_err("%s: not an mplane device", sh->want);
		return MP_EXIT_ERR;
	}
	qsort(sh->planes.v, sh->planes.n, sizeof(*sh->planes.v), plane_cmp);
	print_devices(sh);
	return MP_EXIT_OK;
}

int link_show_main(int argc, char **argv)
{
	struct show sh = {};
	struct mp_opt_result res;
	int c, ret;

	c = mp_opt_parse(&show_cmd, argc, argv, NULL, &res);
	if (c != MP_OPT_RUN)
		return c;
	if (optind + 1 < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		sh.want = argv[optind];
		ret = link_dev_arg("DEV", sh.want);
		if (ret)
			return ret;
	}
	ret = show(&sh);
	forget(&sh);
	return ret;
}
