// SPDX-License-Identifier: GPL-2.0
/* mplanectl telemetry: the command group. */
#include "mp_cmd.h"
#include "telemetry.h"

static const struct mp_cmd telemetry_cmds[] = {
	{ "attach", telemetry_attach_main,
	  "relay mplane.ko's tracepoints into the event stream" },
	{ "detach", telemetry_detach_main, "stop relaying them" },
	{ "sample", telemetry_sample_main,
	  "start or stop the switch ports' high-frequency sampler" },
	{ "record", telemetry_record_main,
	  "capture every source, losslessly, to a file" },
	{ "dump", telemetry_dump_main,
	  "print a capture's frames as JSON lines, for scripts" },
	{ "report", telemetry_report_main,
	  "summarise a capture; a timeline around its anomalies" },
	{ "hist", telemetry_hist_main,
	  "percentiles of queue depth, delivery gaps and step time" },
	{ "top", telemetry_top_main,
	  "live per-plane and per-port table, with symmetry" },
	{ "export", telemetry_export_main,
	  "serve Prometheus metrics over HTTP" },
	{}
};

static const struct mp_group telemetry_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] telemetry COMMAND [OPTIONS]\n"
"\n"
"Every signal of the fabric on one CLOCK_MONOTONIC timeline: the BPF\n"
"programs' events, mplane.ko's tracepoints, the high-frequency samplers,\n"
"polled NIC and RDMA counters and the applications' step marks.\n",
	.footer =
"Run 'mplanectl telemetry COMMAND --help' for the options of a command.\n",
	.cmds = telemetry_cmds,
};

int telemetry_main(int argc, char **argv)
{
	return mp_group_run(&telemetry_group, argc - 1, argv + 1);
}
