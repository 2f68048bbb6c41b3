/* SPDX-License-Identifier: GPL-2.0 */
/* mplanectl: one entry point per command group, one file per group. */
#ifndef MPLANECTL_H
#define MPLANECTL_H

int bpf_main(int argc, char **argv);

/* The subcommands of "bpf", one file each. */
int bpf_attach_main(int argc, char **argv);
int bpf_status_main(int argc, char **argv);
int bpf_detach_main(int argc, char **argv);

int traffic_main(int argc, char **argv);
int link_main(int argc, char **argv);
int fabric_main(int argc, char **argv);
int events_main(int argc, char **argv);
int mark_main(int argc, char **argv);
int collective_main(int argc, char **argv);
int collective_run_main(int argc, char **argv);
int accept_main(int argc, char **argv);

/*
 * Events that user space puts on the timeline (tools/include/
 * mp_user_event.h): the pinned program that emits them, loaded on first
 * use (an fd, or -errno; root only), and one event through it: 0, or
 * -errno (-EINVAL for a type the program refuses).
 */
struct mp_user_event_args;
int mark_user_event_open(void);
int mark_user_event(int prog_fd, const struct mp_user_event_args *args);

/* The subcommands of "traffic", one file each. */
int traffic_send_main(int argc, char **argv);
int traffic_recv_main(int argc, char **argv);

#endif /* MPLANECTL_H */
