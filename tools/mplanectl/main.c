// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl: control the mplane datapath.  Global options, then a command
 * group (one file per group), then its command with the command's options.
 */
#include <string.h>
#include <bpf/libbpf.h>

#include "bpf_prog.h"
#include "mp_bpf.h"
#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_opt.h"
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
"Usage: mplanectl [GLOBAL OPTIONS] GROUP COMMAND [OPTIONS] [ARGS]\n",
	.cmds = groups,
};

struct global_settings {
	const char *netns;
	bool json, verbose, version;
};

#define AT(member)	MP_OPT_AT(struct global_settings, member)
static const struct mp_opt global_opts[] = {
	{ "netns", 'n', MP_OPT_STRING, AT(netns), "NAME",
	  .help = "act in network namespace NAME (one 'ip netns add' made), entered before anything else is done; unlike 'ip netns exec' the mount namespace stays the host's, so /sys/fs/bpf and all other files are the host's" },
	{ "json", 'j', MP_OPT_FLAG, AT(json), NULL,
	  .help = "print results as one JSON object per command, on one line (a command that prints nothing on success prints nothing with -j either); unlike the other global options also taken after the command (mplanectl link show -j), unless that command has a -j of its own" },
	{ "verbose", 'v', MP_OPT_FLAG, AT(verbose), NULL,
	  .help = "show libbpf's log, such as the verifier's output when a program does not load; without it libbpf stays silent and only mplanectl's own errors are printed" },
	{ "version", 'V', MP_OPT_FLAG, AT(version), NULL,
	  .help = "show the version of mplanectl and of the libbpf it runs with" },
	{}
};
#undef AT

static void list_groups(FILE *f)
{
	mp_group_commands(&mplanectl, f);
}

static const struct mp_opt_cmd main_cmd = {
	.usage = "GROUP COMMAND [OPTIONS] [ARGS]",
	.about = "Control the mplane AI-fabric datapath.\n\n",
	.about_table = list_groups,
	.about_end = "The global options below go before GROUP.\n",
	.opts = global_opts,
	/* Stop at GROUP, whose commands parse the rest. */
	.options_first = true,
	.footer =
"Run 'mplanectl GROUP --help' for the commands of a group.  Exit status is\n"
"0 on success, 1 when a command fails and 2 for a wrong command line.\n"
"\n"
"Examples:\n"
"  mplanectl bpf attach eth0\n"
"  mplanectl -n blue -j bpf status veth1\n",
};

int main(int argc, char **argv)
{
	struct global_settings set = {};
	struct mp_opt_result res;
	int err;

	mp_progname = "mplanectl";
	err = mp_opt_parse(&main_cmd, argc, argv, &set, &res);
	if (err != MP_OPT_RUN)
		return err;
	if (set.version) {
		printf("mplanectl %s (libbpf %u.%u)\n", MPLANE_VERSION,
		       libbpf_major_version(), libbpf_minor_version());
		return MP_EXIT_OK;
	}
	if (set.json)
		mp_json = true;
	if (res.argi >= argc) {
		mp_opt_help(&main_cmd, stderr);
		return MP_EXIT_USAGE;
	}
	/* Before any socket is opened, so that all of them are in NAME. */
	if (set.netns) {
		err = mp_netns_enter(set.netns);
		if (err) {
			mp_err("netns %s: %s", set.netns, strerror(-err));
			return MP_EXIT_ERR;
		}
	}
	mp_libbpf_setup(set.verbose);
	mpbpf_xdp_setup(set.verbose);
	return mp_group_run(&mplanectl, argc - res.argi, argv + res.argi);
}
