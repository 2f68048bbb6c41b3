// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl: control the mplane datapath.  Global options, then a command
 * group (one file per group), then its command with the command's options.
 */
#include <string.h>
#include <bpf/libbpf.h>

#include "mp_bpf.h"
#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "telemetry.h"

static const struct mp_cmd groups[] = {
	{ "bpf", bpf_main, "attach, inspect and detach mplane's BPF programs" },
	{ "traffic", traffic_main, "send a paced test stream and measure loss and gaps" },
	{ "link", link_main, "show, create and set mplane devices and their planes" },
	{ "fabric", fabric_main, "build a multi-plane leaf-spine fabric in namespaces" },
	{ "events", events_main, "print the BPF programs' events as they happen" },
	{ "mark", mark_main, "put step markers on the event timeline" },
	{ "telemetry", telemetry_main, "record, report, top, hist and export the fabric's telemetry" },
	{ "collective", collective_main, "run NCCL-style collectives over a fabric's hosts, checked and timed" },
	{ "accept", accept_main, "accept a fabric: an acceptance class's figures per policy, and the verdict" },
	{}
};

static const struct mp_group mplanectl = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] GROUP COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Control the mplane AI-fabric datapath.\n",
	.footer =
"Global options (they go before GROUP):\n"
"  -n, --netns NAME  act in network namespace NAME (see ip-netns(8)); only\n"
"                    the network namespace changes, files stay the host's\n"
"  -j, --json        print results as JSON (also taken after the command)\n"
"  -v, --verbose     show libbpf's log, e.g. the verifier's\n"
"  -h, --help        show this help\n"
"  -V, --version     show the version\n"
"\n"
"Run 'mplanectl GROUP --help' for the commands of a group.  Exit status is\n"
"0 on success, 1 when a command fails and 2 for a wrong command line.\n"
"\n"
"Examples:\n"
"  mplanectl bpf attach eth0\n"
"  mplanectl -n blue -j bpf status veth1\n",
	.cmds = groups,
};

static const struct option global_opts[] = {
	{ "netns",	required_argument,	NULL, 'n' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{}
};

int main(int argc, char **argv)
{
	const char *netns = NULL;
	bool verbose = false;
	int c, err;

	mp_progname = "mplanectl";
	/* '+': stop at GROUP, whose commands parse the rest. */
	while ((c = mp_getopt(argc, argv, "+:n:jvhV", global_opts)) != -1) {
		switch (c) {
		case 'n':
			netns = optarg;
			break;
		case 'j':
			mp_json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			mp_group_help(&mplanectl, stdout);
			return MP_EXIT_OK;
		case 'V':
			printf("mplanectl %s (libbpf %u.%u)\n", MPLANE_VERSION,
			       libbpf_major_version(), libbpf_minor_version());
			return MP_EXIT_OK;
		default:
			return MP_EXIT_USAGE;
		}
	}
	/* Before any socket is opened, so that all of them are in NAME. */
	if (netns) {
		err = mp_netns_enter(netns);
		if (err) {
			mp_err("netns %s: %s", netns, strerror(-err));
			return MP_EXIT_ERR;
		}
	}
	mp_libbpf_setup(verbose);
	return mp_group_run(&mplanectl, argc - optind, argv + optind);
}
