// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry export: the model (mp_tm) as Prometheus metrics,
 * text exposition format 0.0.4, served by libmicrohttpd on /metrics.
 *
 * libmicrohttpd runs its own polling thread and renders a scrape there;
 * the feed runs in the main thread (and its pollers in one of their own)
 * and feeds the model.  A scrape holds the model's mutex only to copy
 * it, and renders the copy: the feed never waits for a scrape's
 * formatting, so the rings do not fill while a big model is rendered.  The listening
 * socket is made here rather than by libmicrohttpd, so that a port that
 * is taken or an address that is not this host's is reported as such.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_feed.h"
#include "mp_http.h"
#include "mp_names.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_run.h"
#include "mplanectl.h"
#include "telemetry.h"
#include "telemetry_views.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_maps.h"

#define DEFAULT_HOST	"127.0.0.1"
#define DEFAULT_PORT	9464
#define DEFAULT_PORT_STR	"9464"
/*
 * What one scraper, or many, may hold: Prometheus keeps one connection a
 * target, so 32 leave room for people and curl, 8 from one address keep
 * one client from taking them all, and 10 s idle end a stalled one.
 */
#define CONN_MAX		32U
#define CONN_MAX_STR		"32"
#define CONN_PER_IP		8U
#define CONN_PER_IP_STR		"8"
#define CONN_TIMEOUT_S		10U
#define CONN_TIMEOUT_STR	"10"
#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct exporter {
	const struct mp_http *http;
	pthread_mutex_t lock;
	struct mp_tm tm;
	bool from_file;		/* a capture's final state, not live */
};

struct export_args {
	const char *listen, *from, *fabric;
	bool public, ethtool, rdma;
	uint64_t poll_hz;
	double threshold;
};

#define AT(member)	MP_OPT_AT(struct export_args, member)
static const struct mp_opt export_opts[] = {
	{ "listen", 'l', MP_OPT_STRING, AT(listen), "ADDR[:PORT]",
	  "where to serve", .def = DEFAULT_HOST ":" DEFAULT_PORT_STR },
	{ "public", 'P', MP_OPT_FLAG, AT(public), NULL,
	  .help = "allow a --listen address other hosts can reach" },
	{ "from", 'F', MP_OPT_STRING, AT(from), "FILE",
	  .help = "serve this capture's final state" },
	{ "fabric", 'f', MP_OPT_STRING, AT(fabric), "NAME",
	  .help = "live: only this fabric's switch rings" },
	{ "poll-hz", 'p', MP_OPT_UINT, AT(poll_hz), "N",
	  "live: poll netdev counters N times a second, 0 for none",
	  .max = MP_FEED_POLL_HZ_MAX, .def = "0" },
	{ "ethtool", 'e', MP_OPT_FLAG, AT(ethtool), NULL,
	  .help = "live: poll ethtool -S too, for mplane devices' per-plane CNPs sent and rate cuts (at --poll-hz, 10 if not given)" },
	{ "rdma", 0, MP_OPT_FLAG, AT(rdma), NULL,
	  .help = "live: poll every /sys/class/infiniband/*/ports/*/hw_counters file too (rxe and mlx5 names as is; at --poll-hz, 10 if not given)" },
	{ "threshold", 't', MP_OPT_CUSTOM, AT(threshold), "X",
	  "flag a symmetry group whose max/mean is above X",
	  .parse = tv_opt_threshold, .def = "1.25" },
	{}
};
#undef AT

static const struct mp_opt_cmd export_cmd = {
	.usage = "telemetry export [OPTIONS]",
	.about =
"Serve the fabric's telemetry as Prometheus metrics (text format 0.0.4)\n"
"on http://ADDR:PORT/metrics, so that an existing Prometheus scrapes many\n"
"hosts.  The live feed (every ring pinned under " MPLANE_BPF_PIN_ROOT ",\n"
"and the counter pollers with --poll-hz) goes through the same model as\n"
"'telemetry report'; with --from, a capture's final state is served.\n"
"It may start before any ring is pinned: the pin root is looked at\n"
"every second, and rings pinned later are read from then on.  Each ring\n"
"it reads is its own, in one of the object's 4 reader slots, so that\n"
"'telemetry record' or 'top' beside it still gets every event.\n"
"\n"
"Metrics, with one label scheme: a plane is {node,dev,plane}, a switch\n"
"port {node,port}, a polled counter {node,dev,stat} (and port, of an RDMA\n"
"device), a QP {node,dev,qpn} (and peer), a symmetry group\n"
"{kind,node,dev|port}, events {node,source,type}; no label value has a\n"
"space.  Only what tells of the exporter itself has no node: build info,\n"
"anomalies, the model's refusals and its QP table's size.  Counters are raw,\n"
"for rate(): bytes per plane (mplane_plane_tx_bytes_total) and per port\n"
"(mplane_port_tx_bytes_total), ECN CE marks (mplane_ecn_ce_total), CNPs\n"
"(mplane_cnp_total), events per source and type and the producers'\n"
"drops.  Gauges: queue depth, one series per plane state\n"
"(mplane_plane_state{...,state}: 1 for the state it is in), port up, the\n"
"symmetry index per group, and mplane_build_info{version,kernel}.\n"
"Histograms (_bucket/_sum/_count), all labelled: queue depth\n"
"(mplane_queue_bytes) and delivery gaps (mplane_delivery_gap_seconds) per\n"
"plane, port and polled counter, step time (mplane_step_seconds) per\n"
"process {node,pid} and per collective rank {node,collective,rank}.\n"
"The pollers' counters as read, per {node,dev,stat}, node this host's\n"
"name (a capture's, with --from): link statistics\n"
"(mplane_netdev_stat_total, --poll-hz), ethtool -S (mplane_ethtool_stat,\n"
"--ethtool) and RDMA hw_counters (mplane_rdma_stat_total{node,dev,port,stat},\n"
"--rdma).  Live, hostacct's rail counters, read from its pins at each\n"
"scrape, per {node,dev,dir}\n"
"(mplane_hostacct_packets_total, _roce_ce_total, _cnp_total...).\n"
"Congestion control: per plane, CNPs\n"
"received (mplane_plane_cnp_received_total) and the rate cuts rate_update\n"
"events told (mplane_plane_rate_cut_events_total), and with --ethtool\n"
"mp0's own counts of CNPs sent and cuts (mplane_plane_cnp_sent_total,\n"
"mplane_plane_rate_cuts_total); per QP, its latest rate in bytes a second\n"
"(mplane_qp_rate_bytes_per_second), cuts, updates and the last cause, for\n"
"the 1024 QPs updated last (mplane_qps_evicted_total counts those let\n"
"go).  Live, each scrape also reads every mplane device's QP table, in\n"
"this namespace and in each one under /run/netns (node: its name), for\n"
"the counts no event carries: per QP {node,dev,peer,qpn}, CNPs received\n"
"(mplane_qp_cnp_received_total) and mp0's cuts\n"
"(mplane_qp_device_rate_cuts_total) while DCQCN limits it, and CNPs sent\n"
"for CE on it (mplane_qp_cnp_sent_total).  A sender's series end when its\n"
"QP is back at the line rate, as mp0 lists it no longer.\n"
"\n"
"Only this host can scrape by default (127.0.0.1).  An address that is\n"
"not a loopback one, 0.0.0.0:9464 or [::]:9464 (every interface), also\n"
"needs --public: the metrics name this host's devices, peers and QPs to\n"
"whoever reaches the port, and the exporter says so on stderr.  At most\n"
CONN_MAX_STR " connections are served at once, " CONN_PER_IP_STR " from one address, and a\n"
"connection idle for " CONN_TIMEOUT_STR " s is closed.\n",
	.opts = export_opts,
	.footer =
"Scraping it with Prometheus: add to prometheus.yml\n"
"  scrape_configs:\n"
"    - job_name: mplane\n"
"      scrape_interval: 5s\n"
"      static_configs:\n"
"        - targets: ['host1:9464', 'host2:9464']\n"
"then, for example, rate(mplane_plane_tx_bytes_total[1m]) * 8 is each\n"
"plane's bit rate and histogram_quantile(0.99, sum by (le)\n"
"(rate(mplane_step_seconds_bucket[5m]))) the p99 step time of them all.\n"
"\n"
"Examples:\n"
"  mplanectl telemetry export\n"
"  mplanectl telemetry export --listen 0.0.0.0:9464 --public --poll-hz 1000\n"
"  mplanectl telemetry export --poll-hz 10 --ethtool --rdma\n"
"  mplanectl telemetry export --from /tmp/run.mpcp --listen 127.0.0.1:9999\n"
"  curl -s http://127.0.0.1:9464/metrics\n",
};

/* Exposition */

/*
 * A label value: backslash and double quote escaped, and white space
 * (a driver's ethtool name could hold some) written as '_', so that no
 * value has a space in it.
 */
void export_label(FILE *f, const char *name, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (isspace((unsigned char)*v))
			fputc('_', f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

/*
 * This host's name, the node of the pollers' counters (the links they
 * read are the host's): uname's, or with --from the capture's.  Set
 * before the server starts, read by its thread only.
 */
static char host_node[65];

/* @host: a capture's, of at most @len bytes; NULL for uname's. */
static void set_host_node(const char *host, size_t len)
{
	struct utsname u;

	if (!host) {
		host = uname(&u) ? "" : u.nodename;
		len = strlen(host);
	}
	len = strnlen(host, len);
	if (!len) {
		host = "unknown";
		len = strlen(host);
	}
	snprintf(host_node, sizeof(host_node), "%.*s", (int)len, host);
}

/* The node of @source: the pollers' is this host, the others' the
 * model's (a fabric's node, "kmod", "marks"...), as their entities have. */
static const char *source_node(const struct mp_tm *tm, unsigned int source,
			       char *buf, size_t size)
{
	const struct mp_tm_source *s = mp_tm_source(tm, source);

	if (s && !strcmp(s->label, MP_FEED_POLL_SOURCE))
		return host_node;
	return mp_tm_node(tm, source, buf, size);
}

/*
 * A polled counter's labels, out of the poller's name of it:
 * node,dev[,port],stat.  "eth0/rx_bytes" is a link's statistic,
 * "eth0/ethtool/rx_queue_0_packets" its ethtool -S and "rxe0/1/rcvd_pkts"
 * an RDMA port's hw_counter.
 */
static void counter_label_list(FILE *f, const struct mp_tm_entity *e)
{
	char dev[96], port[16] = "";
	const char *stat;
	int n = 0;

	if (e->counter_kind == MPLANE_COUNTER_RDMA)
		sscanf(e->name, "%95[^/]/%15[^/]/%n", dev, port, &n);
	else if (e->counter_kind == MPLANE_COUNTER_ETHTOOL)
		sscanf(e->name, "%95[^/]/ethtool/%n", dev, &n);
	else
		sscanf(e->name, "%95[^/]/%n", dev, &n);
	if (!n)
		snprintf(dev, sizeof(dev), "-");
	stat = e->name + n;
	/* The pollers read this host's links: its name, not the source's. */
	export_label(f, "node", strcmp(e->node, MP_FEED_POLL_SOURCE) ? e->node :
		     host_node, true);
	export_label(f, "dev", dev, false);
	if (port[0])
		export_label(f, "port", port, false);
	export_label(f, "stat", *stat ? stat : e->name, false);
}

void export_family(FILE *f, const char *name, const char *type,
		   const char *helptext)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, helptext, name, type);
}

/*
 * The labels that name @e, one scheme for every family: {node,dev,plane}
 * for a plane, {node,port} for a switch port, {node,dev[,port],stat} for
 * a polled counter; and @name="@value" when @name is not NULL.
 */
static void entity_label_list(FILE *f, const struct mp_tm_entity *e)
{
	char plane[8];

	switch (e->kind) {
	case MP_TM_PLANE:
		snprintf(plane, sizeof(plane), "%u", e->plane);
		export_label(f, "node", e->node, true);
		export_label(f, "dev", e->dev, false);
		export_label(f, "plane", plane, false);
		break;
	case MP_TM_PORT:
		export_label(f, "node", e->node, true);
		export_label(f, "port", e->dev, false);
		break;
	default:
		counter_label_list(f, e);
		break;
	}
}

static void entity_labels_and(FILE *f, const struct mp_tm_entity *e,
			      const char *name, const char *value)
{
	fputc('{', f);
	entity_label_list(f, e);
	if (name)
		export_label(f, name, value, false);
	fputc('}', f);
}

static void entity_labels(FILE *f, const struct mp_tm_entity *e)
{
	entity_labels_and(f, e, NULL, NULL);
}

static void tx_bytes(FILE *f, const struct mp_tm *tm, enum mp_tm_kind kind)
{
	const struct mp_tm_entity *e;
	unsigned int i;

	if (kind == MP_TM_PLANE)
		export_family(f, "mplane_plane_tx_bytes_total", "counter",
		       "Bytes sent on a plane of an mplane device (mplane.ko's sampler).");
	else
		export_family(f, "mplane_port_tx_bytes_total", "counter",
		       "Bytes sent by a switch port (the switch sampler).");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind != kind || !e->tx_bytes.seen)
			continue;
		fprintf(f, kind == MP_TM_PLANE ? "mplane_plane_tx_bytes_total" :
			"mplane_port_tx_bytes_total");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->tx_bytes.last);
	}
}

static void marks(FILE *f, const struct mp_tm *tm)
{
	const struct mp_tm_entity *e;
	unsigned int i;

	export_family(f, "mplane_ecn_ce_total", "counter",
	       "ECN CE marks: the samplers' cumulative count plus ecn_mark events.");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind == MP_TM_COUNTER)
			continue;
		fprintf(f, "mplane_ecn_ce_total");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->ecn.last + e->ecn_events);
	}
	export_family(f, "mplane_cnp_total", "counter",
	       "RoCE congestion notification packets: plane samples' count plus cnp events.");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind == MP_TM_COUNTER)
			continue;
		fprintf(f, "mplane_cnp_total");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->cnp.last + e->cnp_events);
	}
}

/* The labels of a plane by parts: {node,dev,plane}. */
static void plane_labels(FILE *f, const char *node, const char *dev,
			 unsigned int plane)
{
	char p[8];

	snprintf(p, sizeof(p), "%u", plane);
	fputc('{', f);
	export_label(f, "node", node, true);
	export_label(f, "dev", dev, false);
	export_label(f, "plane", p, false);
	fputc('}', f);
}

/*
 * Congestion control per plane.  CNPs received: the sampler's count of
 * each plane (PLANE_SAMPLE).  Cuts: the RATE_UPDATE cuts the events
 * told, since the feed (or capture) began.  CNPs sent and mp0's own
 * count of cuts: its ethtool -S planeN_cnp_sent and planeN_rate_cuts,
 * which only the ethtool poller reads (--ethtool): no event carries them.
 */
static void cc_planes(FILE *f, const struct mp_tm *tm)
{
	static const char *const stats[] = { "cnp_sent", "rate_cuts", NULL };
	static const char *const names[] = {
		"mplane_plane_cnp_sent_total", "mplane_plane_rate_cuts_total",
	};
	static const char *const helps[] = {
		"CNPs an mplane device sent for CE received on a plane (its ethtool -S planeN_cnp_sent; export --ethtool).",
		"QP rates an mplane device cut for CNPs received on a plane (its ethtool -S planeN_rate_cuts; export --ethtool).",
	};
	char dev[80], node[64];
	const struct mp_tm_entity *e;
	unsigned int i, k, plane;
	const char *stat;

	export_family(f, "mplane_plane_cnp_received_total", "counter",
	       "CNPs received on a plane of an mplane device (mplane.ko's sampler).");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind != MP_TM_PLANE || !e->cnp.seen)
			continue;
		fprintf(f, "mplane_plane_cnp_received_total");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->cnp.last);
	}
	export_family(f, "mplane_plane_rate_cut_events_total", "counter",
	       "Rate cuts of QPs by CNPs received on a plane, as rate_update events told them since the feed began.");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind != MP_TM_PLANE || !e->rate_cuts)
			continue;
		fprintf(f, "mplane_plane_rate_cut_events_total");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->rate_cuts);
	}
	for (k = 0; k < 2; k++) {
		export_family(f, names[k], "counter", helps[k]);
		for (i = 0; i < tm->nents; i++) {
			e = &tm->ents[i];
			if (!mp_tm_plane_stat(tm, e, stats, dev, sizeof(dev),
					      &plane, &stat, node,
					      sizeof(node)) ||
			    strcmp(stat, stats[k]) || !e->tx_bytes.seen)
				continue;
			fprintf(f, "%s", names[k]);
			plane_labels(f, node, dev, plane);
			fprintf(f, " %" PRIu64 "\n", e->tx_bytes.last);
		}
	}
}

/* The labels of a QP: {node,dev,qpn}, as a plane's with its qpn. */
static void qp_labels(FILE *f, const struct mp_tm_qp *q)
{
	char qpn[12];

	snprintf(qpn, sizeof(qpn), "%u", q->qpn);
	fputc('{', f);
	export_label(f, "node", q->node, true);
	export_label(f, "dev", q->dev, false);
	export_label(f, "qpn", qpn, false);
	fputc('}', f);
}

static uint64_t qp_rate_Bps(const struct mp_tm_qp *q) { return q->rate_kbps * 1000 / 8; }
static uint64_t qp_cuts(const struct mp_tm_qp *q) { return q->cuts; }
static uint64_t qp_updates(const struct mp_tm_qp *q) { return q->updates; }
static uint64_t qp_cause(const struct mp_tm_qp *q) { return q->cause; }

/* The per-QP families, one value of each QP. */
static const struct qp_family {
	const char *name, *type, *help;
	uint64_t (*value)(const struct mp_tm_qp *q);
} qp_families[] = {
	{ "mplane_qp_rate_bytes_per_second", "gauge",
	  "A QP's DCQCN rate after its latest rate_update event.", qp_rate_Bps },
	{ "mplane_qp_rate_cuts_total", "counter",
	  "Rate cuts of a QP by CNPs, as rate_update events told them since the model began to hold it.",
	  qp_cuts },
	{ "mplane_qp_rate_updates_total", "counter",
	  "rate_update events of a QP since the model began to hold it.", qp_updates },
	{ "mplane_qp_rate_cause", "gauge",
	  "Cause of a QP's latest rate update: 0 cut by a CNP, 1 fast recovery, 2 additive increase, 3 hyper increase.",
	  qp_cause },
};

/* Each QP's latest rate and its cuts, from RATE_UPDATE events: the
 * model's table of the QPs updated last, and what it let go. */
static void cc_qps(FILE *f, const struct mp_tm *tm)
{
	const size_t nfam = sizeof(qp_families) / sizeof(qp_families[0]);
	const struct qp_family *fam;
	const struct mp_tm_qp *q;
	unsigned int i;

	for (fam = qp_families; fam < qp_families + nfam; fam++) {
		export_family(f, fam->name, fam->type, fam->help);
		for (i = 0; i < tm->nqps; i++) {
			q = &tm->qps[i];
			fprintf(f, "%s", fam->name);
			qp_labels(f, q);
			fprintf(f, " %" PRIu64 "\n", fam->value(q));
		}
	}
	export_family(f, "mplane_qps", "gauge",
	       "QPs whose rate the exporter holds (at most its table's size).");
	fprintf(f, "mplane_qps %u\n", tm->nqps);
	export_family(f, "mplane_qps_evicted_total", "counter",
	       "QPs the full table let go, the least recently updated, for newer ones.");
	fprintf(f, "mplane_qps_evicted_total %" PRIu64 "\n", tm->qps_evicted);
}

static void gauges(FILE *f, const struct mp_tm *tm)
{
	const struct mp_tm_entity *e;
	unsigned int i, st;

	export_family(f, "mplane_queue_depth_bytes", "gauge",
	       "Queue depth at the last sample (qdisc and BQL for planes, the virtual queue for ports).");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (!e->queue.count)
			continue;
		fprintf(f, "mplane_queue_depth_bytes");
		entity_labels(f, e);
		fprintf(f, " %" PRIu64 "\n", e->q_last);
	}
	export_family(f, "mplane_plane_state", "gauge",
	       "1 for the state a plane is in, 0 for the others (one series per state).");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind != MP_TM_PLANE || e->state < 0)
			continue;
		for (st = 0; st < mp_state_names.count; st++) {
			fputs("mplane_plane_state", f);
			entity_labels_and(f, e, "state",
					  mp_name(&mp_state_names, st));
			fprintf(f, " %d\n", e->state == (int)st);
		}
	}
	export_family(f, "mplane_port_up", "gauge", "1 when a switch port is up.");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->kind != MP_TM_PORT || e->state < 0)
			continue;
		fprintf(f, "mplane_port_up");
		entity_labels(f, e);
		fprintf(f, " %d\n", e->state);
	}
}

/*
 * A group's labels, from its first member: {kind,node,dev} for an mplane
 * device's planes, {kind,node,port} for a switch's ports of one kind
 * ("s*": its uplinks), {kind,node} for a host's rails.
 */
static void group_labels(FILE *f, const struct mp_tm *tm, unsigned int g,
			 const struct mp_tm_entity *first)
{
	const char *name = tm->groups[g].name, *slash = strrchr(name, '/');

	fputc('{', f);
	export_label(f, "kind", mp_tm_kind_name(tm->groups[g].kind), true);
	export_label(f, "node", first->node, false);
	if (first->kind == MP_TM_PLANE)
		export_label(f, "dev", first->dev, false);
	else if (first->kind == MP_TM_PORT)
		export_label(f, "port", slash ? slash + 1 : name, false);
	fputc('}', f);
}

/* first[g]: the first entity of group g, or NULL.  The caller frees. */
static const struct mp_tm_entity **group_firsts(const struct mp_tm *tm)
{
	const struct mp_tm_entity **first;
	const struct mp_tm_entity *e;
	unsigned int i;

	first = calloc(tm->ngroups ? tm->ngroups : 1, sizeof(*first));
	for (i = 0; first && i < tm->nents; i++) {
		e = &tm->ents[i];
		if (e->group >= 0 && (unsigned int)e->group < tm->ngroups &&
		    !first[e->group])
			first[e->group] = e;
	}
	return first;
}

static void symmetry(FILE *f, const struct mp_tm *tm, bool from_file)
{
	static const char *const names[] = {
		"mplane_symmetry_max_mean", "mplane_symmetry_cv",
		"mplane_symmetry_flagged",
	};
	static const char *const helps[] = {
		"Largest member bandwidth over the group's mean (1 is even).",
		"Coefficient of variation of the group members' bandwidth.",
		"1 when the group is uneven beyond the threshold.",
	};
	const struct mp_tm_entity **first = group_firsts(tm);
	struct mp_tm_symmetry sym;
	unsigned int k, g;
	double v;

	for (k = 0; k < 3; k++) {
		export_family(f, names[k], "gauge", helps[k]);
		for (g = 0; first && g < tm->ngroups; g++) {
			mp_tm_symmetry(tm, g, from_file ? MP_TM_BW_MEAN :
				       MP_TM_BW_WINDOW, &sym);
			if (!sym.members || !first[g])
				continue;
			v = k == 0 ? sym.max_mean : k == 1 ? sym.cv :
			    sym.flagged;
			fputs(names[k], f);
			group_labels(f, tm, g, first[g]);
			fprintf(f, " %.6g\n", v);
		}
	}
	free(first);
}

/* {node,source} of the model's source @i (an index, not an id): its
 * node, as its entities have it, and its label. */
static void source_labels(FILE *f, const struct mp_tm *tm, unsigned int i)
{
	char node[64];

	export_label(f, "node", source_node(tm, tm->sources[i].id, node,
					    sizeof(node)), true);
	export_label(f, "source", tm->sources[i].label, false);
}

static void events(FILE *f, const struct mp_tm *tm)
{
	const struct mp_tm_source *s;
	unsigned int i, t;
	const char *type;

	export_family(f, "mplane_events_total", "counter",
	       "Events received, per source (ring or poller) and type.");
	for (i = 0; i < tm->nsources; i++) {
		s = &tm->sources[i];
		for (t = 0; t < __MPLANE_EV_MAX; t++) {
			type = mp_event_type_name(t);
			if (!s->by_type[t] || !type)
				continue;
			fprintf(f, "mplane_events_total{");
			source_labels(f, tm, i);
			export_label(f, "type", type, false);
			fprintf(f, "} %" PRIu64 "\n", s->by_type[t]);
		}
	}
	export_family(f, "mplane_events_dropped_total", "counter",
	       "Events the producers could not put in a full ring: live, the exporter's own, updated every second; from a capture, its recorder's.");
	for (i = 0; i < tm->nsources; i++) {
		s = &tm->sources[i];
		fprintf(f, "mplane_events_dropped_total{");
		source_labels(f, tm, i);
		fprintf(f, "} %llu\n", (unsigned long long)s->stats.dropped);
	}
	export_family(f, "mplane_anomalies_total", "counter",
	       "Failovers, planes and ports going down, ECN storms, and injected faults.");
	for (t = 0; t < __MP_TM_AN_MAX; t++) {
		fprintf(f, "mplane_anomalies_total{");
		export_label(f, "type", mp_tm_anomaly_name(t), true);
		fprintf(f, "} %" PRIu64 "\n", tm->anom_count[t]);
	}
	export_family(f, "mplane_model_refused_total", "counter",
	       "What the model did not keep, past its caps: new entities (ports, planes, counters), names, and the processes and collective ranks timed least recently (steppers).");
	fprintf(f, "mplane_model_refused_total{what=\"entities\"} %" PRIu64 "\n",
		tm->ents_refused);
	fprintf(f, "mplane_model_refused_total{what=\"names\"} %" PRIu64 "\n",
		tm->names_refused);
	fprintf(f, "mplane_model_refused_total{what=\"steppers\"} %" PRIu64 "\n",
		tm->steppers_evicted);
}

/*
 * The pollers' counters as they read them: rtnetlink's link statistics
 * ("eth0/rx_bytes"), ethtool -S ("eth0/ethtool/rx_queue_0_packets") and
 * RDMA hw_counters ("rxe0/1/rcvd_pkts").  ethtool -S mixes counters with
 * values that are not (veth's peer_ifindex), so its family is untyped.
 */
static const struct polled_family {
	uint32_t kind;			/* enum mplane_counter_kind */
	const char *name, *type, *help;
} polled_families[] = {
	{ MPLANE_COUNTER_NETDEV, "mplane_netdev_stat_total", "counter",
	  "A link's statistics as rtnetlink gives them (export --poll-hz)." },
	{ MPLANE_COUNTER_ETHTOOL, "mplane_ethtool_stat", "untyped",
	  "A link's ethtool -S value (export --ethtool)." },
	{ MPLANE_COUNTER_RDMA, "mplane_rdma_stat_total", "counter",
	  "An RDMA port's hw_counters (export --rdma)." },
};

static void polled_counters(FILE *f, const struct mp_tm *tm)
{
	const size_t nfam = sizeof(polled_families) / sizeof(polled_families[0]);
	const struct polled_family *fam;
	const struct mp_tm_entity *e;
	unsigned int i;

	for (fam = polled_families; fam < polled_families + nfam; fam++) {
		export_family(f, fam->name, fam->type, fam->help);
		for (i = 0; i < tm->nents; i++) {
			e = &tm->ents[i];
			if (e->kind != MP_TM_COUNTER || !e->tx_bytes.seen ||
			    e->counter_kind != fam->kind)
				continue;
			fputs(fam->name, f);
			entity_labels(f, e);
			fprintf(f, " %" PRIu64 "\n", e->tx_bytes.last);
		}
	}
}

/* Bucket bounds: queue bytes in packets of 1500 doubling, times in ns. */
static const uint64_t queue_le[] = {
	0, 1500, 3000, 6000, 12000, 24000, 48000, 96000, 192000, 384000,
	768000, 1536000, 3072000,
};
static const uint64_t time_le[] = {
	1000, 10000, 50000, 100000, 250000, 500000, 1000000, 2500000,
	5000000, 10000000, 25000000, 50000000, 100000000, 250000000,
	500000000, 1000000000, 2500000000, 10000000000,
};
#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* One histogram's series; @labels is a="b",c="d" (no braces): every
 * histogram here has at least its node. */
static void histogram_series(FILE *f, const char *name, const char *labels,
			     const struct mp_hist *h, const uint64_t *le,
			     unsigned int n, double div)
{
	uint64_t cum[32];
	unsigned int i;

	mp_hist_cumulative(h, le, n, cum);
	for (i = 0; i < n; i++)
		fprintf(f, "%s_bucket{%s,le=\"%.9g\"} %" PRIu64 "\n", name,
			labels, le[i] / div, cum[i]);
	fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", name, labels,
		h->count);
	fprintf(f, "%s_sum{%s} %.9g\n", name, labels, h->sum / div);
	fprintf(f, "%s_count{%s} %" PRIu64 "\n", name, labels, h->count);
}

/* What a histogram is of, and how its labels are written. */
struct labelled_hist {
	const struct mp_hist *h;
	void (*labels)(FILE *f, const struct mp_tm *tm, const void *of);
	const void *of;
};

/* One labelled histogram's series, if it has any value: the labels go
 * first into a string, as each of its lines repeats them. */
static void labelled_series(FILE *f, const char *name, const struct mp_tm *tm,
			    const struct labelled_hist *lh, const uint64_t *le,
			    unsigned int n, double div)
{
	char *labels = NULL;
	size_t len;
	FILE *lf;

	if (!lh->h || !lh->h->count)
		return;
	lf = open_memstream(&labels, &len);
	if (!lf)
		return;
	lh->labels(lf, tm, lh->of);
	if (!fclose(lf))
		histogram_series(f, name, labels, lh->h, le, n, div);
	free(labels);
}

static void entity_hist_labels(FILE *f, const struct mp_tm *tm,
			       const void *of)
{
	(void)tm;
	entity_label_list(f, of);
}

/* Queue depth and delivery gaps: per plane, port and polled counter, under
 * their labels. */
static void entity_histograms(FILE *f, const struct mp_tm *tm, bool gaps)
{
	const char *name = gaps ? "mplane_delivery_gap_seconds" :
				  "mplane_queue_bytes";
	const struct mp_tm_entity *e;
	struct labelled_hist lh = { .labels = entity_hist_labels };
	unsigned int i;

	if (gaps)
		export_family(f, name, "histogram",
			      "Time between successive increases of a plane's or a port's bytes sent, or of a polled traffic counter.");
	else
		export_family(f, name, "histogram",
			      "Queue depth of a plane's or a port's samples, in bytes.");
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		lh.of = e;
		lh.h = gaps ? mp_tm_expand(tm, &e->gaps) : mp_tm_queue(tm, e);
		if (gaps)
			labelled_series(f, name, tm, &lh, time_le, N(time_le), 1e9);
		else
			labelled_series(f, name, tm, &lh, queue_le, N(queue_le), 1);
	}
}

static void pid_labels(FILE *f, const struct mp_tm *tm, const void *of)
{
	const struct mp_tm_step_pid *p = of;
	char node[64], pid[16];

	mp_tm_node(tm, p->source, node, sizeof(node));
	snprintf(pid, sizeof(pid), "%u", p->pid);
	export_label(f, "node", node, true);
	export_label(f, "pid", pid, false);
}

static void rank_labels(FILE *f, const struct mp_tm *tm, const void *of)
{
	const struct mp_tm_step_rank *r = of;
	char node[64], job[16], rank[16];

	mp_tm_node(tm, r->source, node, sizeof(node));
	snprintf(job, sizeof(job), "%u", r->job);
	snprintf(rank, sizeof(rank), "%u", r->rank);
	export_label(f, "node", node, true);
	/* Not "job": Prometheus gives that label to the scrape job. */
	export_label(f, "collective", job, false);
	export_label(f, "rank", rank, false);
}

/* Step times: per process that marks its steps {node,pid}, and per rank
 * of a collective job {node,collective,rank}, whose iterations are its
 * steps. */
static void step_histograms(FILE *f, const struct mp_tm *tm)
{
	struct labelled_hist lh;
	unsigned int i;

	export_family(f, "mplane_step_seconds", "histogram",
		      "Time from one step mark of a process to its next, or of a collective rank's iteration.");
	for (i = 0; i < tm->npids; i++) {
		lh = (struct labelled_hist){ mp_tm_expand(tm, &tm->pids[i].hist),
					     pid_labels, &tm->pids[i] };
		labelled_series(f, "mplane_step_seconds", tm, &lh, time_le,
				N(time_le), 1e9);
	}
	for (i = 0; i < tm->nranks; i++) {
		lh = (struct labelled_hist){ mp_tm_expand(tm, &tm->ranks[i].hist),
					     rank_labels, &tm->ranks[i] };
		labelled_series(f, "mplane_step_seconds", tm, &lh, time_le,
				N(time_le), 1e9);
	}
}

/* What this exporter is: a series of value 1 whose labels say it. */
static void build_info(FILE *f)
{
	struct utsname u;

	export_family(f, "mplane_build_info", "gauge",
		      "1, labelled with the exporter's version and the kernel it runs on.");
	fputs("mplane_build_info{", f);
	export_label(f, "version", MPLANE_VERSION, true);
	export_label(f, "kernel", uname(&u) ? "unknown" : u.release, false);
	fputs("} 1\n", f);
}

static void render(FILE *f, struct mp_tm *tm, bool from_file,
		   const struct qp_tables *qps)
{
	mp_tm_refresh(tm);
	build_info(f);
	tx_bytes(f, tm, MP_TM_PLANE);
	tx_bytes(f, tm, MP_TM_PORT);
	marks(f, tm);
	cc_planes(f, tm);
	gauges(f, tm);
	cc_qps(f, tm);
	polled_counters(f, tm);
	if (!from_file) {
		export_qp_tables(f, tm, qps);
		export_hostacct(f);
	}
	symmetry(f, tm, from_file);
	events(f, tm);
	entity_histograms(f, tm, false);
	step_histograms(f, tm);
	entity_histograms(f, tm, true);
}

/* HTTP */

static enum MHD_Result reply(const struct mp_http *http,
			     struct MHD_Connection *c, unsigned int status,
			     char *body, size_t len, const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = http->create_response_from_buffer(len, body,
					      MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	http->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = http->queue_response(c, status, r);
	http->destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **req_cls)
{
	struct exporter *x = cls;
	struct qp_tables *qps;
	struct mp_tm view;
	size_t len = 0;
	char *body = NULL;
	FILE *f;
	int err;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(x->http, c, MHD_HTTP_METHOD_NOT_ALLOWED,
			     strdup("only GET\n"), 9, "text/plain");
	if (strcmp(url, "/metrics")) {
		body = strdup("mplane telemetry: the metrics are at /metrics\n");
		return reply(x->http, c, strcmp(url, "/") ? MHD_HTTP_NOT_FOUND :
			     MHD_HTTP_OK, body, body ? strlen(body) : 0,
			     "text/plain");
	}
	/* Neither the namespaces' QP tables nor the rendering hold up the
	 * feed: the model is only copied under its lock. */
	pthread_mutex_lock(&x->lock);
	err = mp_tm_copy(&view, &x->tm);
	pthread_mutex_unlock(&x->lock);
	if (err) {
		body = strdup("mplane telemetry: out of memory copying the model\n");
		return reply(x->http, c, MHD_HTTP_SERVICE_UNAVAILABLE, body,
			     body ? strlen(body) : 0, "text/plain");
	}
	f = open_memstream(&body, &len);
	if (!f) {
		mp_tm_free(&view);
		return MHD_NO;
	}
	qps = x->from_file ? NULL : export_qp_tables_read();
	render(f, &view, x->from_file, qps);
	export_qp_tables_free(qps);
	mp_tm_free(&view);
	if (fclose(f)) {
		free(body);
		return MHD_NO;
	}
	return reply(x->http, c, MHD_HTTP_OK, body, len, CONTENT_TYPE);
}

/* 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104: only this host reaches it. */
static bool is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
	       s6->sin6_addr.s6_addr[12] == 127;
}

/* The listening socket, its address in @where; -MP_EXIT_* when it
 * cannot be had (reported).  Beyond loopback only when @public. */
static int listen_on(const char *arg, bool public, char *where, size_t size)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	uint16_t port = DEFAULT_PORT;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (mp_arg_hostport("--listen", arg, host, sizeof(host), &port))
		return -MP_EXIT_USAGE;
	if (mp_resolve(host, port, &ss, &len))
		return -MP_EXIT_ERR;
	if (!public && !is_loopback(&ss)) {
		mp_usage_err("--listen %s: other hosts can reach %s; add --public to serve them this host's metrics",
			     arg, host);
		return -MP_EXIT_USAGE;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		mp_err("--listen %s: socket: %s", arg, strerror(errno));
		return -MP_EXIT_ERR;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		if (errno == EADDRINUSE)
			mp_err("--listen %s: port %u is already taken (another exporter? give another with --listen ADDR:PORT)",
			       arg, port);
		else if (errno == EADDRNOTAVAIL)
			mp_err("--listen %s: %s is not an address of this host",
			       arg, host);
		else
			mp_err("--listen %s: %s", arg, strerror(errno));
		close(fd);
		return -MP_EXIT_ERR;
	}
	mp_sockaddr_str((struct sockaddr *)&ss, where, size);
	if (!is_loopback(&ss))
		fprintf(stderr, "telemetry export: serving %s to every host that reaches it (--public): the metrics name this host's devices, peers and QPs\n",
			where);
	return fd;
}

static int to_model(void *data, unsigned int kind, unsigned int source,
		    const void *payload, size_t len)
{
	struct exporter *x = data;
	int err;

	pthread_mutex_lock(&x->lock);
	err = mp_tm_frame(&x->tm, kind, source, payload, len);
	pthread_mutex_unlock(&x->lock);
	return err;
}

static void wait_for_signal(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	while (!mp_run_stopping)
		nanosleep(&ts, NULL);
}

/*
 * The live feed, opened before the server starts (once it serves, every
 * event from then on is in the model), even with nothing to read yet: a
 * service starts before the programs that pin its rings, and run_live()
 * looks for them again.  Its rings are its own (reader slots), so that a
 * recorder or 'telemetry top' beside it still gets every record.
 */
static int open_live(struct exporter *x, struct mp_feed_opts *fo,
		     struct mp_feed **feed)
{
	int err;

	*feed = NULL;
	fo->allow_empty = true;
	fo->own_rings = true;
	err = mp_feed_open(feed, fo, to_model, x);
	if (err) {
		mp_err("opening the live feed: %s", strerror(-err));
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

/* How often the pin root is looked at again for rings pinned since. */
#define RESCAN_NS	(1000ULL * 1000 * 1000)

static int run_live(struct exporter *x, struct mp_feed *feed)
{
	uint64_t next_scan = mp_mono_ns() + RESCAN_NS;
	int err = 0, added;

	while (!mp_run_stopping) {
		err = mp_feed_poll(feed, 100);
		if (err < 0 && err != -EINTR) {
			mp_err("reading the live feed: %s", strerror(-err));
			break;
		}
		err = 0;
		pthread_mutex_lock(&x->lock);
		mp_tm_release(&x->tm, mp_mono_ns());
		pthread_mutex_unlock(&x->lock);
		if (mp_mono_ns() < next_scan)
			continue;
		next_scan = mp_mono_ns() + RESCAN_NS;
		/* The drops of our rings so far, for mplane_events_dropped_total. */
		err = mp_feed_stats(feed);
		if (err)
			break;
		added = mp_feed_rescan(feed);
		if (added > 0)
			fprintf(stderr, "telemetry export: reading %d more ring%s\n",
				added, added == 1 ? "" : "s");
		else if (added < 0)
			mp_err("looking for new rings: %s", strerror(-added));
	}
	mp_feed_finish(feed);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}

/* The feed's and the model's settings, from the command line's. */
static int parse(int argc, char **argv, struct export_args *a,
		 struct mp_feed_opts *feed, struct mp_tm_opts *tm)
{
	struct mp_opt_result res;
	int ret;

	ret = mp_opt_parse(&export_cmd, argc, argv, a, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	if ((a->ethtool || a->rdma) &&
	    !mp_opt_given(&export_cmd, &res, "poll-hz"))
		a->poll_hz = 10;
	if (a->ethtool && !a->poll_hz)
		return mp_usage_err("--ethtool polls: give a --poll-hz above 0");
	if (a->rdma && !a->poll_hz)
		return mp_usage_err("--rdma polls: give a --poll-hz above 0");
	feed->fabric = a->fabric;
	feed->poll_hz = a->poll_hz;
	feed->poll_ethtool = a->ethtool;
	feed->poll_rdma = a->rdma;
	tm->sym_threshold = a->threshold;
	return MP_OPT_RUN;
}

static struct MHD_Daemon *start_http(int fd, struct exporter *x)
{
	struct MHD_Daemon *d;
	sigset_t set, old;

	/* Signals go to the main thread, not to libmicrohttpd's. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	d = x->http->start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
				  NULL, handle, x, MHD_OPTION_LISTEN_SOCKET,
				  fd, MHD_OPTION_CONNECTION_TIMEOUT, CONN_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_LIMIT, CONN_MAX,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, CONN_PER_IP,
				  MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

/* Said once the server is up, so that a script can wait for the line. */
static void print_serving(const char *where, const char *from)
{
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "listen", "serving http://%s", where);
	mp_print_str(MP_PRINT_ANY, "path", "%s", "/metrics");
	if (from)
		mp_print_str(MP_PRINT_TEXT, NULL, " from %s", from);
	mp_print_text("; Ctrl-C stops\n");
	mp_print_end();
}

int telemetry_export_main(int argc, char **argv)
{
	struct export_args a = {
		.listen = DEFAULT_HOST ":" DEFAULT_PORT_STR,
		.threshold = MP_TM_SYM_THRESHOLD,
	};
	struct mp_feed_opts feed_opts = {};
	struct mp_tm_opts tm_opts = {};
	struct mplane_capture_hdr hdr;
	struct exporter x = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct mp_feed *feed = NULL;
	char where[MP_SOCKADDR_STRLEN];
	struct MHD_Daemon *d;
	int ret, fd;

	ret = parse(argc, argv, &a, &feed_opts, &tm_opts);
	if (ret != MP_OPT_RUN)
		return ret;
	x.http = mp_http_load();
	if (!x.http)
		return MP_EXIT_ERR;
	if (mp_tm_init(&x.tm, &tm_opts)) {
		mp_err("out of memory");
		return MP_EXIT_ERR;
	}
	fd = listen_on(a.listen, a.public, where, sizeof(where));
	if (fd < 0) {
		mp_tm_free(&x.tm);
		return -fd;
	}
	if (a.from) {
		x.from_file = true;
		ret = tv_load(a.from, &x.tm, &hdr);
		if (ret) {
			close(fd);
			mp_tm_free(&x.tm);
			return ret;
		}
		set_host_node(hdr.host, sizeof(hdr.host));
	} else {
		set_host_node(NULL, 0);
	}
	mp_run_stop_on_signals();
	if (!a.from) {
		ret = open_live(&x, &feed_opts, &feed);
		if (ret) {
			close(fd);
			mp_tm_free(&x.tm);
			return ret;
		}
	}
	d = start_http(fd, &x);
	if (!d) {
		mp_err("--listen %s: libmicrohttpd would not start", a.listen);
		if (feed)
			mp_feed_finish(feed);
		close(fd);
		mp_tm_free(&x.tm);
		return MP_EXIT_ERR;
	}
	print_serving(where, a.from);
	ret = a.from ? (wait_for_signal(), MP_EXIT_OK) : run_live(&x, feed);
	x.http->stop_daemon(d);
	close(fd);
	mp_tm_free(&x.tm);
	return ret;
}
