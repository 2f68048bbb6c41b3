// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf: the group of commands that manage mplane's BPF programs. */
#include "mp_cmd.h"
#include "mplanectl.h"

static const struct mp_cmd bpf_cmds[] = {
	{ "attach", bpf_attach_main, "start counting packets on a device" },
	{ "status", bpf_status_main, "show what is attached and the counters" },
	{ "detach", bpf_detach_main, "stop counting packets on a device" },
	{}
};

static const struct mp_group bpf_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] bpf COMMAND [OPTIONS] DEV\n"
"\n"
"Manage mplane's BPF programs on network devices.  The packet counter\n"
"(pktcount) sits on the tc clsact hooks of a device and counts packets and\n"
"bytes per direction and protocol class (ipv4, ipv6, arp, other), without\n"
"changing anything for the traffic or for other tc filters.\n",
	.footer =
"Run 'mplanectl bpf COMMAND --help' for the options of a command.\n"
"\n"
"Examples:\n"
"  mplanectl bpf attach eth0\n"
"  mplanectl -n blue -j bpf status veth0\n"
"  mplanectl bpf detach eth0\n",
	.cmds = bpf_cmds,
};

int bpf_main(int argc, char **argv)
{
	return mp_group_run(&bpf_group, argc - 1, argv + 1);
}
