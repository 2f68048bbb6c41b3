/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The words of mplane's rtnetlink contract (uapi/linux/mplane.h) as the
 * tools print and read them: names of the enum values, names of the
 * per-plane counters, and the keyword-value settings of 'mplanectl link
 * add/set/plane' turned into attribute values.  Pure: no I/O, no libraries
 * beyond libc, so selftests/unit/test_names.c tests all of it.
 *
 * Printed names are the lower-case suffixes of the uapi names
 * (MPLANE_PLANE_ADMIN_DOWN -> "admin_down", IFLA_MPLANE_PSTAT_ECN_CE ->
 * "ecn_ce"), so that text, JSON and the header agree.
 */
#ifndef MP_NAMES_H
#define MP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"
#include "mplane_maps.h"

/* A table of names indexed by value; holes are NULL. */
struct mp_names {
	const char *what;		/* "policy": names the value in messages */
	const char *const *names;
	unsigned int count;
};

extern const struct mp_names mp_policy_names;	/* enum mplane_policy */
extern const struct mp_names mp_ar_policy_names; /* enum mplane_ar_policy */
extern const struct mp_names mp_gso_names;	/* enum mplane_gso_mode */
extern const struct mp_names mp_admin_names;	/* enum mplane_plane_admin */
extern const struct mp_names mp_state_names;	/* enum mplane_plane_state */
extern const struct mp_names mp_reason_names;	/* enum mplane_plane_reason */
extern const struct mp_names mp_pstat_names;	/* IFLA_MPLANE_PSTAT_* */
extern const struct mp_names mp_operstate_names; /* IF_OPER_* (RFC 2863) */
extern const struct mp_names mp_fault_action_names; /* enum mplane_fault_action */
extern const struct mp_names mp_fault_target_names; /* enum mplane_fault_target */
extern const struct mp_names mp_fault_via_names; /* enum mplane_fault_via */
extern const struct mp_names mp_cc_names;	/* enum mplane_cc */
extern const struct mp_names mp_rate_cause_names; /* enum mplane_rate_cause */
extern const struct mp_names mp_dir_names;	/* enum mplane_pktcount_dir */
extern const struct mp_names mp_counter_kind_names; /* enum mplane_counter_kind */
extern const struct mp_names mp_mark_kind_names; /* enum mplane_mark_kind */
extern const char *const mp_mark_kind_choices[]; /* the same, NULL ended */

/* The name of @val, or NULL when @n has none (a newer kernel's value). */
const char *mp_name(const struct mp_names *n, unsigned int val);

/* The value named @s (exactly); 0, or -EINVAL. */
int mp_name_parse(const struct mp_names *n, const char *s, uint32_t *val);

/* "flowlet|hash|rr|spray" into @buf (cut to @size); returns @buf. */
char *mp_names_join(const struct mp_names *n, const char *sep, char *buf,
		    size_t size);

/*
 * A plain decimal integer that fits 32 bits: no sign, no spaces, no
 * hexadecimal, no unit.  0, -EINVAL (not a number) or -ERANGE.
 */
int mp_parse_u32(const char *s, uint32_t *val);

/* An IPv4 or IPv6 address, as IFLA_MPLANE_PEER carries it. */
struct mp_addr {
	uint8_t len;			/* 4 or 16 */
	uint8_t bytes[16];
};

#define MP_ADDR_STRLEN	46		/* INET6_ADDRSTRLEN */

/* 0, or -EINVAL when @s is not a numeric address. */
int mp_parse_addr(const char *s, struct mp_addr *a);
/* The address in its usual text form; "?" when its length is neither. */
const char *mp_addr_str(const struct mp_addr *a, char *buf, size_t size);

/*
 * Most peers one command line can give: what a request buffer holds.  It
 * is not the kernel's limit (MPLANE_MAX_PEERS), which the kernel enforces,
 * so that its own message is the one people see.
 */
#define MP_PEERS_MAX	256

/* Attribute numbers of one nest (IFLA_MPLANE_* or IFLA_MPLANE_PLANE_*). */
#define MP_ATTR_SLOTS	16
_Static_assert(IFLA_MPLANE_MAX < MP_ATTR_SLOTS, "IFLA_MPLANE_* outgrew a settings slot");
_Static_assert(IFLA_MPLANE_PLANE_MAX < MP_ATTR_SLOTS, "IFLA_MPLANE_PLANE_* outgrew a settings slot");
/* IFLA_MPLANE_CC_*, the congestion control nest: one bit each in a u32. */
#define MP_CC_SLOTS	32
_Static_assert(IFLA_MPLANE_CC_MAX < MP_CC_SLOTS, "IFLA_MPLANE_CC_* outgrew a settings slot");

/*
 * Settings given on a command line, as attributes to send: bit n of @set
 * says attribute n is given, with @val[n] to be sent in @width[n] bytes
 * (1 or 4).  Peers (IFLA_MPLANE_PEERS) are @peers; none clears them.
 * Congestion control settings (IFLA_MPLANE_CC_*) are @cc, the same way
 * within their nest; bit IFLA_MPLANE_CC of @set says @cc has any.
 */
struct mp_nest_settings {
	uint32_t set;
	uint8_t width[MP_CC_SLOTS];
	uint32_t val[MP_CC_SLOTS];
};

struct mp_settings {
	uint32_t set;
	uint8_t width[MP_ATTR_SLOTS];
	uint32_t val[MP_ATTR_SLOTS];
	unsigned int npeers;
	struct mp_addr peers[MP_PEERS_MAX];
	struct mp_nest_settings cc;
};

/* Set IFLA_MPLANE_CC_@attr to @val in @width bytes, and mark the nest. */
static inline void mp_settings_set_cc(struct mp_settings *s,
				      unsigned int attr, unsigned int width,
				      uint32_t val)
{
	s->set |= 1u << IFLA_MPLANE_CC;
	s->cc.set |= 1u << attr;
	s->cc.width[attr] = width;
	s->cc.val[attr] = val;
}

/* One keyword of a settings table. */
struct mp_setting {
	const char *keyword;		/* "flowlet-gap" */
	const char *arg;		/* "US", or NULL for a name of @names */
	uint8_t attr;			/* IFLA_MPLANE_FLOWLET_GAP_US */
	uint8_t width;			/* bytes on the wire; 0 for peers */
	const struct mp_names *names;
	/* Documentation only: the kernel checks the range. */
	uint32_t min, max, def;
	bool has_def;
	const char *help;
	/* 0: an attribute of IFLA_INFO_DATA itself; IFLA_MPLANE_CC: @attr
	 * is an IFLA_MPLANE_CC_* inside that nest. */
	uint8_t nest;
};

/* Device settings (IFLA_INFO_DATA) and plane settings (SLAVE_DATA). */
extern const struct mp_setting mp_link_settings[];
extern const struct mp_setting mp_plane_settings[];

/*
 * Parse "KEYWORD VALUE ..." from @argv (@argc words) with @table into @s,
 * which is zeroed first.  0, or -EINVAL with a message for people in
 * @err.  Only the syntax is checked: a number must be a number, a name
 * one of the table's, an address an address; ranges are the kernel's.
 */
int mp_settings_parse(const struct mp_setting *table, int argc,
		      char *const *argv, struct mp_settings *s, char *err,
		      size_t errlen);

/*
 * Help for @st, without newlines: its syntax ("policy flowlet|hash|rr|spray")
 * in @syntax, and in @limits its range where the uapi has one and its
 * default ("50 to 1000000, default 1000"), or "" when neither.  What it
 * does is @st->help.
 */
void mp_setting_help(const struct mp_setting *st, char *syntax,
		     size_t syntax_len, char *limits, size_t limits_len);

/*
 * An attribute under its JSON key ("flowlet_gap_us": the uapi's name,
 * its unit as a suffix) and, for an enum, its names.  The tables end
 * with an entry without key.
 */
struct mp_field {
	uint8_t attr;
	const char *key;
	const struct mp_names *names;	/* for an enum, else NULL */
};

extern const struct mp_field mp_device_fields[];	/* IFLA_MPLANE_* */
extern const struct mp_field mp_cc_fields[];		/* IFLA_MPLANE_CC_* */
extern const struct mp_field mp_qp_fields[];		/* IFLA_MPLANE_QP_* */
extern const struct mp_field mp_plane_fields[];	/* IFLA_MPLANE_PLANE_* */

#endif /* MP_NAMES_H */
