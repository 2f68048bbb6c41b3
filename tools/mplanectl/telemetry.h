/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mplanectl telemetry: one timeline of every source (BPF rings, mplane.ko's
 * tracepoints relayed by BPF, the samplers, the counter pollers, step
 * marks) and the views over it.  One file per subcommand.
 */
#ifndef MPLANECTL_TELEMETRY_H
#define MPLANECTL_TELEMETRY_H

int telemetry_main(int argc, char **argv);

int telemetry_attach_main(int argc, char **argv);	/* kmod relay on */
int telemetry_detach_main(int argc, char **argv);	/* and off */
int telemetry_sample_main(int argc, char **argv);	/* switch sampler */
int telemetry_record_main(int argc, char **argv);
int telemetry_dump_main(int argc, char **argv);
int telemetry_report_main(int argc, char **argv);
int telemetry_hist_main(int argc, char **argv);
int telemetry_top_main(int argc, char **argv);
int telemetry_export_main(int argc, char **argv);

#endif /* MPLANECTL_TELEMETRY_H */
