// SPDX-License-Identifier: GPL-2.0
/* mplanectl link: the group of commands that read and set mplane devices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "mp_cmd.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "link.h"

static const struct mp_cmd link_cmds[] = {
	{ "show", link_show_main, "show mplane devices, their settings and planes" },
	{ "add", link_add_main, "create an mplane device" },
	{ "set", link_set_main, "change the settings of an mplane device" },
	{ "del", link_del_main, "delete an mplane device" },
	{ "plane", link_plane_main, "change the weight or admin state of a plane" },
	{ "monitor", link_monitor_main, "print plane state changes as they happen" },
	{}
};

static const struct mp_group link_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] link COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Read and set mplane devices over rtnetlink.  An mplane device (mp0) is a\n"
"network device of kind \"mplane\" that spreads its traffic over planes:\n"
"rails, which are ordinary devices enslaved to it with\n"
"'ip link set RAIL master mp0'.  The device holds the settings (policy,\n"
"timers, peers); each plane has a weight, an admin state, and a state\n"
"with its reason that the kernel keeps up to date.\n",
	.footer =
"Run 'mplanectl link COMMAND --help' for the options of a command.\n"
"\n"
"Examples:\n"
"  mplanectl link add mp0 policy flowlet peers 10.0.0.2\n"
"  ip link set a0 master mp0; ip link set a1 master mp0; ip link set mp0 up\n"
"  mplanectl link show mp0\n"
"  mplanectl link plane a1 admin drain\n"
"  mplanectl -j link monitor mp0 --count 1 --timeout 5\n",
	.cmds = link_cmds,
};

int link_main(int argc, char **argv)
{
	return mp_group_run(&link_group, argc - 1, argv + 1);
}

int link_open(struct mp_rtnl *r, unsigned int groups)
{
	int err = mp_rtnl_open(r, groups);

	if (err) {
		mp_err("rtnetlink socket: %s", strerror(-err));
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

int link_dev_arg(const char *what, const char *dev)
{
	/* The rest of what makes a name valid is the kernel's to say. */
	if (!dev[0] || strlen(dev) >= IF_NAMESIZE)
		return mp_usage_err("bad %s '%s': want a device name of 1 to %d characters",
				    what, dev, IF_NAMESIZE - 1);
	return MP_EXIT_OK;
}

const struct mp_setting *link_dev_settings(void)
{
	return mp_link_settings;
}

int link_settings_args(int argc, char **argv, const char *what,
		       const struct mp_setting *table, const char **dev,
		       struct mp_settings *s)
{
	char err[256];
	int ret;

	if (optind >= argc)
		return mp_usage_err("missing %s", what);
	*dev = argv[optind];
	ret = link_dev_arg(what, *dev);
	if (ret)
		return ret;
	ret = mp_settings_parse(table, argc - optind - 1, argv + optind + 1,
				s, err, sizeof(err));
	if (ret)
		return mp_usage_err("%s", err);
	return MP_EXIT_OK;
}

int link_not_mplane(const struct mp_link *l)
{
	if (l->kind[0])
		mp_err("%s: not an mplane device (kind %s)", l->name, l->kind);
	else
		mp_err("%s: not an mplane device", l->name);
	return MP_EXIT_ERR;
}

void link_settings_help(FILE *f, const struct mp_setting *table)
{
	char syntax[128], limits[128];

	for (; table->keyword; table++) {
		mp_setting_help(table, syntax, sizeof(syntax), limits,
				sizeof(limits));
		fprintf(f, "  %s\n        %s\n", syntax, table->help);
		if (limits[0])
			fprintf(f, "        %s\n", limits);
	}
}

const char *link_enum_str(const struct mp_names *n, uint32_t v, char *buf,
			  size_t size)
{
	const char *name = mp_name(n, v);

	if (name)
		return name;
	snprintf(buf, size, "%u", v);
	return buf;
}
