/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ip(8) gives a link-type plugin: the table it looks up as
 * "<kind>_link_util" in IP_LIB_DIR/link_<kind>.so (Debian's ip:
 * /usr/lib/x86_64-linux-gnu/ip), and the functions of its own that it
 * exports to plugins.  iproute2 ships no headers for this, so the
 * declarations are written here, from the interface as it stands in
 * iproute2 6.1 to 6.18: the table's layout has not changed in that
 * span, and a plugin built for it loads in each.
 *
 * Only what link_mplane.c uses is declared.
 */
#ifndef MP_IP_LINK_API_H
#define MP_IP_LINK_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct link_util {
	struct link_util *next;		/* ip's own list */
	const char *id;			/* the kind: "mplane", "mplane_slave" */
	int maxattr;			/* of the table print_opt gets */
	/* argv after "type KIND"; append to the open IFLA_INFO_DATA (or
	 * IFLA_INFO_SLAVE_DATA).  0, or -1 after saying why. */
	int (*parse_opt)(struct link_util *lu, int argc, char **argv,
			 struct nlmsghdr *n);
	/* The attributes of that nest, by type, up to maxattr. */
	void (*print_opt)(struct link_util *lu, FILE *f, struct rtattr *tb[]);
	void (*print_xstats)(struct link_util *lu, FILE *f,
			     struct rtattr *xstats);
	void (*print_help)(struct link_util *lu, int argc, char **argv,
			   FILE *f);
	int (*parse_ifla_xstats)(struct link_util *lu, int argc, char **argv);
	int (*print_ifla_xstats)(struct nlmsghdr *n, void *arg);
};

/* ip's output: text, JSON (-j), or both, per value. */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

#define IP_COLOR_NONE	0

bool is_json_context(void);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(enum output_type t, const char *key);
void close_json_array(enum output_type t, const char *delim);
int print_color_string(enum output_type t, int color, const char *key,
		       const char *fmt, const char *value);
int print_color_uint(enum output_type t, int color, const char *key,
		     const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, int color, const char *key,
		    const char *fmt, uint64_t value);
int print_color_float(enum output_type t, int color, const char *key,
		      const char *fmt, double value);

#endif /* MP_IP_LINK_API_H */
