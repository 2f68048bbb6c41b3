// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl link show: mplane devices and their planes, from one dump of
 * every link: a device is a link of kind "mplane", its planes are the
 * links whose master it is and whose slave kind is "mplane".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "mp_cmd.h"
#include "mp_opt.h"
#include "mp_out.h"
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
"    \"sample_interval_us\":0,\n"
"    \"peers\":[\"10.0.0.2\"],\n"
"    \"stats64\":{\"rx_packets\":0,\"tx_packets\":0,\"rx_bytes\":0,...},\n"
"    \"planes\":[{\"index\":0,\"rail\":\"a0\",\"ifindex\":3,\"operstate\":\"up\",\n"
"      \"carrier\":true,\"state\":\"up\",\"reason\":\"none\",\"admin\":\"up\",\n"
"      \"weight\":0,\"load\":0,\"cong_score\":0,\n"
"      \"stats\":{\"tx_packets\":0,\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,\n"
"        \"selections\":0,\"drop_no_route\":0,\"drop_xmit\":0,\n"
"        \"state_changes\":0,\"failovers\":0,\"ecn_ce\":0,\"cnp\":0,\n"
"        \"probes_sent\":0,\"probes_lost\":0,\"cnp_sent\":0,\"rate_cuts\":0,\n"
"        \"probes_refused\":0,\"probes_throttled\":0}}],\n"
"    \"cc\":{\"algo\":\"dcqcn\",\"cnp_interval_us\":50,\"rate_max_kbps\":0,...,\n"
"      \"qp_max\":1024,\"qp_count\":1,\"qp_evictions\":0,\"cnp_unknown\":0,\n"
"      \"bad_bth\":0},\n"
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

/* ----- JSON ------------------------------------------------------------ */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void add_u64(struct json_object *obj, const char *key, uint64_t v)
{
	json_object_object_add(obj, key, json_object_new_uint64(v));
}

static void add_value(struct json_object *obj, const char *key,
		      const struct mp_names *names, uint32_t v)
{
	json_object_object_add(obj, key, names ? link_enum_json(names, v) :
			       json_object_new_int64(v));
}

static void add_operstate(struct json_object *obj, const struct mp_link *l)
{
	if (l->operstate >= 0)
		add_value(obj, "operstate", &mp_operstate_names, l->operstate);
}

static struct json_object *plane_json(const struct mp_link *rail)
{
	const struct mp_plane_info *p = &rail->plane;
	struct json_object *obj = json_object_new_object(), *st;
	const struct mp_field *f;
	unsigned int i;

	if (has(p, IFLA_MPLANE_PLANE_ID))
		add_u64(obj, "index", p->val[IFLA_MPLANE_PLANE_ID]);
	json_object_object_add(obj, "rail", json_object_new_string(rail->name));
	add_u64(obj, "ifindex", rail->ifindex);
	add_operstate(obj, rail);
	if (rail->carrier >= 0)
		json_object_object_add(obj, "carrier",
				       json_object_new_boolean(rail->carrier));
	for (f = mp_plane_fields; f->key; f++)
		if (has(p, f->attr))
			add_value(obj, f->key, f->names, p->val[f->attr]);
	if (has(p, IFLA_MPLANE_PLANE_STATS)) {
		st = json_object_new_object();
		for (i = 1; i < mp_pstat_names.count; i++)
			if (p->stats_present & (1u << i))
				add_u64(st, mp_name(&mp_pstat_names, i),
					p->stats[i]);
		json_object_object_add(obj, "stats", st);
	}
	return obj;
}

static struct json_object *cc_json(const struct mp_link *d)
{
	struct json_object *obj = json_object_new_object();
	const struct mp_field *f;

	for (f = mp_cc_fields; f->key; f++) {
		if (!(d->cc_present & (1u << f->attr)))
			continue;
		if (f->names)
			add_value(obj, f->key, f->names, d->cc_val[f->attr]);
		else
			add_u64(obj, f->key, d->cc_val[f->attr]);
	}
	return obj;
}

static double alpha_frac(uint64_t alpha)
{
	return (double)alpha / MPLANE_CC_ALPHA_ONE;
}

static struct json_object *qp_json(const struct mp_qp *q)
{
	struct json_object *obj = json_object_new_object();
	char addr[MP_ADDR_STRLEN];
	const struct mp_field *f;

	if (q->present & (1u << IFLA_MPLANE_QP_PEER))
		json_object_object_add(obj, "peer", json_object_new_string(
			mp_addr_str(&q->peer, addr, sizeof(addr))));
	for (f = mp_qp_fields; f->key; f++)
		if (q->present & (1u << f->attr))
			add_u64(obj, f->key, q->val[f->attr]);
	if (q->present & (1u << IFLA_MPLANE_QP_ALPHA)) {
		json_object_object_add(obj, "alpha", json_object_new_double(
			alpha_frac(q->val[IFLA_MPLANE_QP_ALPHA])));
		add_u64(obj, "alpha_1024", q->val[IFLA_MPLANE_QP_ALPHA]);
	}
	return obj;
}

static struct json_object *stats64_json(const struct rtnl_link_stats64 *s)
{
	struct json_object *obj = json_object_new_object();

	add_u64(obj, "rx_packets", s->rx_packets);
	add_u64(obj, "tx_packets", s->tx_packets);
	add_u64(obj, "rx_bytes", s->rx_bytes);
	add_u64(obj, "tx_bytes", s->tx_bytes);
	add_u64(obj, "rx_errors", s->rx_errors);
	add_u64(obj, "tx_errors", s->tx_errors);
	add_u64(obj, "rx_dropped", s->rx_dropped);
	add_u64(obj, "tx_dropped", s->tx_dropped);
	return obj;
}

static struct json_object *device_json(const struct mp_link *d,
				       const struct mp_link *planes, size_t n)
{
	struct json_object *obj = json_object_new_object(), *arr;
	char addr[MP_ADDR_STRLEN];
	const struct mp_field *f;
	unsigned int i;

	json_object_object_add(obj, "name", json_object_new_string(d->name));
	add_u64(obj, "ifindex", d->ifindex);
	json_object_object_add(obj, "up",
			       json_object_new_boolean(d->flags & IFF_UP));
	add_operstate(obj, d);
	for (f = mp_device_fields; f->key; f++)
		if (d->present & (1u << f->attr))
			add_value(obj, f->key, f->names, d->val[f->attr]);
	arr = json_object_new_array();
	for (i = 0; i < d->npeers; i++)
		json_object_array_add(arr, json_object_new_string(
			mp_addr_str(&d->peers[i], addr, sizeof(addr))));
	json_object_object_add(obj, "peers", arr);
	if (d->has_stats64)
		json_object_object_add(obj, "stats64", stats64_json(&d->stats64));
	arr = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(arr, plane_json(&planes[i]));
	json_object_object_add(obj, "planes", arr);
	/* An mplane.ko from before congestion control sends neither. */
	if (d->present & (1u << IFLA_MPLANE_CC))
		json_object_object_add(obj, "cc", cc_json(d));
	if (d->present & (1u << IFLA_MPLANE_QPS)) {
		arr = json_object_new_array();
		for (i = 0; i < d->nqps; i++)
			json_object_array_add(arr, qp_json(&d->qps[i]));
		json_object_object_add(obj, "qps", arr);
	}
	return obj;
}

static void print_json(const struct show *sh)
{
	struct json_object *root = json_object_new_object(), *arr;
	const struct mp_link *planes;
	size_t i, n;

	arr = json_object_new_array();
	for (i = 0; i < sh->devs.n; i++) {
		planes = planes_of(&sh->devs.v[i], &sh->planes, &n);
		json_object_array_add(arr, device_json(&sh->devs.v[i], planes, n));
	}
	json_object_object_add(root, "devices", arr);
	mp_json_print(root);
}

/* ----- Text ------------------------------------------------------------ */

/* Words of a device's description, wrapped under an indent. */
struct words {
	int col;
};

static void word(struct words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void word(struct words *w, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (w->col && w->col + 1 + len > LINE_WIDTH) {
		putchar('\n');
		w->col = 0;
	}
	w->col += printf("%s%s", w->col ? " " : "    ", buf);
}

static void end_words(struct words *w)
{
	if (w->col)
		putchar('\n');
	w->col = 0;
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

static bool has_cc(const struct mp_link *d, unsigned int attr)
{
	return d->cc_present & (1u << attr);
}

/*
 * "cc dcqcn cnp-interval 50us ...", every setting under its 'link set'
 * keyword, then the counters; nothing from a kernel without the nest.
 */
static void print_cc(const struct mp_link *d)
{
	const struct mp_setting *st;
	struct words w = {};
	char num[16];
	uint32_t v;

	if (!(d->present & (1u << IFLA_MPLANE_CC)))
		return;
	for (st = link_dev_settings(); st->keyword; st++) {
		if (st->nest != IFLA_MPLANE_CC || !has_cc(d, st->attr))
			continue;
		v = d->cc_val[st->attr];
		if (st->names)
			word(&w, "%s %s", st->keyword,
			     link_enum_str(st->names, v, num, sizeof(num)));
		else if (st->attr == IFLA_MPLANE_CC_RATE_MAX_KBPS && !v)
			word(&w, "%s 0 (line rate)", st->keyword);
		else
			word(&w, "%s %u%s", st->keyword, v, unit(st));
	}
	end_words(&w);
	word(&w, "qps");
	if (has_cc(d, IFLA_MPLANE_CC_QP_COUNT))
		word(&w, "%" PRIu64 "%s", d->cc_val[IFLA_MPLANE_CC_QP_COUNT],
		     d->nqps || !(d->present & (1u << IFLA_MPLANE_QPS)) ?
		     "" : " (none limited)");
	else
		word(&w, "-");
	if (has_cc(d, IFLA_MPLANE_CC_QP_EVICTIONS))
		word(&w, "qp_evictions %" PRIu64,
		     d->cc_val[IFLA_MPLANE_CC_QP_EVICTIONS]);
	if (has_cc(d, IFLA_MPLANE_CC_CNP_UNKNOWN))
		word(&w, "cnp_unknown %" PRIu64,
		     d->cc_val[IFLA_MPLANE_CC_CNP_UNKNOWN]);
	if (has_cc(d, IFLA_MPLANE_CC_BAD_BTH))
		word(&w, "bad_bth %" PRIu64, d->cc_val[IFLA_MPLANE_CC_BAD_BTH]);
	end_words(&w);
}

static void print_settings(const struct mp_link *d)
{
	const struct mp_setting *st;
	char addr[MP_ADDR_STRLEN], num[16];
	struct words w = {};
	unsigned int i;

	for (st = link_dev_settings(); st->keyword; st++) {
		if (st->nest || !st->width || !(d->present & (1u << st->attr)))
			continue;
		if (st->attr == IFLA_MPLANE_SAMPLE_INTERVAL_US &&
		    !d->val[st->attr])
			word(&w, "%s off", st->keyword);
		else if (st->names)
			word(&w, "%s %s", st->keyword,
			     link_enum_str(st->names, d->val[st->attr], num,
					   sizeof(num)));
		else
			word(&w, "%s %u%s", st->keyword, d->val[st->attr],
			     unit(st));
	}
	end_words(&w);
	word(&w, "peers");
	for (i = 0; i < d->npeers; i++)
		word(&w, "%s", mp_addr_str(&d->peers[i], addr, sizeof(addr)));
	if (!d->npeers)
		word(&w, "none");
	end_words(&w);
	print_cc(d);
	if (d->has_stats64) {
		word(&w, "rx %llu packets %llu bytes,",
		     d->stats64.rx_packets, d->stats64.rx_bytes);
		word(&w, "tx %llu packets %llu bytes,",
		     d->stats64.tx_packets, d->stats64.tx_bytes);
		word(&w, "dropped rx %llu tx %llu",
		     d->stats64.rx_dropped, d->stats64.tx_dropped);
		end_words(&w);
	}
}

enum {
	COL_PLANE, COL_RAIL, COL_OPER, COL_CARRIER, COL_STATE, COL_REASON,
	COL_ADMIN, COL_WEIGHT, COL_LOAD, COL_CONG, COL_TX, COL_RX, COL_SEL,
	COL_DROPS, COL_FAILOVERS, COL_ECN, COL_CNP, COL_PSENT, COL_PLOST,
	COL_CNP_SENT, COL_CUTS, NR_COLS,
};

static const struct {
	const char *header;
	bool number;			/* right-aligned */
} cols[NR_COLS] = {
	[COL_PLANE]	= { "plane", true },
	[COL_RAIL]	= { "rail" },
	[COL_OPER]	= { "operstate" },
	[COL_CARRIER]	= { "carrier" },
	[COL_STATE]	= { "state" },
	[COL_REASON]	= { "reason" },
	[COL_ADMIN]	= { "admin" },
	[COL_WEIGHT]	= { "weight", true },
	[COL_LOAD]	= { "load", true },
	[COL_CONG]	= { "cong_score", true },
	[COL_TX]	= { "tx_packets", true },
	[COL_RX]	= { "rx_packets", true },
	[COL_SEL]	= { "selections", true },
	[COL_DROPS]	= { "drops", true },
	[COL_FAILOVERS]	= { "failovers", true },
	[COL_ECN]	= { "ecn_ce", true },
	[COL_CNP]	= { "cnp", true },
	[COL_PSENT]	= { "probes_sent", true },
	[COL_PLOST]	= { "probes_lost", true },
	[COL_CNP_SENT]	= { "cnp_sent", true },
	[COL_CUTS]	= { "rate_cuts", true },
};

typedef char cell_t[24];

static void cell_attr(cell_t c, const struct mp_plane_info *p,
		      unsigned int attr, const struct mp_names *names)
{
	char num[16];

	if (!has(p, attr))
		snprintf(c, sizeof(cell_t), "-");
	else if (names)
		snprintf(c, sizeof(cell_t), "%s",
			 link_enum_str(names, p->val[attr], num, sizeof(num)));
	else
		snprintf(c, sizeof(cell_t), "%u", p->val[attr]);
}

static void cell_stat(cell_t c, const struct mp_plane_info *p,
		      unsigned int a, unsigned int b)
{
	uint32_t mask = (1u << a) | (b ? 1u << b : 0);

	if (!(p->stats_present & mask))
		snprintf(c, sizeof(cell_t), "-");
	else
		snprintf(c, sizeof(cell_t), "%" PRIu64,
			 p->stats[a] + (b ? p->stats[b] : 0));
}

static void plane_row(const struct mp_link *rail, cell_t *row)
{
	const struct mp_plane_info *p = &rail->plane;
	char num[16];

	cell_attr(row[COL_PLANE], p, IFLA_MPLANE_PLANE_ID, NULL);
	snprintf(row[COL_RAIL], sizeof(cell_t), "%s", rail->name);
	snprintf(row[COL_OPER], sizeof(cell_t), "%s", rail->operstate < 0 ? "-" :
		 link_enum_str(&mp_operstate_names, rail->operstate, num,
			       sizeof(num)));
	snprintf(row[COL_CARRIER], sizeof(cell_t), "%s",
		 rail->carrier < 0 ? "-" : rail->carrier ? "yes" : "no");
	cell_attr(row[COL_STATE], p, IFLA_MPLANE_PLANE_STATE, &mp_state_names);
	cell_attr(row[COL_REASON], p, IFLA_MPLANE_PLANE_REASON, &mp_reason_names);
	cell_attr(row[COL_ADMIN], p, IFLA_MPLANE_PLANE_ADMIN, &mp_admin_names);
	cell_attr(row[COL_WEIGHT], p, IFLA_MPLANE_PLANE_WEIGHT, NULL);
	cell_attr(row[COL_LOAD], p, IFLA_MPLANE_PLANE_LOAD, NULL);
	cell_attr(row[COL_CONG], p, IFLA_MPLANE_PLANE_CONG_SCORE, NULL);
	cell_stat(row[COL_TX], p, IFLA_MPLANE_PSTAT_TX_PACKETS, 0);
	cell_stat(row[COL_RX], p, IFLA_MPLANE_PSTAT_RX_PACKETS, 0);
	cell_stat(row[COL_SEL], p, IFLA_MPLANE_PSTAT_SELECTIONS, 0);
	cell_stat(row[COL_DROPS], p, IFLA_MPLANE_PSTAT_DROP_NO_ROUTE,
		  IFLA_MPLANE_PSTAT_DROP_XMIT);
	cell_stat(row[COL_FAILOVERS], p, IFLA_MPLANE_PSTAT_FAILOVERS, 0);
	cell_stat(row[COL_ECN], p, IFLA_MPLANE_PSTAT_ECN_CE, 0);
	cell_stat(row[COL_CNP], p, IFLA_MPLANE_PSTAT_CNP, 0);
	cell_stat(row[COL_PSENT], p, IFLA_MPLANE_PSTAT_PROBES_SENT, 0);
	cell_stat(row[COL_PLOST], p, IFLA_MPLANE_PSTAT_PROBES_LOST, 0);
	cell_stat(row[COL_CNP_SENT], p, IFLA_MPLANE_PSTAT_CNP_SENT, 0);
	cell_stat(row[COL_CUTS], p, IFLA_MPLANE_PSTAT_RATE_CUTS, 0);
}

static void print_row(cell_t *row, const int *width)
{
	int c;

	printf("   ");
	for (c = 0; c < NR_COLS; c++)
		printf(" %*s", cols[c].number ? width[c] : -width[c], row[c]);
	putchar('\n');
}

static int print_planes(const struct mp_link *planes, size_t n)
{
	cell_t (*rows)[NR_COLS] = calloc(n + 1, sizeof(*rows));
	int width[NR_COLS], c;
	size_t i;

	if (!rows)
		return -ENOMEM;
	for (c = 0; c < NR_COLS; c++)
		snprintf(rows[0][c], sizeof(cell_t), "%s", cols[c].header);
	for (i = 0; i < n; i++)
		plane_row(&planes[i], rows[i + 1]);
	for (c = 0; c < NR_COLS; c++) {
		width[c] = 0;
		for (i = 0; i <= n; i++)
			if ((int)strlen(rows[i][c]) > width[c])
				width[c] = strlen(rows[i][c]);
	}
	for (i = 0; i <= n; i++)
		print_row(rows[i], width);
	free(rows);
	return 0;
}

enum {
	QCOL_PEER, QCOL_QPN, QCOL_RATE, QCOL_TARGET, QCOL_ALPHA, QCOL_CNP_RX,
	QCOL_CNP_TX, QCOL_CUTS, QCOL_TX_BYTES, NR_QCOLS,
};

static const char *const qp_headers[NR_QCOLS] = {
	[QCOL_PEER] = "peer", [QCOL_QPN] = "qpn", [QCOL_RATE] = "rate",
	[QCOL_TARGET] = "target", [QCOL_ALPHA] = "alpha",
	[QCOL_CNP_RX] = "cnp_rx", [QCOL_CNP_TX] = "cnp_tx",
	[QCOL_CUTS] = "cuts", [QCOL_TX_BYTES] = "tx_bytes",
};

static void cell_qp(cell_t c, const struct mp_qp *q, unsigned int attr)
{
	if (!(q->present & (1u << attr)))
		snprintf(c, sizeof(cell_t), "-");
	else
		snprintf(c, sizeof(cell_t), "%" PRIu64, q->val[attr]);
}

/* A rate in kbit/s as people read it: "750Mbit/s", "1.5Gbit/s". */
static void cell_rate(cell_t c, const struct mp_qp *q, unsigned int attr)
{
	static const char *const units[] = { "kbit/s", "Mbit/s", "Gbit/s" };
	double v = q->val[attr];
	unsigned int u = 0;

	if (!(q->present & (1u << attr))) {
		snprintf(c, sizeof(cell_t), "-");
		return;
	}
	while (v >= 1000 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1000;
		u++;
	}
	snprintf(c, sizeof(cell_t), "%.4g%s", v, units[u]);
}

static void qp_row(const struct mp_qp *q, cell_t *row)
{
	char addr[MP_ADDR_STRLEN];

	snprintf(row[QCOL_PEER], sizeof(cell_t), "%s",
		 q->present & (1u << IFLA_MPLANE_QP_PEER) ?
		 mp_addr_str(&q->peer, addr, sizeof(addr)) : "-");
	if (q->present & (1u << IFLA_MPLANE_QP_QPN))
		snprintf(row[QCOL_QPN], sizeof(cell_t), "0x%06" PRIx64,
			 q->val[IFLA_MPLANE_QP_QPN]);
	else
		snprintf(row[QCOL_QPN], sizeof(cell_t), "-");
	cell_rate(row[QCOL_RATE], q, IFLA_MPLANE_QP_RATE_KBPS);
	cell_rate(row[QCOL_TARGET], q, IFLA_MPLANE_QP_TARGET_KBPS);
	if (q->present & (1u << IFLA_MPLANE_QP_ALPHA))
		snprintf(row[QCOL_ALPHA], sizeof(cell_t), "%.3f",
			 alpha_frac(q->val[IFLA_MPLANE_QP_ALPHA]));
	else
		snprintf(row[QCOL_ALPHA], sizeof(cell_t), "-");
	cell_qp(row[QCOL_CNP_RX], q, IFLA_MPLANE_QP_CNP_RX);
	cell_qp(row[QCOL_CNP_TX], q, IFLA_MPLANE_QP_CNP_TX);
	cell_qp(row[QCOL_CUTS], q, IFLA_MPLANE_QP_RATE_CUTS);
	cell_qp(row[QCOL_TX_BYTES], q, IFLA_MPLANE_QP_TX_BYTES);
}

/* Below the planes: a QP's peer is an address, never a plane's index. */
static int print_qps(const struct mp_link *d)
{
	cell_t (*rows)[NR_QCOLS];
	int width[NR_QCOLS], c;
	size_t i, n = d->nqps;

	if (!n)
		return 0;
	rows = calloc(n + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (c = 0; c < NR_QCOLS; c++)
		snprintf(rows[0][c], sizeof(cell_t), "%s", qp_headers[c]);
	for (i = 0; i < n; i++)
		qp_row(&d->qps[i], rows[i + 1]);
	for (c = 0; c < NR_QCOLS; c++) {
		width[c] = 0;
		for (i = 0; i <= n; i++)
			if ((int)strlen(rows[i][c]) > width[c])
				width[c] = strlen(rows[i][c]);
	}
	for (i = 0; i <= n; i++) {
		printf("   ");
		for (c = 0; c < NR_QCOLS; c++)
			printf(" %*s", c == QCOL_PEER ? -width[c] : width[c],
			       rows[i][c]);
		putchar('\n');
	}
	free(rows);
	return 0;
}

static int print_device(const struct mp_link *d, const struct mp_link *planes,
			size_t n)
{
	int err;

	char num[16];

	printf("%s: %s, operstate %s, %zu plane%s\n", d->name,
	       d->flags & IFF_UP ? "up" : "down",
	       d->operstate < 0 ? "-" : link_enum_str(&mp_operstate_names,
						       d->operstate, num,
						       sizeof(num)),
	       n, n == 1 ? "" : "s");
	print_settings(d);
	if (!n) {
		printf("    no planes: add one with 'ip link set RAIL master %s'\n",
		       d->name);
		return print_qps(d);
	}
	err = print_planes(planes, n);
	return err ? err : print_qps(d);
}

static int print_text(const struct show *sh)
{
	const struct mp_link *planes;
	size_t i, n;
	int err;

	for (i = 0; i < sh->devs.n; i++) {
		if (i)
			putchar('\n');
		planes = planes_of(&sh->devs.v[i], &sh->planes, &n);
		err = print_device(&sh->devs.v[i], planes, n);
		if (err)
			return err;
	}
	return 0;
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
	if (mp_json) {
		print_json(sh);
		return MP_EXIT_OK;
	}
	err = print_text(sh);
	if (err) {
		mp_err("%s", strerror(-err));
		return MP_EXIT_ERR;
	}
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
