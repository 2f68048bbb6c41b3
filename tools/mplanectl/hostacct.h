/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hostacct programs (bpf/hostacct.bpf.c) as 'mplanectl bpf' sees them.
 * Unlike pktcount's, their maps are pinned (mp_pin.h), so that counters
 * outlive a re-attach or a move of ingress between tc and XDP, and event
 * readers find the ring without knowing which program fills it.
 */
#ifndef MPLANECTL_HOSTACCT_H
#define MPLANECTL_HOSTACCT_H

#include "bpf_prog.h"
#include "mplane_maps.h"

/* Its own tc slot ("MH"), next to pktcount's, so both can run at once. */
#define HOSTACCT_TC_HANDLE	0x4d48
#define HOSTACCT_TC_PRIO	0x4d48

/* Names in bpf/hostacct.bpf.c, as the kernel reports them. */
#define HOSTACCT_PROG_TC_IN	"mp_hacct_tc_in"
#define HOSTACCT_PROG_TC_EG	"mp_hacct_tc_eg"
#define HOSTACCT_PROG_XDP	"mp_hacct_xdp"

/* Pinned map files, in the device's pin directory. */
#define HOSTACCT_PIN_RAIL	"mp_rail_acct"
#define HOSTACCT_PIN_QP		"mp_qp_acct"
#define HOSTACCT_PIN_EVENTS	"mp_events"
#define HOSTACCT_PIN_EV_STATS	"mp_event_stats"
#define HOSTACCT_PIN_LIMITS	"mp_hacct_limits"

/* The counters of struct mplane_rail_acct, by name, in order. */
#define HOSTACCT_RAIL_FIELDS	(sizeof(struct mplane_rail_acct) / sizeof(__u64))
extern const char *const hostacct_rail_names[];

/* 'bpf status --prog hostacct' (hostacct_status.c). */
int hostacct_status(struct mpbpf_target *t);

#endif /* MPLANECTL_HOSTACCT_H */
