// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if.h>

#include "mp_names.h"
#include "mplane_events.h"
#include "mplane_maps.h"
#include "mplane_mark_proto.h"

#define NAMES(var, what_, ...)						\
	static const char *const var##_list[] = { __VA_ARGS__ };	\
	const struct mp_names var = {					\
		.what = what_,						\
		.names = var##_list,					\
		.count = sizeof(var##_list) / sizeof(var##_list[0]),	\
	}

NAMES(mp_policy_names, "policy",
	[MPLANE_POLICY_FLOWLET]		= "flowlet",
	[MPLANE_POLICY_HASH]		= "hash",
	[MPLANE_POLICY_RR]		= "rr",
	[MPLANE_POLICY_SPRAY]		= "spray");

NAMES(mp_ar_policy_names, "ar policy",
	[MPLANE_AR_ECMP]		= "ecmp",
	[MPLANE_AR_AR]			= "ar",
	[MPLANE_AR_FLOWLET]		= "flowlet");

NAMES(mp_gso_names, "gso mode",
	[MPLANE_GSO_WHOLE]		= "whole",
	[MPLANE_GSO_SEGMENT]		= "segment");

NAMES(mp_admin_names, "admin state",
	[MPLANE_ADMIN_UP]		= "up",
	[MPLANE_ADMIN_DRAIN]		= "drain",
	[MPLANE_ADMIN_DOWN]		= "down");

NAMES(mp_state_names, "plane state",
	[MPLANE_PLANE_UP]		= "up",
	[MPLANE_PLANE_DOWN]		= "down",
	[MPLANE_PLANE_CONGESTED]	= "congested",
	[MPLANE_PLANE_PROBING]		= "probing",
	[MPLANE_PLANE_ADMIN_DOWN]	= "admin_down");

NAMES(mp_reason_names, "reason",
	[MPLANE_REASON_NONE]		= "none",
	[MPLANE_REASON_CARRIER]		= "carrier",
	[MPLANE_REASON_HOLDDOWN]	= "holddown",
	[MPLANE_REASON_PROBE_MISS]	= "probe_miss",
	[MPLANE_REASON_ECN]		= "ecn",
	[MPLANE_REASON_ADMIN]		= "admin",
	[MPLANE_REASON_MASTER_DOWN]	= "master_down");

NAMES(mp_pstat_names, "plane counter",
	[IFLA_MPLANE_PSTAT_TX_PACKETS]	= "tx_packets",
	[IFLA_MPLANE_PSTAT_TX_BYTES]	= "tx_bytes",
	[IFLA_MPLANE_PSTAT_RX_PACKETS]	= "rx_packets",
	[IFLA_MPLANE_PSTAT_RX_BYTES]	= "rx_bytes",
	[IFLA_MPLANE_PSTAT_SELECTIONS]	= "selections",
	[IFLA_MPLANE_PSTAT_DROP_NO_ROUTE] = "drop_no_route",
	[IFLA_MPLANE_PSTAT_DROP_XMIT]	= "drop_xmit",
	[IFLA_MPLANE_PSTAT_STATE_CHANGES] = "state_changes",
	[IFLA_MPLANE_PSTAT_FAILOVERS]	= "failovers",
	[IFLA_MPLANE_PSTAT_ECN_CE]	= "ecn_ce",
	[IFLA_MPLANE_PSTAT_CNP]		= "cnp",
	[IFLA_MPLANE_PSTAT_PROBES_SENT]	= "probes_sent",
	[IFLA_MPLANE_PSTAT_PROBES_LOST]	= "probes_lost",
	/* IFLA_MPLANE_PSTAT_PAD is a hole: padding, not a counter. */
	[IFLA_MPLANE_PSTAT_CNP_SENT]	= "cnp_sent",
	[IFLA_MPLANE_PSTAT_RATE_CUTS]	= "rate_cuts",
	[IFLA_MPLANE_PSTAT_PROBES_REFUSED] = "probes_refused",
	[IFLA_MPLANE_PSTAT_PROBES_THROTTLED] = "probes_throttled",
	[IFLA_MPLANE_PSTAT_REORDER_HELD] = "reorder_held",
	[IFLA_MPLANE_PSTAT_REORDER_FILLED] = "reorder_filled",
	[IFLA_MPLANE_PSTAT_REORDER_EXPIRED] = "reorder_expired",
	[IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS] = "reorder_overflows");

NAMES(mp_operstate_names, "operstate",
	[IF_OPER_UNKNOWN]		= "unknown",
	[IF_OPER_NOTPRESENT]		= "notpresent",
	[IF_OPER_DOWN]			= "down",
	[IF_OPER_LOWERLAYERDOWN]	= "lowerlayerdown",
	[IF_OPER_TESTING]		= "testing",
	[IF_OPER_DORMANT]		= "dormant",
	[IF_OPER_UP]			= "up");

NAMES(mp_fault_action_names, "fault",
	[MPLANE_FAULT_DOWN]		= "down",
	[MPLANE_FAULT_UP]		= "up",
	[MPLANE_FAULT_DEGRADE]		= "degrade",
	[MPLANE_FAULT_LOSS]		= "loss",
	[MPLANE_FAULT_CLEAR]		= "clear");

NAMES(mp_fault_target_names, "fault target",
	[MPLANE_FAULT_LINK]		= "link",
	[MPLANE_FAULT_PORT]		= "port",
	[MPLANE_FAULT_SWITCH]		= "switch",
	[MPLANE_FAULT_PLANE]		= "plane",
	[MPLANE_FAULT_FABRIC]		= "fabric");

NAMES(mp_fault_via_names, "fault mechanism",
	[MPLANE_FAULT_VIA_ADMIN]	= "admin",
	[MPLANE_FAULT_VIA_TBF]		= "tbf",
	[MPLANE_FAULT_VIA_NETEM]	= "netem",
	[MPLANE_FAULT_VIA_BPF]		= "bpf",
	[MPLANE_FAULT_VIA_ALL]		= "all");

NAMES(mp_cc_names, "congestion control",
	[MPLANE_CC_OFF]			= "off",
	[MPLANE_CC_DCQCN]		= "dcqcn",
	[MPLANE_CC_NOTIFY]		= "notify");

NAMES(mp_rate_cause_names, "rate cause",
	[MPLANE_RATE_CUT]		= "cut",
	[MPLANE_RATE_FAST_RECOVERY]	= "fast_recovery",
	[MPLANE_RATE_ADDITIVE]		= "additive",
	[MPLANE_RATE_HYPER]		= "hyper");

NAMES(mp_dir_names, "direction",
	[MPLANE_DIR_INGRESS]		= "ingress",
	[MPLANE_DIR_EGRESS]		= "egress");

NAMES(mp_counter_kind_names, "counter kind",
	[MPLANE_COUNTER_NETDEV]		= "netdev",
	[MPLANE_COUNTER_ETHTOOL]	= "ethtool",
	[MPLANE_COUNTER_RDMA]		= "rdma");

/* NULL ended, for an option's choices (mark --kind) too. */
const char *const mp_mark_kind_choices[] = {
	[MPLANE_MARK_STEP]		= "step",
	[MPLANE_MARK_STEP_END]		= "step-end",
	[MPLANE_MARK_USER]		= "user",
	[__MPLANE_MARK_MAX]		= NULL,
};

const struct mp_names mp_mark_kind_names = {
	.what = "mark kind",
	.names = mp_mark_kind_choices,
	.count = __MPLANE_MARK_MAX,
};

/* A new uapi value without a name here fails the build, not a user. */
_Static_assert(__MPLANE_POLICY_MAX == 4, "name the new policy");
_Static_assert(__MPLANE_GSO_MAX == 2, "name the new gso mode");
_Static_assert(__MPLANE_FAULT_MAX == 5, "name the new fault");
_Static_assert(__MPLANE_FAULT_TARGET_MAX == 5, "name the new fault target");
_Static_assert(__MPLANE_FAULT_VIA_MAX == 5, "name the new fault mechanism");
_Static_assert(__MPLANE_ADMIN_MAX == 3, "name the new admin state");
_Static_assert(__MPLANE_PLANE_STATE_MAX == 5, "name the new plane state");
_Static_assert(__MPLANE_REASON_MAX == 7, "name the new reason");
_Static_assert(IFLA_MPLANE_PSTAT_MAX == IFLA_MPLANE_PSTAT_REORDER_OVERFLOWS, "name the new counter");
_Static_assert(IFLA_MPLANE_PSTAT_MAX < 32, "IFLA_MPLANE_PSTAT_* outgrew stats_present");
_Static_assert(__MPLANE_CC_MAX == 3, "name the new congestion control");
_Static_assert(__MPLANE_RATE_CAUSE_MAX == 4, "name the new rate cause");
_Static_assert(__MPLANE_DIR_MAX == 2, "name the new direction");
_Static_assert(__MPLANE_COUNTER_MAX == 3, "name the new counter kind");
_Static_assert(__MPLANE_MARK_MAX == 3, "name the new mark kind");
_Static_assert(IFLA_MPLANE_CC_MAX == IFLA_MPLANE_CC_PAD, "give the new cc attribute a keyword, or say it is read-only");

const char *mp_name(const struct mp_names *n, unsigned int val)
{
	return val < n->count ? n->names[val] : NULL;
}

int mp_name_parse(const struct mp_names *n, const char *s, uint32_t *val)
{
	unsigned int i;

	for (i = 0; i < n->count; i++) {
		if (n->names[i] && !strcmp(n->names[i], s)) {
			*val = i;
			return 0;
		}
	}
	return -EINVAL;
}

char *mp_names_join(const struct mp_names *n, const char *sep, char *buf,
		    size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n->count && len < size; i++) {
		if (!n->names[i])
			continue;
		len += snprintf(buf + len, size - len, "%s%s",
				len ? sep : "", n->names[i]);
	}
	return buf;
}

int mp_parse_u32(const char *s, uint32_t *val)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		/* Checked per digit, so that v itself never wraps. */
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*val = v;
	return 0;
}

int mp_parse_addr(const char *s, struct mp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->bytes) == 1) {
		a->len = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->bytes) == 1) {
		a->len = 16;
		return 0;
	}
	return -EINVAL;
}

const char *mp_addr_str(const struct mp_addr *a, char *buf, size_t size)
{
	int family = a->len == 4 ? AF_INET : a->len == 16 ? AF_INET6 : 0;

	if (!family || !inet_ntop(family, a->bytes, buf, size))
		snprintf(buf, size, "?");
	return buf;
}

const struct mp_setting mp_link_settings[] = {
	{ "policy", NULL, IFLA_MPLANE_POLICY, 1, &mp_policy_names,
	  0, 0, MPLANE_POLICY_FLOWLET, true,
	  "how packets are spread over the planes", 0 },
	{ "flowlet-gap", "US", IFLA_MPLANE_FLOWLET_GAP_US, 4, NULL,
	  0, MPLANE_FLOWLET_GAP_US_MAX, MPLANE_FLOWLET_GAP_US_DEFAULT, true,
	  "idle microseconds that end a flowlet", 0 },
	{ "probe-interval", "US", IFLA_MPLANE_PROBE_INTERVAL_US, 4, NULL,
	  MPLANE_PROBE_INTERVAL_US_MIN, MPLANE_PROBE_INTERVAL_US_MAX,
	  MPLANE_PROBE_INTERVAL_US_DEFAULT, true,
	  "microseconds between liveness probes", 0 },
	{ "probe-misses", "N", IFLA_MPLANE_PROBE_MISSES, 4, NULL,
	  0, MPLANE_PROBE_MISSES_MAX, MPLANE_PROBE_MISSES_DEFAULT, true,
	  "probes missed in a row that fail a plane", 0 },
	{ "holddown", "MS", IFLA_MPLANE_HOLDDOWN_MS, 4, NULL,
	  0, MPLANE_HOLDDOWN_MS_MAX, MPLANE_HOLDDOWN_MS_DEFAULT, true,
	  "milliseconds before a plane whose carrier is back carries again", 0 },
	{ "cong-threshold", "N", IFLA_MPLANE_CONG_THRESHOLD, 4, NULL,
	  0, UINT32_MAX, MPLANE_CONG_THRESHOLD_DEFAULT, true,
	  "congestion score from which a plane is avoided", 0 },
	{ "cong-halflife", "US", IFLA_MPLANE_CONG_HALFLIFE_US, 4, NULL,
	  0, MPLANE_CONG_HALFLIFE_US_MAX, MPLANE_CONG_HALFLIFE_US_DEFAULT, true,
	  "microseconds in which the congestion score halves", 0 },
	{ "gso", NULL, IFLA_MPLANE_GSO_MODE, 1, &mp_gso_names,
	  0, 0, MPLANE_GSO_WHOLE, true,
	  "a GSO packet takes one plane (whole), or is split (segment)", 0 },
	{ "sample-interval", "US|off", IFLA_MPLANE_SAMPLE_INTERVAL_US, 4, NULL,
	  MPLANE_SAMPLE_INTERVAL_US_MIN, MPLANE_SAMPLE_INTERVAL_US_MAX, 0, true,
	  "microseconds between samples of each plane; 0 or off: no sampler", 0 },
	{ "reorder-window", "US|off", IFLA_MPLANE_REORDER_US, 4, NULL,
	  0, MPLANE_REORDER_US_MAX, MPLANE_REORDER_US_DEFAULT, true,
	  "microseconds mp0 holds RoCEv2 requests past a PSN gap; 0 or off: none", 0 },
	{ "peers", "ADDR[,ADDR...]|none", IFLA_MPLANE_PEERS, 0, NULL,
	  0, MPLANE_MAX_PEERS, 0, false,
	  "IPv4 and IPv6 addresses to probe; none clears them", 0 },
	/*
	 * Congestion control: IFLA_MPLANE_CC, a nest; any subset of it may be
	 * given, and the kernel keeps the rest.  The ranges shown are the
	 * uapi's, for --help only: the kernel checks them and says which.
	 */
#define CC(kw, arg, attr, width, names, min, max, def, help)		\
	{ kw, arg, IFLA_MPLANE_CC_##attr, width, names, min, max, def,	\
	  true, help, IFLA_MPLANE_CC }
	CC("cc", NULL, ALGO, 1, &mp_cc_names, 0, 0, MPLANE_CC_OFF,
	   "endpoint congestion control of RoCEv2 QPs: off, dcqcn (needs fq on the rails) or notify (CNPs only)"),
	CC("cnp-interval", "US", CNP_INTERVAL_US, 4, NULL,
	   0, MPLANE_CC_CNP_INTERVAL_US_MAX, MPLANE_CC_CNP_INTERVAL_US_DEFAULT,
	   "least microseconds between two CNPs to one QP"),
	CC("rate-max", "KBPS", RATE_MAX_KBPS, 4, NULL,
	   0, MPLANE_CC_RATE_KBPS_MAX, MPLANE_CC_RATE_MAX_KBPS_DEFAULT,
	   "highest rate of a QP in kbit/s; 0: mp0's capacity (line rate)"),
	CC("rate-min", "KBPS", RATE_MIN_KBPS, 4, NULL,
	   MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
	   MPLANE_CC_RATE_MIN_KBPS_DEFAULT,
	   "lowest rate in kbit/s that cuts leave a QP (rpg_min_rate)"),
	CC("rate-ai", "KBPS", RATE_AI_KBPS, 4, NULL,
	   MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
	   MPLANE_CC_RATE_AI_KBPS_DEFAULT,
	   "additive increase of the target rate in kbit/s (rpg_ai_rate)"),
	CC("rate-hai", "KBPS", RATE_HAI_KBPS, 4, NULL,
	   MPLANE_CC_RATE_KBPS_MIN, MPLANE_CC_RATE_KBPS_MAX,
	   MPLANE_CC_RATE_HAI_KBPS_DEFAULT,
	   "hyper increase of the target rate in kbit/s (rpg_hai_rate)"),
	CC("time-reset", "US", TIME_RESET_US, 4, NULL,
	   MPLANE_CC_TIME_RESET_US_MIN, MPLANE_CC_TIME_RESET_US_MAX,
	   MPLANE_CC_TIME_RESET_US_DEFAULT,
	   "microseconds of the rate increase timer (rpg_time_reset)"),
	CC("byte-reset", "BYTES", BYTE_RESET, 4, NULL,
	   MPLANE_CC_BYTE_RESET_MIN, MPLANE_CC_BYTE_RESET_MAX,
	   MPLANE_CC_BYTE_RESET_DEFAULT,
	   "bytes sent per stage of the byte counter (rpg_byte_reset)"),
	CC("threshold", "N", THRESHOLD, 4, NULL,
	   MPLANE_CC_THRESHOLD_MIN, MPLANE_CC_THRESHOLD_MAX,
	   MPLANE_CC_THRESHOLD_DEFAULT,
	   "stages of fast recovery before additive increase (rpg_threshold, F)"),
	CC("alpha-g", "N", ALPHA_G, 4, NULL,
	   0, MPLANE_CC_ALPHA_MAX, MPLANE_CC_ALPHA_G_DEFAULT,
	   "1 - g, the weight alpha keeps per update, in 1/1024ths (dce_tcp_g)"),
	CC("alpha-period", "US", ALPHA_PERIOD_US, 4, NULL,
	   MPLANE_CC_ALPHA_PERIOD_US_MIN, MPLANE_CC_ALPHA_PERIOD_US_MAX,
	   MPLANE_CC_ALPHA_PERIOD_US_DEFAULT,
	   "microseconds between two updates of alpha (dce_tcp_rtt)"),
	CC("alpha-initial", "N", ALPHA_INITIAL, 4, NULL,
	   MPLANE_CC_ALPHA_INITIAL_MIN, MPLANE_CC_ALPHA_MAX,
	   MPLANE_CC_ALPHA_INITIAL_DEFAULT,
	   "alpha of a new QP in 1/1024ths (initial_alpha_value)"),
	CC("reduce-period", "US", REDUCE_PERIOD_US, 4, NULL,
	   0, MPLANE_CC_REDUCE_PERIOD_US_MAX, MPLANE_CC_REDUCE_PERIOD_US_DEFAULT,
	   "least microseconds between two cuts of a QP (rate_reduce_monitor_period)"),
	CC("min-dec-fac", "PERCENT", MIN_DEC_FAC, 4, NULL,
	   0, MPLANE_CC_MIN_DEC_FAC_MAX, MPLANE_CC_MIN_DEC_FAC_DEFAULT,
	   "least per cent of its rate a QP keeps in a cut (rpg_min_dec_fac)"),
	CC("qp-max", "N", QP_MAX, 4, NULL,
	   MPLANE_CC_QP_MAX_MIN, MPLANE_CC_QP_MAX_MAX, MPLANE_CC_QP_MAX_DEFAULT,
	   "QPs whose rate mp0 keeps; one more evicts the idlest"),
#undef CC
	{}
};

const struct mp_setting mp_plane_settings[] = {
	{ "weight", "N", IFLA_MPLANE_PLANE_WEIGHT, 4, NULL,
	  0, MPLANE_WEIGHT_MAX, 0, true,
	  "capacity of the plane; 0 takes the rail's link speed", 0 },
	{ "admin", NULL, IFLA_MPLANE_PLANE_ADMIN, 1, &mp_admin_names,
	  0, 0, MPLANE_ADMIN_UP, true,
	  "drain: no new flowlets; down: nothing from the next packet on", 0 },
	{}
};

static const struct mp_setting *find(const struct mp_setting *table,
				     const char *keyword)
{
	for (; table->keyword; table++)
		if (!strcmp(table->keyword, keyword))
			return table;
	return NULL;
}

static int parse_peers(const char *list, struct mp_settings *s, char *err,
		       size_t errlen)
{
	char word[MP_ADDR_STRLEN + 1];
	const char *p = list, *comma;
	size_t len;

	if (!strcmp(list, "none"))
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (s->npeers == MP_PEERS_MAX) {
			snprintf(err, errlen, "peers: more than %u addresses",
				 MP_PEERS_MAX);
			return -EINVAL;
		}
		if (len >= sizeof(word))
			len = sizeof(word) - 1;	/* too long to be valid */
		memcpy(word, p, len);
		word[len] = '\0';
		if (mp_parse_addr(word, &s->peers[s->npeers])) {
			snprintf(err, errlen, "bad peer '%s': want an IPv4 or IPv6 address, or none",
				 word);
			return -EINVAL;
		}
		s->npeers++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Where @st's value goes: @s itself, or the nest it names. */
static uint32_t *set_of(const struct mp_setting *st, struct mp_settings *s)
{
	return st->nest == IFLA_MPLANE_CC ? &s->cc.set : &s->set;
}

static int parse_value(const struct mp_setting *st, const char *arg,
		       struct mp_settings *s, char *err, size_t errlen)
{
	char names[128];
	uint32_t v;
	int ret;

	if (!st->width)
		return parse_peers(arg, s, err, errlen);
	if (st->names) {
		if (!mp_name_parse(st->names, arg, &v))
			goto done;
		snprintf(err, errlen, "bad %s '%s': want %s", st->keyword, arg,
			 mp_names_join(st->names, "|", names, sizeof(names)));
		return -EINVAL;
	}
	/* "US|off": off is 0, which the kernel takes for none. */
	if (st->arg && strstr(st->arg, "|off") && !strcmp(arg, "off")) {
		v = 0;
		goto done;
	}
	ret = mp_parse_u32(arg, &v);
	if (ret && st->arg && strstr(st->arg, "|off")) {
		snprintf(err, errlen, "bad %s '%s': want a decimal integer or off",
			 st->keyword, arg);
		return -EINVAL;
	}
	if (ret == -ERANGE) {
		snprintf(err, errlen, "bad %s '%s': more than %u", st->keyword,
			 arg, UINT32_MAX);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "bad %s '%s': want a decimal integer",
			 st->keyword, arg);
		return -EINVAL;
	}
done:
	if (st->nest == IFLA_MPLANE_CC) {
		mp_settings_set_cc(s, st->attr, st->width, v);
		return 0;
	}
	s->width[st->attr] = st->width;
	s->val[st->attr] = v;
	return 0;
}

int mp_settings_parse(const struct mp_setting *table, int argc,
		      char *const *argv, struct mp_settings *s, char *err,
		      size_t errlen)
{
	const struct mp_setting *st;
	int i, ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < argc; i += 2) {
		st = find(table, argv[i]);
		if (!st) {
			snprintf(err, errlen, "unknown setting '%s'", argv[i]);
			return -EINVAL;
		}
		if (i + 1 == argc) {
			snprintf(err, errlen, "'%s' needs a value", argv[i]);
			return -EINVAL;
		}
		/* The last of two would win silently: say so instead. */
		if (*set_of(st, s) & (1u << st->attr)) {
			snprintf(err, errlen, "'%s' given twice", argv[i]);
			return -EINVAL;
		}
		ret = parse_value(st, argv[i + 1], s, err, errlen);
		if (ret)
			return ret;
		*set_of(st, s) |= 1u << st->attr;
	}
	return 0;
}

void mp_setting_help(const struct mp_setting *st, char *syntax,
		     size_t syntax_len, char *limits, size_t limits_len)
{
	char names[128], range[64] = "", def[64] = "";

	if (st->names)
		snprintf(syntax, syntax_len, "%s %s", st->keyword,
			 mp_names_join(st->names, "|", names, sizeof(names)));
	else
		snprintf(syntax, syntax_len, "%s %s", st->keyword, st->arg);

	if (st->names || st->max == UINT32_MAX)
		;	/* no range but the names, or none at all */
	else if (st->min)
		snprintf(range, sizeof(range), "%u to %u", st->min, st->max);
	else
		snprintf(range, sizeof(range), "at most %u", st->max);
	if (st->has_def && st->names)
		snprintf(def, sizeof(def), "default %s",
			 mp_name(st->names, st->def));
	else if (st->has_def)
		snprintf(def, sizeof(def), "default %u", st->def);
	snprintf(limits, limits_len, "%s%s%s", range,
		 range[0] && def[0] ? ", " : "", def);
}

/*
 * The JSON keys of the attributes of an mplane device and its planes:
 * one name for each, whichever tool prints it (mplanectl, ip).
 */
const struct mp_field mp_device_fields[] = {
	{ IFLA_MPLANE_PLANE_COUNT,	"plane_count", NULL },
	{ IFLA_MPLANE_POLICY,		"policy", &mp_policy_names },
	{ IFLA_MPLANE_FLOWLET_GAP_US,	"flowlet_gap_us", NULL },
	{ IFLA_MPLANE_PROBE_INTERVAL_US, "probe_interval_us", NULL },
	{ IFLA_MPLANE_PROBE_MISSES,	"probe_misses", NULL },
	{ IFLA_MPLANE_HOLDDOWN_MS,	"holddown_ms", NULL },
	{ IFLA_MPLANE_CONG_THRESHOLD,	"cong_threshold", NULL },
	{ IFLA_MPLANE_CONG_HALFLIFE_US,	"cong_halflife_us", NULL },
	{ IFLA_MPLANE_GSO_MODE,		"gso_mode", &mp_gso_names },
	{ IFLA_MPLANE_SAMPLE_INTERVAL_US, "sample_interval_us", NULL },
	{ IFLA_MPLANE_REORDER_US,	"reorder_us", NULL },
	{}
};

/* IFLA_MPLANE_CC_*: the settings, then the read-only counters. */
const struct mp_field mp_cc_fields[] = {
	{ IFLA_MPLANE_CC_ALGO,		"algo", &mp_cc_names },
	{ IFLA_MPLANE_CC_CNP_INTERVAL_US, "cnp_interval_us", NULL },
	{ IFLA_MPLANE_CC_RATE_MAX_KBPS,	"rate_max_kbps", NULL },
	{ IFLA_MPLANE_CC_RATE_MIN_KBPS,	"rate_min_kbps", NULL },
	{ IFLA_MPLANE_CC_RATE_AI_KBPS,	"rate_ai_kbps", NULL },
	{ IFLA_MPLANE_CC_RATE_HAI_KBPS,	"rate_hai_kbps", NULL },
	{ IFLA_MPLANE_CC_TIME_RESET_US,	"time_reset_us", NULL },
	{ IFLA_MPLANE_CC_BYTE_RESET,	"byte_reset", NULL },
	{ IFLA_MPLANE_CC_THRESHOLD,	"threshold", NULL },
	{ IFLA_MPLANE_CC_ALPHA_G,	"alpha_g", NULL },
	{ IFLA_MPLANE_CC_ALPHA_PERIOD_US, "alpha_period_us", NULL },
	{ IFLA_MPLANE_CC_ALPHA_INITIAL,	"alpha_initial", NULL },
	{ IFLA_MPLANE_CC_REDUCE_PERIOD_US, "reduce_period_us", NULL },
	{ IFLA_MPLANE_CC_MIN_DEC_FAC,	"min_dec_fac", NULL },
	{ IFLA_MPLANE_CC_QP_MAX,	"qp_max", NULL },
	{ IFLA_MPLANE_CC_QP_COUNT,	"qp_count", NULL },
	{ IFLA_MPLANE_CC_QP_EVICTIONS,	"qp_evictions", NULL },
	{ IFLA_MPLANE_CC_CNP_UNKNOWN,	"cnp_unknown", NULL },
	{ IFLA_MPLANE_CC_BAD_BTH,	"bad_bth", NULL },
	{}
};

/* IFLA_MPLANE_QP_*, but the peer and alpha, which are shown otherwise. */
const struct mp_field mp_qp_fields[] = {
	{ IFLA_MPLANE_QP_QPN,		"qpn", NULL },
	{ IFLA_MPLANE_QP_RATE_KBPS,	"rate_kbps", NULL },
	{ IFLA_MPLANE_QP_TARGET_KBPS,	"target_kbps", NULL },
	{ IFLA_MPLANE_QP_CNP_RX,	"cnp_rx", NULL },
	{ IFLA_MPLANE_QP_CNP_TX,	"cnp_tx", NULL },
	{ IFLA_MPLANE_QP_RATE_CUTS,	"rate_cuts", NULL },
	{ IFLA_MPLANE_QP_TX_BYTES,	"tx_bytes", NULL },
	{}
};

const struct mp_field mp_plane_fields[] = {
	{ IFLA_MPLANE_PLANE_STATE,	"state", &mp_state_names },
	{ IFLA_MPLANE_PLANE_REASON,	"reason", &mp_reason_names },
	{ IFLA_MPLANE_PLANE_ADMIN,	"admin", &mp_admin_names },
	{ IFLA_MPLANE_PLANE_WEIGHT,	"weight", NULL },
	{ IFLA_MPLANE_PLANE_LOAD,	"load", NULL },
	{ IFLA_MPLANE_PLANE_CONG_SCORE,	"cong_score", NULL },
	{}
};
