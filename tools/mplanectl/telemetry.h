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

/* telemetry_export.c's exposition, and the QP tables it adds at a live
 * scrape (telemetry_export_qps.c): read (NULL when out of memory), then
 * printed with the copy of the model the scrape renders. */
#include <stdbool.h>
#include <stdio.h>
struct mp_tm;
struct qp_tables;
void export_label(FILE *f, const char *name, const char *v, bool first);
void export_family(FILE *f, const char *name, const char *type,
		   const char *helptext);
/* hostacct's rail counters, from their pins (telemetry_export_hostacct.c). */
void export_hostacct(FILE *f);
struct qp_tables *export_qp_tables_read(void);
void export_qp_tables(FILE *f, const struct mp_tm *tm,
		      const struct qp_tables *r);
void export_qp_tables_free(struct qp_tables *r);

#endif /* MPLANECTL_TELEMETRY_H */
