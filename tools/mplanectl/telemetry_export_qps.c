// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry export: each mplane device's QP table as the kernel
 * holds it at the scrape, with the counts no event carries: CNPs received
 * for a QP, CNPs sent for CE on it, and mp0's own count of its cuts.
 *
 * Events tell rates as they change; the CNP counts change with every CNP,
 * which would be an event per CNP.  So a scrape reads them where they
 * are: one RTM_GETLINK dump of the exporter's namespace and of each one
 * under /run/netns (a fabric's hosts), entered with setns() from the
 * HTTP thread and left again, before the scrape takes the model's lock,
 * so that the feed never waits for the namespaces.  The kernel lists a QP while DCQCN limits
 * it (a sender's) or once it sent CNPs for it (a receiver's), at most
 * MPLANE_QPS_DUMP_MAX a device: a sender's series ends when its QP is
 * back at the line rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_linkmsg.h"
#include "mp_net.h"
#include "mp_netns.h"
#include "mp_rtnl.h"
#include "mp_tm.h"
#include "telemetry.h"

/* One QP of a device's table, with the node and device it is on. */
struct qp_row {
	char node[32], dev[IF_NAMESIZE], peer[48];
	bool own;			/* of the exporter's own namespace:
					 * its node is the model's */
	struct mp_qp qp;
};

struct qp_tables {
	struct qp_row *row;
	unsigned int n, size;
	const char *node;		/* of the namespace being read; NULL:
					 * the exporter's own */
	unsigned int dump_from;		/* rows before this namespace's */
	int home;			/* the exporter's own namespace */
};

static int add_qps(const struct mp_link *l, int msg_type, void *data)
{
	struct qp_tables *r = data;
	struct qp_row *more, *row;
	unsigned int i;

	(void)msg_type;
	if (!mp_link_is_mplane(l))
		return 0;
	for (i = 0; i < l->nqps; i++) {
		if (r->n == r->size) {
			more = realloc(r->row, (r->size * 2 + 16) * sizeof(*more));
			if (!more)
				return -ENOMEM;
			r->row = more;
			r->size = r->size * 2 + 16;
		}
		row = &r->row[r->n++];
		row->own = !r->node;
		snprintf(row->node, sizeof(row->node), "%s", r->node ? r->node : "");
		snprintf(row->dev, sizeof(row->dev), "%s", l->name);
		mp_addr_str(&l->qps[i].peer, row->peer, sizeof(row->peer));
		row->qp = l->qps[i];
	}
	return 0;
}

/* A dump that began again: drop what it gave so far. */
static void restart(void *data)
{
	struct qp_tables *r = data;

	r->n = r->dump_from;
}

/* Every mplane device of the calling thread's namespace. */
static int read_netns(struct qp_tables *r)
{
	struct mp_rtnl rtnl;
	struct mp_nlerr e;
	int err;

	err = mp_rtnl_open(&rtnl, 0);
	if (err)
		return err;
	r->dump_from = r->n;
	err = mp_rtnl_dump_links(&rtnl, add_qps, restart, r, &e);
	mp_rtnl_close(&rtnl);
	return err;
}

/* One named namespace; one that goes away meanwhile is skipped. */
static int read_named(const char *name, unsigned long inode, void *data)
{
	struct qp_tables *r = data;

	(void)inode;
	if (mp_netns_enter(name))
		return 0;
	r->node = name;
	read_netns(r);
	r->node = NULL;
	/* Stuck elsewhere, the thread must read no more. */
	return mp_netns_return(r->home) ? -1 : 0;
}

struct qp_tables *export_qp_tables_read(void)
{
	struct qp_tables *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	read_netns(r);
	r->home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (r->home >= 0) {
		mp_netns_each(read_named, r);
		close(r->home);
	}
	return r;
}

void export_qp_tables_free(struct qp_tables *r)
{
	if (r)
		free(r->row);
	free(r);
}

/*
 * The node a device of the exporter's own namespace has in the model (the
 * kmod relay's label, as its planes have it), so that these series join
 * the ones from events; "" when the model has no plane of it.
 */
static const char *own_node(const struct mp_tm *tm, const char *dev)
{
	unsigned int i;

	for (i = 0; i < tm->nents; i++)
		if (tm->ents[i].kind == MP_TM_PLANE && !tm->ents[i].netns &&
		    !strcmp(tm->ents[i].dev, dev))
			return tm->ents[i].node;
	return "";
}

static const struct qp_table_family {
	const char *name, *type, *help;
	unsigned int attr;
} qp_table_families[] = {
	{ "mplane_qp_cnp_received_total", "counter",
	  "CNPs an mplane device received for a QP it sends on, while DCQCN limits the QP, or under cc notify once one came (its IFLA_MPLANE_QP_CNP_RX).",
	  IFLA_MPLANE_QP_CNP_RX },
	{ "mplane_qp_cnp_sent_total", "counter",
	  "CNPs an mplane device sent to a peer's QP for CE it received on it (its IFLA_MPLANE_QP_CNP_TX).",
	  IFLA_MPLANE_QP_CNP_TX },
	{ "mplane_qp_device_rate_cuts_total", "counter",
	  "Rate cuts of a QP as the mplane device counts them, while DCQCN limits the QP (its IFLA_MPLANE_QP_RATE_CUTS).",
	  IFLA_MPLANE_QP_RATE_CUTS },
	{ "mplane_qp_target_bytes_per_second", "gauge",
	  "A limited QP's DCQCN target rate (Rt), as the mplane device holds it now.",
	  IFLA_MPLANE_QP_TARGET_KBPS },
};

static void row_labels(FILE *f, const struct mp_tm *tm,
		       const struct qp_row *row)
{
	char qpn[12];

	snprintf(qpn, sizeof(qpn), "%" PRIu64, row->qp.val[IFLA_MPLANE_QP_QPN]);
	fputc('{', f);
	export_label(f, "node", row->own ? own_node(tm, row->dev) : row->node,
		     true);
	export_label(f, "dev", row->dev, false);
	export_label(f, "peer", row->peer, false);
	export_label(f, "qpn", qpn, false);
	fputc('}', f);
}

void export_qp_tables(FILE *f, const struct mp_tm *tm,
		      const struct qp_tables *r)
{
	const size_t nfam = sizeof(qp_table_families) /
			    sizeof(qp_table_families[0]);
	const struct qp_table_family *fam;
	const struct qp_row *row;
	uint64_t v;
	unsigned int i;

	for (fam = qp_table_families; fam < qp_table_families + nfam; fam++) {
		export_family(f, fam->name, fam->type, fam->help);
		for (i = 0; r && i < r->n; i++) {
			row = &r->row[i];
			if (!(row->qp.present & (1U << fam->attr)))
				continue;
			v = row->qp.val[fam->attr];
			if (fam->attr == IFLA_MPLANE_QP_TARGET_KBPS)
				v = v * 1000 / 8;
			fputs(fam->name, f);
			row_labels(f, tm, row);
			fprintf(f, " %" PRIu64 "\n", v);
		}
	}
}
