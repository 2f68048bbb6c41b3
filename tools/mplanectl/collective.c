// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl collective: NCCL-style collectives over a fabric's hosts, one
 * rank per host, to measure the fabric the way training jobs load it.
 */
#include "mp_cmd.h"
#include "mplanectl.h"

static const struct mp_cmd collective_cmds[] = {
	{ "run", collective_run_main, "run a collective, one rank per host, and report it as nccl-tests does" },
	{}
};

static const struct mp_group collective_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] collective COMMAND [OPTIONS]\n"
"\n"
"What NCCL jobs do to a fabric, without GPUs: allreduce, allgather,\n"
"reduce_scatter, broadcast and alltoall, and the background patterns\n"
"permutation and incast, with one rank in the namespace of each host of\n"
"a fabric built by 'mplanectl fabric up', over TCP or RoCEv2 framing.\n"
"Every result is checked; figures are nccl-tests' (size, time, algbw,\n"
"busbw) with completion-time percentiles and the slowest rank; each\n"
"iteration is marked on the telemetry timeline.\n"
"Documentation/collective.md has the design.\n",
	.footer =
"Run 'mplanectl collective run --help' for the options, the figures and\n"
"examples.\n",
	.cmds = collective_cmds,
};

int collective_main(int argc, char **argv)
{
	return mp_group_run(&collective_group, argc - 1, argv + 1);
}
