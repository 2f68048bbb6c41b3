// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <stdio.h>

#include "mp_fault.h"
#include "mp_names.h"
#include "mp_print.h"
#include "mplane_events.h"

#define PPM_PER_PCT	10000.0

static const char *or_unknown(const char *name)
{
	return name ? name : "?";
}

const char *mp_fault_action_name(unsigned int action)
{
	return or_unknown(mp_name(&mp_fault_action_names, action));
}

const char *mp_fault_target_name(unsigned int target)
{
	return or_unknown(mp_name(&mp_fault_target_names, target));
}

const char *mp_fault_via_name(unsigned int via)
{
	return or_unknown(mp_name(&mp_fault_via_names, via));
}

/* The letter a node's name has for its role: "h3", "p0l1", "p0s1". */
static char role_letter(unsigned int role)
{
	switch (role) {
	case MPLANE_FAULT_ROLE_HOST:
		return 'h';
	case MPLANE_FAULT_ROLE_LEAF:
		return 'l';
	case MPLANE_FAULT_ROLE_SPINE:
		return 's';
	default:
		return '?';
	}
}

static int node_name(unsigned int role, unsigned int index,
		     unsigned int plane, char *buf, size_t size)
{
	if (role == MPLANE_FAULT_ROLE_HOST)
		return snprintf(buf, size, "h%u", index);
	return snprintf(buf, size, "p%u%c%u", plane, role_letter(role), index);
}

char *mp_fault_where(const struct mplane_event *e, char *buf, size_t size)
{
	__u64 spec = e->val[3];
	unsigned int role = MPLANE_FAULT_SPEC_ROLE(spec);
	unsigned int peer = MPLANE_FAULT_SPEC_PEER_ROLE(spec);
	unsigned int plane = e->hdr.plane;
	int n;

	if (!role) {
		if (plane == MPLANE_EVENT_NO_PLANE)
			snprintf(buf, size, "fabric");
		else
			snprintf(buf, size, "plane %u", plane);
		return buf;
	}
	n = node_name(role, MPLANE_FAULT_SPEC_INDEX(spec), plane, buf, size);
	if (!peer || n < 0 || (size_t)n >= size)
		return buf;
	/* A host's port is its rail of the plane; a switch's is named by
	 * the node at its far end. */
	if (role == MPLANE_FAULT_ROLE_HOST)
		snprintf(buf + n, size - n, ":r%u", plane);
	else
		snprintf(buf + n, size - n, ":%c%u", role_letter(peer),
			 MPLANE_FAULT_SPEC_PEER_INDEX(spec));
	return buf;
}

/* "10mbit", "1.5gbit": the largest unit that keeps a whole number part. */
static void rate_words(__u64 bps, char *buf, size_t size)
{
	static const char *const units[] = { "bit", "kbit", "mbit", "gbit" };
	double v = bps;
	unsigned int i;

	for (i = 0; i < 3 && v >= 1000; i++)
		v /= 1000;
	snprintf(buf, size, "%g%s", v, units[i]);
}

char *mp_fault_what(const struct mplane_event *e, char *buf, size_t size)
{
	const char *action = mp_fault_action_name(e->val[0]);
	char value[32];

	switch (e->val[0]) {
	case MPLANE_FAULT_DEGRADE:
		rate_words(e->val[1], value, sizeof(value));
		snprintf(buf, size, "%s %s", action, value);
		break;
	case MPLANE_FAULT_LOSS:
		snprintf(buf, size, "%s %g%%", action, e->val[1] / PPM_PER_PCT);
		break;
	default:
		snprintf(buf, size, "%s", action);
	}
	return buf;
}

char *mp_fault_words(const struct mplane_event *e, char *buf, size_t size)
{
	char what[48];

	snprintf(buf, size, "%s (%s, %s)", mp_fault_what(e, what, sizeof(what)),
		 mp_fault_target_name(MPLANE_FAULT_SPEC_TARGET(e->val[3])),
		 mp_fault_via_name(MPLANE_FAULT_SPEC_VIA(e->val[3])));
	return buf;
}

void mp_fault_print(const struct mplane_event *e, enum mp_print_to to,
		    const char *where_fmt)
{
	char buf[48];

	mp_print_str(to, "where", where_fmt,
		     mp_fault_where(e, buf, sizeof(buf)));
	mp_print_str(to, "what", " %s", mp_fault_what(e, buf, sizeof(buf)));
	mp_print_str(to, "target", " (%s",
		     mp_fault_target_name(MPLANE_FAULT_SPEC_TARGET(e->val[3])));
	mp_print_str(to, "via", ", %s)",
		     mp_fault_via_name(MPLANE_FAULT_SPEC_VIA(e->val[3])));
}
