/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of 'mplanectl fabric fault' share (Documentation/
 * fabric.md, "Faults"): a target resolved to the ports it covers, the
 * steps of a fault in time, and the context that applies them inside the
 * nodes' namespaces and puts each on the telemetry timeline.
 */
#ifndef MPLANECTL_FABRIC_FAULT_H
#define MPLANECTL_FABRIC_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"

#include "mp_fabric.h"
#include "mp_rtnl.h"

struct mp_nlbatch;

/* One end of a link: indexes into mp_fabric.nodes and its ports. */
struct fault_port {
	unsigned int node, port;
};

struct fault_target {
	enum mplane_fault_target kind;
	char name[48];			/* "p0l0:s1", "p0s1", "plane 1", "fabric" */
	int node, port;			/* as named; -1 for none */
	int plane;			/* -1: none (the fabric, a host port) */
	struct fault_port *ports;	/* every port it covers */
	unsigned int nports;
};

/*
 * @spec (one word, or "plane" and a number) into @t: MP_EXIT_OK, or
 * MP_EXIT_USAGE (reported) for a target @f does not have.  Free with
 * fault_target_free().
 */
int fault_target_parse(const struct mp_fabric *f, const char *kind,
		       const char *spec, struct fault_target *t);
/* Every port of @f: what 'clear' without a target covers. */
int fault_target_fabric(const struct mp_fabric *f, struct fault_target *t);
void fault_target_free(struct fault_target *t);

/* Loss: how it is made (--via). */
enum fault_loss_via {
	FAULT_LOSS_AUTO,		/* netem if the kernel has it, else bpf */
	FAULT_LOSS_NETEM,
	FAULT_LOSS_BPF,
};

struct fault_step {
	enum mplane_fault_action action;
	uint64_t value;			/* bit/s (degrade), ppm (loss), else 0 */
	uint64_t at_ns;			/* CLOCK_MONOTONIC */
	unsigned int step;		/* FAULT's val[2] */
	/* Filled in when it is applied. */
	uint64_t done_ns;
	enum mplane_fault_via via;
	int err;
};

/* A node's namespace, entered on demand; a socket opened in it once. */
struct fault_ns {
	int fd;				/* -1: not open yet */
	bool rtnl_open;
	struct mp_rtnl rtnl;
};

struct fault_ctx {
	struct mp_fabric f;
	int home_fd;			/* the namespace we run in */
	struct fault_ns *ns;		/* per node */
	int ev_fd;			/* mp_user_event, or -errno */
	bool ev_tried, ev_warned;
	enum fault_loss_via loss_via;
	int tc_choice;			/* enum mp_tc_choice of --tc-hook;
					 * -1: MPLANE_TC_HOOK's */
	bool reroute;			/* --reroute: fault_reroute() after
					 * each step */
	const unsigned char *uplinks;	/* what fault_reroute() found */
};

/* The fabric @prefix and what applying needs: MP_EXIT_OK or _ERR. */
int fault_ctx_open(struct fault_ctx *c, const char *prefix);
void fault_ctx_close(struct fault_ctx *c);
/* After a fork that closed every descriptor: open what is needed anew. */
void fault_ctx_forget_fds(struct fault_ctx *c);

/* Move this thread into the namespace of node @node, and back. */
int fault_enter(struct fault_ctx *c, unsigned int node);
int fault_leave(struct fault_ctx *c);
/* The rtnetlink socket inside node @node's namespace, or NULL. */
struct mp_rtnl *fault_rtnl(struct fault_ctx *c, unsigned int node);

/* What a fault queues on node @n for ports @ports of it, in @nb. */
typedef void (*fault_fill_fn)(struct mp_nlbatch *nb, const struct fault_ctx *c,
			      const struct mp_fabric_node *n,
			      const unsigned int *ports, unsigned int np,
			      const struct fault_step *s);

/* Queue @fill's messages for node @node and send them: 0, or -errno
 * (reported with the node's name). */
int fault_batch(struct fault_ctx *c, unsigned int node, fault_fill_fn fill,
		const unsigned int *ports, unsigned int np,
		const struct fault_step *s);

/* --reroute: every leaf of the planes @t touched routes around the links
 * that are down now (fabric_fault_reroute.c): 0, or -errno (reported). */
int fault_reroute(struct fault_ctx *c, const struct fault_target *t);

/* Put @s on the timeline: one FAULT event for target @t. */
void fault_emit(struct fault_ctx *c, const struct fault_target *t,
		const struct fault_step *s);

/* How a loss on @t is made: netem or bpf, as --via and the kernel
 * allow; *@err is -EOPNOTSUPP (reported) for netem on a kernel without. */
enum mplane_fault_via fault_loss_via(struct fault_ctx *c,
				     const struct fault_target *t, int *err);

/* Apply @s to every port of @t: 0, or the first negative errno
 * (reported).  Sets s->via, s->done_ns and s->err. */
int fault_apply(struct fault_ctx *c, const struct fault_target *t,
		struct fault_step *s);

/* The port itself, in the state file. */
static inline const struct mp_fabric_port *
fault_port_of(const struct fault_ctx *c, const struct fault_port *p)
{
	return &c->f.nodes[p->node].ports[p->port];
}

/*
 * Loss, one port at a time; the caller has entered the port's node.
 * BPF (fabric_fault_loss.c): set the drop share (0 detaches the program)
 * on the hook @tc_choice means (-1: MPLANE_TC_HOOK's; a dropper on the
 * other hook moves, keeping its counts) and read its counts; netem (fabric_fault_netem.c): the same through a
 * netem under the port's tbf, -ENOENT when the kernel has no netem.
 */
int fault_loss_bpf_set(const struct mp_fabric_port *p, uint32_t ppm,
		       int tc_choice);
struct fault_loss_counts {
	bool on;			/* the dropper (or netem) is there */
	const char *tc_hook;		/* the dropper's: "tcx", "cls_bpf" */
	uint32_t ppm;
	uint64_t passed, dropped;
};
int fault_loss_bpf_read(const struct mp_fabric_port *p,
			struct fault_loss_counts *lc);
/* 0 when the kernel has netem (tried on the namespace of @r). */
int fault_netem_probe(struct mp_rtnl *r);
int fault_loss_netem_set(struct mp_rtnl *r, const struct mp_fabric_port *p,
			 uint32_t ppm);
int fault_loss_netem_read(struct mp_rtnl *r, const struct mp_fabric_port *p,
			  struct fault_loss_counts *lc, uint64_t *rate_bps);

/* ar's model of port @p of node @n at @rate_bps, where ar runs on it
 * (fabric_fault_ar.c): 0 or -errno. */
int fault_ar_rate(const struct mp_fabric *f, const struct mp_fabric_node *n,
		  const struct mp_fabric_port *p, uint64_t rate_bps);

/*
 * Background schedules (fabric_fault_sched.c): each runs in a process of
 * its own whose pid file, PREFIX.fault.PID.pid, 'fabric down' and
 * 'fault clear' find.
 */
int fault_sched_start(struct fault_ctx *c, const struct fault_target *t,
		      struct fault_step *steps, unsigned int n, pid_t *pid);
/* Run @steps in this process, each at its time; stops early on SIGTERM
 * or SIGINT.  0 or the first step's error. */
int fault_sched_run(struct fault_ctx *c, const struct fault_target *t,
		    struct fault_step *steps, unsigned int n,
		    void (*done)(const struct fault_ctx *c,
				 const struct fault_target *t,
				 const struct fault_step *s));
/* Stop the schedules of fabric @prefix on target @name (NULL: all), and
 * wait until they are gone: how many. */
unsigned int fault_sched_stop(const char *prefix, const char *name);

struct fault_sched_info {
	pid_t pid;
	char what[96];			/* "p0l0:s1 flap" */
};
/* The live schedules of @prefix, at most @max: how many. */
unsigned int fault_sched_list(const char *prefix, struct fault_sched_info *s,
			      unsigned int max);

/* mplanectl fabric fault show (fabric_fault_show.c). */
int fault_show(struct fault_ctx *c);

#endif /* MPLANECTL_FABRIC_FAULT_H */
