// SPDX-License-Identifier: GPL-2.0
/*
 * link_mplane.so: ip(8) learns the mplane link type.
 *
 *	ip link add mp0 type mplane policy spray flowlet-gap 50
 *	ip link set mp0 type mplane cc dcqcn cnp-interval 50
 *	ip -d [-j] link show mp0
 *	ip link set a0 type mplane_slave weight 4 admin drain
 *	ip link add type mplane help
 *
 * ip loads the object from IP_LIB_DIR (Debian's ip: the default is
 * /usr/lib/x86_64-linux-gnu/ip) and looks up mplane_link_util, and, for
 * a plane, mplane_slave_link_util in link_mplane_slave.so, which is this
 * same object under a second name.
 *
 * The keywords, their syntax and --help are mplanectl's (mp_link_settings
 * and mp_plane_settings), and so are the JSON keys (mp_device_fields...):
 * one schema for both tools.  Text prints each setting as the keyword
 * that sets it, so that a line of output can be given back to ip.
 */
#include <inttypes.h>
#include <string.h>

#include "ip_link_api.h"
#include "mp_linkmsg.h"
#include "mp_names.h"

/*
 * ip's request leaves 1024 bytes for attributes (struct iplink_req);
 * its own link types check against the same bound.
 */
#define IP_REQ_ATTR_SPACE	1024

#define EXPORT	__attribute__((visibility("default")))

static const struct mp_setting *setting_of(const struct mp_setting *table,
					   unsigned int nest,
					   unsigned int attr)
{
	for (; table->keyword; table++)
		if (table->nest == nest && table->attr == attr && table->width)
			return table;
	return NULL;
}

static bool has_off(const struct mp_setting *st)
{
	return st && st->arg && strstr(st->arg, "|off");
}

/*
 * One value: under its JSON key, and in text as the keyword that sets
 * it (or its key, for a read-only one), by name for an enum.
 */
static void print_value(const struct mp_field *f, const struct mp_setting *st,
			uint64_t v)
{
	const char *name = f->names ? mp_name(f->names, v) : NULL;
	char fmt[64], word[32], *c;

	/* A read-only value has no keyword: its key, dashed as keywords are. */
	snprintf(word, sizeof(word), "%s", st ? st->keyword : f->key);
	for (c = word; *c; c++)
		if (*c == '_')
			*c = '-';

	if (name) {
		snprintf(fmt, sizeof(fmt), "%s %%s ", word);
		print_color_string(PRINT_ANY, IP_COLOR_NONE, f->key, fmt, name);
		return;
	}
	if (has_off(st) && !v) {
		print_color_u64(PRINT_JSON, IP_COLOR_NONE, f->key, NULL, 0);
		snprintf(fmt, sizeof(fmt), "%s off ", word);
		print_color_string(PRINT_FP, IP_COLOR_NONE, NULL, fmt, NULL);
		return;
	}
	snprintf(fmt, sizeof(fmt), "%s %%" PRIu64 " ", word);
	print_color_u64(PRINT_ANY, IP_COLOR_NONE, f->key, fmt, v);
}

static void print_peers(const struct mp_link *l)
{
	char addr[MP_ADDR_STRLEN], text[MPLANE_MAX_PEERS * (MP_ADDR_STRLEN + 1)];
	size_t off = 0;
	unsigned int i;

	open_json_array(PRINT_JSON, "peers");
	for (i = 0; i < l->npeers; i++) {
		mp_addr_str(&l->peers[i], addr, sizeof(addr));
		print_color_string(PRINT_JSON, IP_COLOR_NONE, NULL, NULL, addr);
		off += snprintf(text + off, sizeof(text) - off, "%s%s",
				i ? "," : "", addr);
	}
	close_json_array(PRINT_JSON, NULL);
	print_color_string(PRINT_FP, IP_COLOR_NONE, NULL, "peers %s ",
			   l->npeers ? text : "none");
}

static void print_cc(const struct mp_link *l)
{
	const struct mp_field *f;

	open_json_object("cc");
	for (f = mp_cc_fields; f->key; f++)
		if (l->cc_present & (1u << f->attr))
			print_value(f, setting_of(mp_link_settings,
						  IFLA_MPLANE_CC, f->attr),
				    l->cc_val[f->attr]);
	close_json_object();
}

/* The QPs in JSON, as mplanectl shows them; text says how many. */
static void print_qps(const struct mp_link *l)
{
	char addr[MP_ADDR_STRLEN];
	const struct mp_field *f;
	const struct mp_qp *q;
	unsigned int i;

	open_json_array(PRINT_JSON, "qps");
	for (i = 0; i < l->nqps; i++) {
		q = &l->qps[i];
		open_json_object(NULL);
		if (q->present & (1u << IFLA_MPLANE_QP_PEER))
			print_color_string(PRINT_JSON, IP_COLOR_NONE, "peer",
					   NULL, mp_addr_str(&q->peer, addr,
							     sizeof(addr)));
		for (f = mp_qp_fields; f->key; f++)
			if (q->present & (1u << f->attr))
				print_color_u64(PRINT_JSON, IP_COLOR_NONE,
						f->key, NULL, q->val[f->attr]);
		if (q->present & (1u << IFLA_MPLANE_QP_ALPHA)) {
			print_color_float(PRINT_JSON, IP_COLOR_NONE, "alpha",
					  NULL, (double)q->val[IFLA_MPLANE_QP_ALPHA] /
					  MPLANE_CC_ALPHA_ONE);
			print_color_u64(PRINT_JSON, IP_COLOR_NONE, "alpha_1024",
					NULL, q->val[IFLA_MPLANE_QP_ALPHA]);
		}
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_color_uint(PRINT_FP, IP_COLOR_NONE, NULL, "qps %u ", l->nqps);
}

static void mplane_print_opt(struct link_util *lu, FILE *f,
			     struct rtattr *tb[])
{
	const struct mp_field *fd;
	struct mp_link l;
	int type;

	(void)f;
	if (!tb)
		return;
	memset(&l, 0, sizeof(l));
	/* An rtattr is an nlattr: the same two fields, the same padding. */
	for (type = 1; type <= lu->maxattr; type++)
		if (tb[type])
			mp_link_parse_device_attr((const struct nlattr *)tb[type],
						  &l);
	for (fd = mp_device_fields; fd->key; fd++)
		if (l.present & (1u << fd->attr))
			print_value(fd, setting_of(mp_link_settings, 0, fd->attr),
				    l.val[fd->attr]);
	if (l.present & (1u << IFLA_MPLANE_PEERS))
		print_peers(&l);
	if (l.present & (1u << IFLA_MPLANE_CC))
		print_cc(&l);
	if (l.present & (1u << IFLA_MPLANE_QPS))
		print_qps(&l);
}

static void mplane_slave_print_opt(struct link_util *lu, FILE *f,
				   struct rtattr *tb[])
{
	const struct mp_field *fd;
	struct mp_plane_info p;
	unsigned int i;
	int type;

	(void)f;
	if (!tb)
		return;
	memset(&p, 0, sizeof(p));
	for (type = 1; type <= lu->maxattr; type++)
		if (tb[type])
			mp_link_parse_plane_attr((const struct nlattr *)tb[type],
						 &p);
	if (p.present & (1u << IFLA_MPLANE_PLANE_ID))
		print_color_uint(PRINT_ANY, IP_COLOR_NONE, "index", "plane %u ",
				 p.val[IFLA_MPLANE_PLANE_ID]);
	for (fd = mp_plane_fields; fd->key; fd++)
		if (p.present & (1u << fd->attr))
			print_value(fd, setting_of(mp_plane_settings, 0,
						   fd->attr),
				    p.val[fd->attr]);
	if (!(p.present & (1u << IFLA_MPLANE_PLANE_STATS)))
		return;
	/* The counters are ethtool -S mp0's too: JSON only, as bond does. */
	open_json_object("stats");
	for (i = 1; i < mp_pstat_names.count; i++)
		if (p.stats_present & (1u << i))
			print_color_u64(PRINT_JSON, IP_COLOR_NONE,
					mp_name(&mp_pstat_names, i), NULL,
					p.stats[i]);
	close_json_object();
}

static void print_settings_help(const char *kind,
				const struct mp_setting *table, FILE *f)
{
	char syntax[128], limits[128];

	fprintf(f, "Usage: ... %s [ SETTING VALUE ]...\n\nSettings:\n", kind);
	for (; table->keyword; table++) {
		mp_setting_help(table, syntax, sizeof(syntax), limits,
				sizeof(limits));
		fprintf(f, "  %s\n        %s\n", syntax, table->help);
		if (limits[0])
			fprintf(f, "        %s\n", limits);
	}
}

static void mplane_print_help(struct link_util *lu, int argc, char **argv,
			      FILE *f)
{
	(void)lu;
	(void)argc;
	(void)argv;
	print_settings_help("type mplane", mp_link_settings, f);
	fprintf(f, "\nThe kernel checks each range and says which it refused.\n"
		"Planes: ip link set RAIL master DEV; then\n"
		"  ip link set RAIL type mplane_slave weight N admin up|drain|down\n");
}

static void mplane_slave_print_help(struct link_util *lu, int argc,
				    char **argv, FILE *f)
{
	(void)lu;
	(void)argc;
	(void)argv;
	print_settings_help("type mplane_slave", mp_plane_settings, f);
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "help"))
			return true;
	return false;
}

/*
 * Parse with mplanectl's table and append what it gives to ip's open
 * nest.  -1 after saying why, as ip's own link types do.
 */
static int parse_settings(struct link_util *lu, const struct mp_setting *table,
			  int argc, char **argv, struct nlmsghdr *n)
{
	struct mp_settings s;
	char err[256];
	int ret;

	if (wants_help(argc, argv)) {
		lu->print_help(lu, argc, argv, stderr);
		return -1;
	}
	if (mp_settings_parse(table, argc, argv, &s, err, sizeof(err))) {
		fprintf(stderr, "Error: %s. Try \"ip link help %s\".\n", err,
			lu->id);
		return -1;
	}
	ret = table == mp_link_settings ?
	      mp_link_put_data(n, IP_REQ_ATTR_SPACE, &s) :
	      mp_link_put_plane_data(n, IP_REQ_ATTR_SPACE, &s);
	if (ret) {
		fprintf(stderr, "Error: the settings do not fit in ip's request (%d bytes).\n",
			IP_REQ_ATTR_SPACE);
		return -1;
	}
	return 0;
}

static int mplane_parse_opt(struct link_util *lu, int argc, char **argv,
			    struct nlmsghdr *n)
{
	return parse_settings(lu, mp_link_settings, argc, argv, n);
}

static int mplane_slave_parse_opt(struct link_util *lu, int argc, char **argv,
				  struct nlmsghdr *n)
{
	return parse_settings(lu, mp_plane_settings, argc, argv, n);
}

EXPORT struct link_util mplane_link_util = {
	.id		= "mplane",
	.maxattr	= IFLA_MPLANE_MAX,
	.parse_opt	= mplane_parse_opt,
	.print_opt	= mplane_print_opt,
	.print_help	= mplane_print_help,
};

EXPORT struct link_util mplane_slave_link_util = {
	.id		= "mplane_slave",
	.maxattr	= IFLA_MPLANE_PLANE_MAX,
	.parse_opt	= mplane_slave_parse_opt,
	.print_opt	= mplane_slave_print_opt,
	.print_help	= mplane_slave_print_help,
};
