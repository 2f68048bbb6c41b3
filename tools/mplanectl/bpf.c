// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf: the group of commands that manage mplane's BPF programs. */
#include <string.h>

#include "ar.h"
#include "mp_cmd.h"
#include "mplanectl.h"

/* Whether a command acts on a fabric's switches rather than a device. */
static bool on_fabric(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--fabric") || !strcmp(argv[i], "-f") ||
		    !strncmp(argv[i], "--fabric=", 9))
			return true;
	return false;
}

static int bpf_attach(int argc, char **argv)
{
	return on_fabric(argc, argv) ? bpf_fabric_attach(argc, argv) :
				       bpf_attach_main(argc, argv);
}

static int bpf_status(int argc, char **argv)
{
	return on_fabric(argc, argv) ? bpf_fabric_status(argc, argv) :
				       bpf_status_main(argc, argv);
}

static int bpf_detach(int argc, char **argv)
{
	return on_fabric(argc, argv) ? bpf_fabric_detach(argc, argv) :
				       bpf_detach_main(argc, argv);
}

static const struct mp_cmd bpf_cmds[] = {
	{ "attach", bpf_attach, "start a program on a device, or ar on a fabric (--fabric)" },
	{ "status", bpf_status, "show what is attached and the counters" },
	{ "detach", bpf_detach, "take a program off a device or a fabric" },
	{ "watch", bpf_fabric_watch, "keep a fabric's port states current (foreground)" },
	{}
};

static const struct mp_group bpf_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] bpf COMMAND [OPTIONS] DEV\n"
"\n"
"Manage mplane's BPF programs on network devices.  The packet counter\n"
"(pktcount) sits on the tc clsact hooks of a device and counts packets and\n"
"bytes per direction and protocol class (ipv4, ipv6, arp, other), without\n"
"changing anything for the traffic or for other tc filters.  With --prog\n"
"hostacct, the host accountant counts RoCEv2, CNPs and ECN marks per rail\n"
"and per QP, next to pktcount or alone (tc; XDP for ingress with --xdp).\n"
"\n"
"On a fabric built by 'mplanectl fabric up', --fabric PREFIX puts adaptive\n"
"routing (ar: ecmp, ar or flowlet, with ECN marking on a virtual queue)\n"
"on every switch port instead.\n",
	.footer =
"Run 'mplanectl bpf COMMAND --help' for the options of a command.\n"
"\n"
"Examples:\n"
"  mplanectl bpf attach eth0\n"
"  mplanectl -n blue -j bpf status veth0\n"
"  mplanectl bpf detach eth0\n"
"  mplanectl bpf attach --fabric mpf --policy ar\n"
"  mplanectl bpf status --fabric mpf p0l0\n",
	.cmds = bpf_cmds,
};

int bpf_main(int argc, char **argv)
{
	return mp_group_run(&bpf_group, argc - 1, argv + 1);
}
