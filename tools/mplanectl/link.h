/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the 'mplanectl link' commands share: opening rtnetlink, checking
 * device names, printing enum values and the help of settings.
 */
#ifndef MPLANECTL_LINK_H
#define MPLANECTL_LINK_H

#include <stdint.h>

#include "mp_names.h"
#include "mp_rtnl.h"

/* The subcommands of "link", one file each (add and set share one). */
int link_show_main(int argc, char **argv);
int link_add_main(int argc, char **argv);
int link_set_main(int argc, char **argv);
int link_del_main(int argc, char **argv);
int link_plane_main(int argc, char **argv);
int link_monitor_main(int argc, char **argv);

/* Open @r subscribed to @groups; MP_EXIT_OK, or MP_EXIT_ERR (reported). */
int link_open(struct mp_rtnl *r, unsigned int groups);

/* @dev as a device name: MP_EXIT_OK, or MP_EXIT_USAGE (reported). */
int link_dev_arg(const char *what, const char *dev);

/*
 * The settings of an mplane device: tools/lib's mp_link_settings and
 * those only mplanectl knows so far (sample-interval).
 */
const struct mp_setting *link_dev_settings(void);

/* The operand and the settings after it: "DEV [KEYWORD VALUE]...". */
int link_settings_args(int argc, char **argv, const char *what,
		       const struct mp_setting *table, const char **dev,
		       struct mp_settings *s);

/*
 * "DEV: not an mplane device (kind veth)", or the like for a rail, from
 * what the kernel says of DEV; MP_EXIT_ERR.
 */
int link_not_mplane(const struct mp_link *l);

/* Every setting of @table, two lines each, for --help. */
void link_settings_help(FILE *f, const struct mp_setting *table);

/* The name of @v in @n, or the number when a newer kernel has more. */
const char *link_enum_str(const struct mp_names *n, uint32_t v, char *buf,
			  size_t size);

#endif /* MPLANECTL_LINK_H */
