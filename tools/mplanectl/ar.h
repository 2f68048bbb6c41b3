/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch side of a fabric: bpf/ar.bpf.c on every port of every leaf
 * and spine.  One object per switch, loaded in the switch's network
 * namespace, its maps pinned under MP_FABRIC_PIN_DIR/PREFIX/NODE/ so that
 * status, the port watcher and the event reader find them.
 */
#ifndef MPLANECTL_AR_H
#define MPLANECTL_AR_H

#include <stdbool.h>
#include <linux/mplane.h>
#include "mplane_maps.h"
#include "mp_aqm_pi.h"

#include "mp_fabric.h"
#include "mp_tc.h"

/*
 * A fixed tc slot on each hook of a switch port.  Its priority is after
 * pktcount's, so an observer there still sees packets that ar redirects.
 */
#define AR_TC_HANDLE		0x4d41
#define AR_TC_PRIO		0x4d60

#define AR_PROG_INGRESS		"mp_ar_ingress"
#define AR_PROG_EGRESS		"mp_ar_egress"
#define AR_PROG_PORT_STATE	"mp_ar_port_state"
#define AR_PROG_SAMPLER		"mp_ar_sampler"
/* The program's settings (its .rodata), pinned for status to read. */
#define AR_PIN_SETTINGS		"ar_settings"

/*
 * AR_PROG_SAMPLER is a tc program run with BPF_PROG_TEST_RUN, never
 * attached; its packet starts with struct sampler_args of bpf/ar.bpf.c,
 * padded to the shortest Ethernet frame test runs accept.
 */
struct ar_sampler_args {
	__u64 interval_ns;		/* 0 stops the sampler */
	__u8 pad[56];
};

/* The shortest interval the program accepts (SAMPLER_MIN_NS there). */
#define AR_SAMPLER_MIN_NS	(10 * 1000ULL)

/* What attach sets in the program's rodata. */
struct ar_settings {
	enum mplane_ar_policy policy;
	unsigned long long flowlet_gap_ns;
	unsigned int kmin_bytes;
	unsigned int kmax_bytes;
	unsigned int pmax;		/* of 65536 */
	enum mplane_aqm aqm;		/* RED (kmin..kmax) or PI */
	unsigned long long pi_target_ns;
	unsigned long long pi_period_ns;
	unsigned int pi_alpha_mhz;	/* integral gain, mHz */
	unsigned int pi_beta_mhz;	/* proportional gain, mHz */
	unsigned int sample_every;	/* packets; 0: off */
	unsigned long long sample_ns;	/* 0: off */
	unsigned int ring_bytes;	/* events ring size; 0: the default */
	enum mp_tc_choice tc_choice;	/* the ports' tc hook */
};

void ar_settings_default(struct ar_settings *s);
const char *ar_policy_name(enum mplane_ar_policy p);
int ar_policy_parse(const char *word);

/* The routes of the current network namespace, one call of @cb per route
 * with resolved gateways. */
struct ar_route_stats {
	unsigned int routes;
	unsigned int unresolved;	/* a gateway without a MAC */
	unsigned int own;		/* the switch's own addresses, and
					 * broadcast ones: the kernel's */
};

typedef int (*ar_route_cb)(int family, const unsigned char *dst,
			   unsigned int plen, const struct mplane_nh_group *g,
			   void *data);
int ar_read_routes(struct ar_route_stats *st, ar_route_cb cb, void *data);

/* Bring the LPM maps @lpm4_fd and @lpm6_fd in line with the routes of the
 * current network namespace, without a moment where a route is missing. */
int ar_sync_routes(int lpm4_fd, int lpm6_fd, struct ar_route_stats *rs);

/* "/sys/fs/bpf/mplane/fabric/PREFIX/NODE[/NAME]" into @buf. */
int ar_pin_path(char *buf, size_t size, const char *prefix,
		const char *node, const char *name);

/*
 * Load, pin, fill and attach on every port of switch @n; the caller is in
 * the switch's namespace.  Counters carry over when it is attached
 * already.  0 or a negative errno, with the reason printed.
 */
int ar_switch_attach(const struct mp_fabric *f,
		     const struct mp_fabric_node *n,
		     const struct ar_settings *s, struct ar_route_stats *rs);

/* Take ar's filters off @n's ports (no other filter) and its pins. */
int ar_switch_detach(const struct mp_fabric *f,
		     const struct mp_fabric_node *n);

/* Whether ar is attached to switch @n (its pin directory exists). */
bool ar_switch_attached(const struct mp_fabric *f,
			const struct mp_fabric_node *n);

/* The settings switch @n's program was loaded with (ring_bytes and
 * tc_choice left 0): 0, -ENOENT when it is not attached, or -EPROTO when
 * its pin is another mplanectl's layout. */
int ar_switch_settings(const struct mp_fabric *f,
		       const struct mp_fabric_node *n, struct ar_settings *s);

/* One port as status reports it. */
struct ar_port_status {
	struct mplane_port_cfg cfg;
	struct mplane_vq vq;
	struct mp_pi_state pi;		/* --aqm pi's, zeroes under red */
	struct mplane_port_stats stats;	/* summed over CPUs */
	enum mp_tc_hook hook[2];	/* ingress, egress: where ar runs */
};

int ar_port_status(const struct mp_fabric *f, const struct mp_fabric_node *n,
		   int ifindex, struct ar_port_status *ps);

/* Run the port watcher for fabric @f in the foreground (see ar_watch.c). */
int ar_watch(const struct mp_fabric *f, const char *pidfile);

int bpf_fabric_attach(int argc, char **argv);
int bpf_fabric_detach(int argc, char **argv);
int bpf_fabric_status(int argc, char **argv);
int bpf_fabric_watch(int argc, char **argv);

#endif /* MPLANECTL_AR_H */
