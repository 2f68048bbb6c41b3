/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The telemetry model: capture frames in (from a file or the live feed,
 * mp_capture.h and mp_feed.h), numbers out, no I/O.  It is what the views
 * 'telemetry report', 'hist', 'top' and 'export' show.
 *
 * Entities:
 *  - planes: events with hdr.plane != MPLANE_EVENT_NO_PLANE (mplane.ko,
 *    relayed by BPF), keyed by source, network namespace (hdr.flags, when
 *    the source names namespaces with CF_NETNS frames; else 0), mplane
 *    device and plane, named "<ns name>:<mp dev>/plane<N>" in a named
 *    namespace and "<mp dev>/plane<N>" in the recorder's own;
 *  - ports: PORT_SAMPLE, QUEUE_SAMPLE, ECN_MARK, PORT_STATE and CNP
 *    events without a plane, keyed by source and ifindex, named
 *    "<node>/<ifname>" ("l0/s1"), the node being the source's;
 *  - counters: COUNTER events, named by the capture's CF_COUNTER_NAME.
 *  Two entities that would share a name (the mp0 of two hosts) get the
 *  node of their source in front: "h1:mp0/plane0"; two devices of one
 *  source in unnamed namespaces get the namespace: "ns4026532001:mp0".
 *
 * Groups for the symmetry index: the planes of one mplane device (one
 * source, namespace and ifindex), the ports of one switch that play one
 * role, told by the letters their names start with ("p0l0/s*": a leaf's
 * uplinks; "p0l0/h*": its host ports), the rails of one host (its polled
 * netdev "<if>/tx_bytes" counters, mplane devices left out).
 *
 * Delivery gaps: for every cumulative byte or packet series (tx_bytes of
 * plane and port samples, polled netdev rx/tx bytes and packets), the
 * time from one increase of the series to the next.  The series is
 * active from its first increase to its last: the wait before the first
 * and after the last are not gaps, so a capture that starts or ends
 * idle adds none, but a stall in the middle, such as a failover, does.
 *
 * QPs: RATE_UPDATE events (DCQCN in mplane.ko, relayed by BPF) give each
 * QP of an mplane device its latest rate, keyed by source, namespace (as
 * for planes), device and qpn, and named "[<ns>:]<mp dev>/qp<N>" (the
 * device part as its planes have it).  The table holds at most
 * mp_tm_opts.qps_max QPs: a new QP in a full table pushes out the one
 * updated longest ago, and mp_tm.qps_evicted counts them.  A cut (cause
 * MPLANE_RATE_CUT) names the plane its CNP came in on: it counts on that
 * plane's entity too (rate_cuts), as the events saw them.
 *
 * Faults (FAULT events) are anomalies of no entity: the cause a test put
 * there, shown next to its effects; they do not move the first failure,
 * which is the first effect seen (a port or plane down, a failover).
 *
 * Events go through an mp_evq, so the model sees them in timestamp order
 * even when several rings interleave; mp_tm_finish() releases the rest.
 */
#ifndef MP_TM_H
#define MP_TM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_capture.h"
#include "mplane_events.h"

#include "mp_event.h"
#include "mp_hist.h"
#include "mp_hist_sparse.h"
#include "mp_index.h"

#define MP_TM_SYM_THRESHOLD	1.25		/* max/mean that flags a group */
#define MP_TM_ECN_STORM_PER_S	100000		/* CE marks a second ... */
#define MP_TM_ECN_STORM_WINDOW	10000000ULL	/* ... over 10 ms windows */
#define MP_TM_WINDOW_NS		1000000000ULL	/* the "now" bandwidth */
#define MP_TM_HOLD_NS		50000000ULL	/* reorder hold */
#define MP_TM_QPS_MAX		1024		/* QPs with a rate kept */
/*
 * What a capture can make the model keep, whatever it says: far above
 * any fabric's (a host's planes, a switch's ports, a poller's counters),
 * and below what would let a long-running exporter or a forged file take
 * the machine's memory.  What comes past a cap is counted, not kept.
 */
#define MP_TM_ENTS_MAX		(1U << 18)
#define MP_TM_NAMES_MAX		(1U << 18)	/* interface and counter names;
						 * namespaces: as many */
#define MP_TM_ANOMS_MAX		(1U << 16)	/* anomalies listed */
/*
 * Processes that mark steps, and ranks of collectives, each timed on its
 * own: every 'mplanectl mark step' through 'mark serve' is a process of
 * its own, and every collective run a job of its own, so that a
 * long-running exporter would otherwise keep one more of them a turn.
 * Past the cap the one marked least recently is let go (and counted).
 */
#define MP_TM_STEPPERS_MAX	1024

struct mp_tm_opts {
	double sym_threshold;		/* 0: MP_TM_SYM_THRESHOLD */
	uint64_t ecn_storm_per_s;	/* 0: MP_TM_ECN_STORM_PER_S */
	uint64_t window_ns;		/* 0: MP_TM_WINDOW_NS */
	uint64_t hold_ns;		/* 0: MP_TM_HOLD_NS */
	unsigned int qps_max;		/* 0: MP_TM_QPS_MAX */
};

enum mp_tm_kind {
	MP_TM_PLANE,
	MP_TM_PORT,
	MP_TM_COUNTER,
	__MP_TM_KIND_MAX,
};

/*
 * A cumulative series (bytes, packets, marks): @total counts every
 * increase since the first sample, so that a counter that resets (a
 * device re-created) adds no negative step.
 */
struct mp_tm_series {
	bool seen;
	bool gaps;			/* feeds the delivery-gap histogram */
	uint64_t first_ts, last_ts;
	uint64_t last;			/* the raw value last seen */
	uint64_t total;			/* increases since the first sample */
	uint64_t inc_ts;		/* the last increase; 0: none yet */
	/* "After" ends as long after the failure as the capture ran before
	 * it: the total when a sample first reached that time. */
	uint64_t after_end_ts, after_total;
	bool after_closed;
	uint64_t max_gap_ns;
	uint64_t split_ts, split_total;	/* at the first failure */
	uint64_t win_ts, win_total;	/* where the current window began */
	double win_rate;		/* per second over the last window */
};

struct mp_tm_entity {
	enum mp_tm_kind kind;
	unsigned int source;
	uint32_t ifindex;		/* the mplane device's, or the port's */
	uint16_t plane;			/* MPLANE_EVENT_NO_PLANE but planes */
	uint32_t netns;			/* planes: the namespace inode; 0 */
	uint32_t counter_id;		/* counters: hdr.flags */
	uint32_t counter_kind;		/* counters: enum mplane_counter_kind,
					 * once named */
	char name[96];
	char node[32];			/* the source's node ("l0"); planes
					 * of another namespace: its name
					 * ("mpf-h1") or "ns<inode>" */
	char dev[32];			/* planes: the mplane device; ports:
					 * the port; counters: "" */
	int group;			/* index in mp_tm.groups, or -1 */
	/* Planes and ports: tx_bytes; counters: their value. */
	struct mp_tm_series tx_bytes, tx_packets, ecn, cnp;
	struct mp_hist_sparse queue;	/* q_bytes of samples (mp_tm_queue) */
	struct mp_hist_sparse gaps;	/* tx_bytes' delivery gaps, ns */
	uint64_t q_last;
	uint64_t ecn_events, cnp_events;
	uint64_t rate_cuts;		/* planes: RATE_UPDATE cuts by CNPs
					 * received on it */
	int state;			/* -1 unknown; planes: enum
					 * mplane_plane_state; ports: 1 up */
	unsigned int state_changes;
	uint64_t anomalies;		/* of it, listed or not */
	uint64_t storm_ts, storm_count;	/* the current 10 ms ECN window */
	bool storming;
};

struct mp_tm_group {
	enum mp_tm_kind kind;
	char name[96];
};

enum mp_tm_anomaly_type {
	MP_TM_AN_FAILOVER,		/* a FAILOVER event */
	MP_TM_AN_PLANE_DOWN,		/* PLANE_STATE from up to not up */
	MP_TM_AN_PORT_DOWN,		/* PORT_STATE from up to down */
	MP_TM_AN_ECN_STORM,		/* ECN rate above the threshold */
	MP_TM_AN_FAULT,			/* a FAULT event: a cause, put there
					 * on purpose ('fabric fault') */
	__MP_TM_AN_MAX,
};

struct mp_tm_anomaly {
	uint64_t ts_ns;
	enum mp_tm_anomaly_type type;
	int entity;			/* index in mp_tm.ents; -1 for a fault */
	uint64_t value;			/* storm: marks in its window; fault:
					 * its action */
	struct mplane_event fault;	/* a fault's event, for its names
					 * (tools/lib/mp_fault.h) */
};

struct mp_tm_source {
	unsigned int id;		/* the frames' source */
	char label[128];
	bool has_stats;
	bool names_netns;		/* it named a namespace (CF_NETNS) */
	struct mplane_capture_stats stats;
	uint64_t events;
	uint64_t by_type[__MPLANE_EV_MAX];
};

/* A process of a source that marks its steps (STEP_MARK events). */
struct mp_tm_step_pid {
	unsigned int source;
	uint32_t pid;
	uint64_t last_ts;
	uint64_t steps;
	struct mp_hist_sparse hist;	/* its step times, ns */
};

/* A rank of a collective job (COLLECTIVE events: the job is hdr.ifindex,
 * the rank val[1]), whose iterations are steps too. */
struct mp_tm_step_rank {
	unsigned int source;		/* of its first mark */
	uint32_t job, rank;
	uint64_t last_ts;		/* of its latest mark */
	uint64_t iter;			/* of the iteration begun */
	uint64_t begin_ts;		/* its begin mark; 0: none open */
	uint64_t steps;
	struct mp_hist_sparse hist;	/* its iterations' times, ns */
};

/* A QP's latest rate, from its RATE_UPDATE events. */
struct mp_tm_qp {
	unsigned int source;
	uint32_t netns;			/* as planes' */
	uint32_t ifindex;		/* the mplane device's */
	uint32_t qpn;
	uint64_t rate_kbps, old_kbps;	/* of the latest update */
	uint64_t cause;			/* enum mplane_rate_cause of it */
	uint16_t cut_plane;		/* of the latest cut;
					 * MPLANE_EVENT_NO_PLANE: none */
	uint64_t updates, cuts;		/* since the model first saw it */
	uint64_t first_ts, last_ts, cut_ts;	/* cut_ts 0: no cut seen */
	char name[96];			/* "[ns:]mp0/qp17" */
	char node[32];			/* as its device's planes' */
	char dev[32];			/* the mplane device */
};

struct mp_tm_name;			/* interface and counter names */
struct mp_tm_netns;			/* namespace names (CF_NETNS) */

struct mp_tm {
	struct mp_tm_opts o;
	struct mp_evq evq;
	uint64_t newest_ts;		/* of every event pushed */
	uint64_t first_ts, last_ts;	/* of the events released */
	uint64_t events, undecodable;
	uint64_t fail_ts;		/* the first failure; 0: none */
	struct mp_tm_source *sources;	/* as they first came, by id */
	unsigned int nsources;
	struct mp_index source_index;
	struct mp_tm_entity *ents;
	unsigned int nents;
	struct mp_index ent_index;
	uint64_t ents_refused;		/* new entities past MP_TM_ENTS_MAX */
	struct mp_tm_group *groups;
	unsigned int ngroups;
	struct mp_index group_index;
	/* The first MP_TM_ANOMS_MAX anomalies, and how many of each type
	 * there were in all. */
	struct mp_tm_anomaly *anoms;
	unsigned int nanoms;
	uint64_t anom_count[__MP_TM_AN_MAX];
	struct mp_tm_step_pid *pids;
	unsigned int npids;
	struct mp_tm_step_rank *ranks;
	unsigned int nranks;
	uint64_t steppers_evicted;	/* pids and ranks past the cap */
	/* One of each (source, kind, id, netns), the newest announcement
	 * of it; at most MP_TM_NAMES_MAX, and as many namespaces. */
	struct mp_tm_name *names;
	unsigned int nnames;
	struct mp_index name_index;
	struct mp_tm_netns *netns;
	unsigned int nnetns;
	struct mp_index netns_index;
	uint64_t names_refused;		/* names and namespaces past the cap */
	struct mp_tm_qp *qps;		/* at most o.qps_max */
	unsigned int nqps;
	struct mp_index qp_index;
	uint64_t qps_evicted;		/* QPs a full table pushed out */
	struct mp_hist queue;		/* every entity's q_bytes */
	struct mp_hist *scratch;	/* mp_tm_queue()'s */
	struct mp_hist gaps;		/* delivery gaps, ns */
	/* Step times, ns: from one STEP_MARK of a pid to its next, and from
	 * a collective iteration's begin to its end (the same iteration of
	 * the same rank of the same job): its completion time. */
	struct mp_hist steps;
	bool dirty;			/* names and groups to redo */
};

/* @opts may be NULL for the defaults.  0 or -ENOMEM. */
int mp_tm_init(struct mp_tm *tm, const struct mp_tm_opts *opts);
void mp_tm_free(struct mp_tm *tm);

/*
 * A copy of @src that shares no memory with it, but for the events it
 * holds back, which stay with @src: a view reads it while @src goes on
 * taking frames (the exporter renders a scrape so, without the feed
 * waiting).  0, or -ENOMEM with nothing kept; mp_tm_free() it.
 */
int mp_tm_copy(struct mp_tm *dst, const struct mp_tm *src);

/* One capture frame (an mp_frame_cb's arguments): 0 or -ENOMEM; frames
 * the model does not know and records it cannot decode are skipped. */
int mp_tm_frame(struct mp_tm *tm, unsigned int kind, unsigned int source,
		const void *payload, size_t len);

/*
 * Release the held events older than @now_ns less the hold time.  Events
 * are otherwise released as newer ones come, so a live consumer calls
 * this with CLOCK_MONOTONIC now (the events' clock): a quiet feed's last
 * events would stay held.
 */
void mp_tm_release(struct mp_tm *tm, uint64_t now_ns);

/* Release every held event, then mp_tm_refresh(): at the end of a
 * capture. */
void mp_tm_finish(struct mp_tm *tm);

/* Name the entities and group them anew if names or entities came in
 * since the last time: before reading a live model. */
void mp_tm_refresh(struct mp_tm *tm);

/* The queue depths @e was sampled at, expanded into the model's scratch
 * histogram (valid until the next call), or NULL when it has none. */
const struct mp_hist *mp_tm_queue(const struct mp_tm *tm,
				  const struct mp_tm_entity *e);

/* The same for any of the model's sparse histograms (an entity's gaps,
 * a process's or a rank's step times). */
const struct mp_hist *mp_tm_expand(const struct mp_tm *tm,
				   const struct mp_hist_sparse *h);

/* The source of id @id (a frame's), or NULL when none came. */
const struct mp_tm_source *mp_tm_source(const struct mp_tm *tm,
					unsigned int id);

/* The entity an event of @source belongs to, or -1 (none, or not seen). */
int mp_tm_lookup(const struct mp_tm *tm, unsigned int source,
		 const struct mplane_event_hdr *h);

/* Node of a source: "l0" of "fabric/f/l0/...", "ns4026531840" of the
 * kmod relay "dev/4026531840/...", else the label's last component. */
const char *mp_tm_node(const struct mp_tm *tm, unsigned int source,
		       char *buf, size_t size);

/* Bandwidth in bits per second, or -1 when it cannot be told (one
 * sample; no failure for BEFORE and AFTER).  BEFORE runs from the series'
 * first sample to the first failure, AFTER from the failure for as long
 * as the capture ran before it (or to the series' last sample): two
 * windows of one length, so that idle time at the capture's two ends
 * weighs alike on both. */
enum mp_tm_bw {
	MP_TM_BW_MEAN,			/* first to last sample */
	MP_TM_BW_WINDOW,		/* the last complete window */
	MP_TM_BW_BEFORE,		/* up to the first failure */
	MP_TM_BW_AFTER,			/* from the first failure */
	__MP_TM_BW_MAX,
};

double mp_tm_rate(const struct mp_tm_series *s, enum mp_tm_bw which);
double mp_tm_bw(const struct mp_tm_entity *e, enum mp_tm_bw which);

/*
 * The symmetry index of group @g over the members' bandwidth: max/mean
 * and the coefficient of variation (population standard deviation over
 * mean).  A member is slow when the mean is more than the threshold
 * times its bandwidth; the group is flagged when max/mean is above the
 * threshold or any member is slow.
 */
struct mp_tm_symmetry {
	unsigned int members;
	double mean_bps, max_bps, min_bps;
	double max_mean, cv;
	bool flagged;
	unsigned int slow;		/* how many members are slow */
};

void mp_tm_symmetry(const struct mp_tm *tm, unsigned int g,
		    enum mp_tm_bw which, struct mp_tm_symmetry *sym);
bool mp_tm_slow(const struct mp_tm *tm, const struct mp_tm_symmetry *sym,
		const struct mp_tm_entity *e, enum mp_tm_bw which);

/*
 * A polled ethtool -S counter of a plane of an mplane device,
 * "mp0/ethtool/plane1_cnp_sent" (kmod/stats.c), of one of @stats
 * (NULL-terminated; NULL: any): true, with the device, the plane, the
 * stat's name and the node its planes' labels have (the node of a plane
 * of that device in the recorder's namespace if one is known, else the
 * poller's).  False for any other entity.
 */
bool mp_tm_plane_stat(const struct mp_tm *tm, const struct mp_tm_entity *e,
		      const char *const *stats, char *dev, size_t dev_size,
		      unsigned int *plane, const char **stat, char *node,
		      size_t node_size);

/* The QP of (@source, @netns as hdr.flags, @ifindex, @qpn), or NULL. */
const struct mp_tm_qp *mp_tm_qp_find(const struct mp_tm *tm,
				     unsigned int source, uint32_t netns,
				     uint32_t ifindex, uint32_t qpn);

const char *mp_tm_kind_name(enum mp_tm_kind kind);
const char *mp_tm_anomaly_name(enum mp_tm_anomaly_type type);
/* "up", "down", ...; "-" when not known. */
const char *mp_tm_state_name(const struct mp_tm_entity *e);

#endif /* MP_TM_H */
