// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_tm.h"

/* An interface or counter name a source announced. */
struct mp_tm_name {
	unsigned int source;
	uint32_t ifindex;		/* interfaces */
	uint32_t netns;			/* interfaces: 0 is the source's own */
	uint32_t id;			/* counters */
	uint32_t counter_kind;
	bool counter;
	char name[80];
};

/* A namespace a source named: "" is the recorder's own. */
struct mp_tm_netns {
	unsigned int source;
	uint32_t inode;
	char name[64];
};

/* Grow @*arr of @*n elements of @size by one, zeroed: the new one. */
static void *grow(void *arr_p, unsigned int *n, size_t size)
{
	void **arr = arr_p;
	char *p;

	/* Doubling at powers of two: the capacity is implied by n. */
	if (!*n || !(*n & (*n - 1))) {
		p = realloc(*arr, (*n ? *n * 2 : 4) * size);
		if (!p)
			return NULL;
		*arr = p;
	}
	p = (char *)*arr + (size_t)(*n)++ * size;
	memset(p, 0, size);
	return p;
}

int mp_tm_init(struct mp_tm *tm, const struct mp_tm_opts *opts)
{
	memset(tm, 0, sizeof(*tm));
	if (opts)
		tm->o = *opts;
	if (tm->o.sym_threshold <= 0)
		tm->o.sym_threshold = MP_TM_SYM_THRESHOLD;
	if (!tm->o.ecn_storm_per_s)
		tm->o.ecn_storm_per_s = MP_TM_ECN_STORM_PER_S;
	if (!tm->o.window_ns)
		tm->o.window_ns = MP_TM_WINDOW_NS;
	if (!tm->o.hold_ns)
		tm->o.hold_ns = MP_TM_HOLD_NS;
	if (!tm->o.qps_max)
		tm->o.qps_max = MP_TM_QPS_MAX;
	tm->hash_size = 256;
	tm->hash = calloc(tm->hash_size, sizeof(*tm->hash));
	return tm->hash ? 0 : -ENOMEM;
}

void mp_tm_free(struct mp_tm *tm)
{
	unsigned int i;

	for (i = 0; i < tm->nents; i++)
		free(tm->ents[i].queue);
	free(tm->ents);
	free(tm->hash);
	free(tm->groups);
	free(tm->anoms);
	free(tm->pids);
	free(tm->ranks);
	free(tm->names);
	free(tm->netns);
	free(tm->qps);
	free(tm->qp_hash);
	free(tm->sources);
	mp_evq_free(&tm->evq);
	memset(tm, 0, sizeof(*tm));
}

/* Entities */

/* What identifies an entity: (kind, source, netns, id, plane). */
struct ent_key {
	enum mp_tm_kind kind;
	unsigned int source;
	uint32_t netns;
	uint32_t id;			/* ifindex, or counters' id */
	uint16_t plane;
};

static unsigned int key_hash(const struct ent_key *k)
{
	uint64_t h = ((uint64_t)k->kind << 56) ^ ((uint64_t)k->source << 40) ^
		     ((uint64_t)k->plane << 32) ^ k->id ^
		     ((uint64_t)k->netns * 0xff51afd7ed558ccdULL);

	h *= 0x9e3779b97f4a7c15ULL;
	return h >> 32;
}

static void key_of(const struct mp_tm_entity *e, struct ent_key *k)
{
	k->kind = e->kind;
	k->source = e->source;
	k->netns = e->netns;
	k->id = e->kind == MP_TM_COUNTER ? e->counter_id : e->ifindex;
	k->plane = e->plane;
}

static bool ent_is(const struct mp_tm_entity *e, const struct ent_key *k)
{
	struct ent_key ek;

	key_of(e, &ek);
	return ek.kind == k->kind && ek.source == k->source &&
	       ek.netns == k->netns && ek.id == k->id && ek.plane == k->plane;
}

static void hash_put(struct mp_tm *tm, unsigned int idx)
{
	struct ent_key k;
	unsigned int h;

	key_of(&tm->ents[idx], &k);
	h = key_hash(&k);
	while (tm->hash[h & (tm->hash_size - 1)])
		h++;
	tm->hash[h & (tm->hash_size - 1)] = idx + 1;
}

/* Keep the table at most half full. */
static int hash_grow(struct mp_tm *tm)
{
	unsigned int *old = tm->hash, i;

	if (tm->nents * 2 < tm->hash_size)
		return 0;
	tm->hash = calloc(tm->hash_size * 2, sizeof(*tm->hash));
	if (!tm->hash) {
		tm->hash = old;
		return -ENOMEM;
	}
	tm->hash_size *= 2;
	free(old);
	for (i = 0; i < tm->nents; i++)
		hash_put(tm, i);
	return 0;
}

static const struct mp_tm_name *find_name(const struct mp_tm *tm,
					  unsigned int source, bool counter,
					  uint32_t id);

/* A polled rx/tx byte or packet counter: a series with delivery gaps.
 * Pollers announce their names before their first value. */
static bool traffic_counter(const struct mp_tm *tm,
			    const struct mp_tm_entity *e)
{
	const struct mp_tm_name *n = find_name(tm, e->source, true,
					       e->counter_id);
	const char *slash = n ? strrchr(n->name, '/') : NULL;

	if (!n || n->counter_kind != MPLANE_COUNTER_NETDEV || !slash)
		return false;
	return !strcmp(slash, "/tx_bytes") || !strcmp(slash, "/rx_bytes") ||
	       !strcmp(slash, "/tx_packets") || !strcmp(slash, "/rx_packets");
}

static int lookup(const struct mp_tm *tm, const struct ent_key *k)
{
	unsigned int h = key_hash(k), slot;

	while ((slot = tm->hash[h & (tm->hash_size - 1)])) {
		if (ent_is(&tm->ents[slot - 1], k))
			return slot - 1;
		h++;
	}
	return -1;
}

/* Whether @source named any namespace (CF_NETNS): the kmod relay does. */
static bool names_netns(const struct mp_tm *tm, unsigned int source)
{
	unsigned int i;

	for (i = 0; i < tm->nnetns; i++)
		if (tm->netns[i].source == source)
			return true;
	return false;
}

/*
 * The key of an event's entity.  A plane's hdr.flags is its namespace
 * only where the source names namespaces: older captures of the relay
 * carried the load score there, and must not split a plane by it.
 */
static void key_for(const struct mp_tm *tm, unsigned int source,
		    const struct mplane_event_hdr *h, struct ent_key *k)
{
	memset(k, 0, sizeof(*k));
	k->source = source;
	k->plane = MPLANE_EVENT_NO_PLANE;
	k->id = h->ifindex;
	if (h->type == MPLANE_EV_COUNTER) {
		k->kind = MP_TM_COUNTER;
		k->id = h->flags;
	} else if (h->plane != MPLANE_EVENT_NO_PLANE) {
		k->kind = MP_TM_PLANE;
		k->plane = h->plane;
		if (names_netns(tm, source))
			k->netns = h->flags;
	} else {
		k->kind = MP_TM_PORT;
	}
}

int mp_tm_lookup(const struct mp_tm *tm, unsigned int source,
		 const struct mplane_event_hdr *h)
{
	struct ent_key k;

	key_for(tm, source, h, &k);
	return lookup(tm, &k);
}

/* The entity of this key, created when new: its index, or -1. */
static int entity(struct mp_tm *tm, const struct ent_key *k)
{
	int found = lookup(tm, k);
	struct mp_tm_entity *e;

	if (found >= 0)
		return found;
	if (hash_grow(tm))
		return -1;
	e = grow(&tm->ents, &tm->nents, sizeof(*e));
	if (!e)
		return -1;
	e->kind = k->kind;
	e->source = k->source;
	e->plane = k->plane;
	e->netns = k->netns;
	if (k->kind == MP_TM_COUNTER)
		e->counter_id = k->id;
	else
		e->ifindex = k->id;
	e->group = -1;
	e->state = -1;
	e->tx_bytes.gaps = k->kind != MP_TM_COUNTER || traffic_counter(tm, e);
	hash_put(tm, tm->nents - 1);
	tm->dirty = true;
	return tm->nents - 1;
}

/* Series */

/*
 * Take the value @v at @ts: the increase since the last sample (0 for the
 * first, or when the counter went back), after accounting the gap since
 * the previous increase.
 */
static uint64_t after_end(const struct mp_tm *tm);

static uint64_t series_add(struct mp_tm *tm, struct mp_tm_series *s,
			   uint64_t ts, uint64_t v)
{
	uint64_t inc = 0;

	if (!s->seen) {
		s->seen = true;
		s->first_ts = s->win_ts = ts;
		/* Born after the failure: all of it is "after". */
		if (tm->fail_ts) {
			s->split_ts = ts;
			s->after_end_ts = after_end(tm);
		}
	} else if (v > s->last) {
		inc = v - s->last;
	}
	s->last = v;
	s->last_ts = ts;
	s->total += inc;
	if (s->split_ts && !s->after_closed && ts >= s->after_end_ts) {
		s->after_closed = true;
		s->after_end_ts = ts;
		s->after_total = s->total;
	}
	if (inc && s->gaps) {
		if (s->inc_ts && ts >= s->inc_ts) {
			mp_hist_add(&tm->gaps, ts - s->inc_ts);
			if (ts - s->inc_ts > s->max_gap_ns)
				s->max_gap_ns = ts - s->inc_ts;
		}
		s->inc_ts = ts;
	}
	if (ts - s->win_ts >= tm->o.window_ns) {
		s->win_rate = (double)(s->total - s->win_total) * 1e9 /
			      (double)(ts - s->win_ts);
		s->win_ts = ts;
		s->win_total = s->total;
	}
	return inc;
}

double mp_tm_rate(const struct mp_tm_series *s, enum mp_tm_bw which)
{
	uint64_t from_ts, from, to_ts, to;

	if (!s->seen)
		return -1;
	if (which == MP_TM_BW_WINDOW)
		return s->win_ts > s->first_ts ? s->win_rate : -1;
	from_ts = s->first_ts;
	from = 0;
	to_ts = s->last_ts;
	to = s->total;
	if (which != MP_TM_BW_MEAN && !s->split_ts)
		return -1;
	if (which == MP_TM_BW_BEFORE) {
		to_ts = s->split_ts;
		to = s->split_total;
	} else if (which == MP_TM_BW_AFTER) {
		from_ts = s->split_ts;
		from = s->split_total;
		if (s->after_closed) {
			to_ts = s->after_end_ts;
			to = s->after_total;
		}
	}
	if (to_ts <= from_ts)
		return -1;
	return (double)(to - from) * 1e9 / (double)(to_ts - from_ts);
}

double mp_tm_bw(const struct mp_tm_entity *e, enum mp_tm_bw which)
{
	double r = mp_tm_rate(&e->tx_bytes, which);

	/* Counters are bytes only when their name says so; the views
	 * decide, the model gives bits per second of whatever counts. */
	return r < 0 ? r : r * 8;
}

/* Anomalies and phases */

/* Where "after" ends: as long after the failure as the capture ran
 * before it. */
static uint64_t after_end(const struct mp_tm *tm)
{
	uint64_t before = tm->fail_ts > tm->first_ts ?
			  tm->fail_ts - tm->first_ts : 0;

	return tm->fail_ts + before;
}

static void split_all(struct mp_tm *tm)
{
	struct mp_tm_series *s;
	unsigned int i;

	for (i = 0; i < tm->nents; i++) {
		s = &tm->ents[i].tx_bytes;
		if (s->seen) {
			s->split_ts = s->last_ts;
			s->split_total = s->total;
			s->after_end_ts = after_end(tm);
		}
	}
}

static struct mp_tm_anomaly *anomaly(struct mp_tm *tm, uint64_t ts,
				     enum mp_tm_anomaly_type type, int ent,
				     uint64_t value)
{
	struct mp_tm_anomaly *a = grow(&tm->anoms, &tm->nanoms, sizeof(*a));

	if (!a)
		return NULL;
	a->ts_ns = ts;
	a->type = type;
	a->entity = ent;
	a->value = value;
	if (type != MP_TM_AN_ECN_STORM && type != MP_TM_AN_FAULT &&
	    !tm->fail_ts) {
		tm->fail_ts = ts ? ts : 1;
		split_all(tm);
	}
	return a;
}

/* @n more CE marks at @ts: a storm once a 10 ms window holds enough. */
static void ecn_marks(struct mp_tm *tm, int ent, uint64_t ts, uint64_t n)
{
	struct mp_tm_entity *e = &tm->ents[ent];
	uint64_t limit = tm->o.ecn_storm_per_s * MP_TM_ECN_STORM_WINDOW /
			 1000000000ULL;

	if (!n)
		return;
	if (!e->storm_ts || ts - e->storm_ts >= MP_TM_ECN_STORM_WINDOW) {
		/* A storm lasts while its windows stay above the limit. */
		e->storming = e->storm_ts && e->storm_count >= limit &&
			      ts - e->storm_ts < 2 * MP_TM_ECN_STORM_WINDOW;
		e->storm_ts = ts;
		e->storm_count = 0;
	}
	e->storm_count += n;
	if (!e->storming && e->storm_count >= (limit ? limit : 1)) {
		e->storming = true;
		anomaly(tm, ts, MP_TM_AN_ECN_STORM, ent, e->storm_count);
	}
}

/* Events, in timestamp order */

static void queue_sample(struct mp_tm *tm, int ent, uint64_t q)
{
	struct mp_tm_entity *e = &tm->ents[ent];

	if (!e->queue) {
		e->queue = calloc(1, sizeof(*e->queue));
		if (!e->queue)
			return;
	}
	mp_hist_add(e->queue, q);
	mp_hist_add(&tm->queue, q);
	e->q_last = q;
}

static bool plane_up(uint64_t state)
{
	return state == MPLANE_PLANE_UP || state == MPLANE_PLANE_CONGESTED;
}

static void set_state(struct mp_tm_entity *e, int state)
{
	if (e->state >= 0 && e->state != state)
		e->state_changes++;
	e->state = state;
}

static void step_mark(struct mp_tm *tm, const struct mplane_event *ev)
{
	uint32_t pid = ev->val[1];
	struct mp_tm_step_pid *p = NULL;
	unsigned int i;

	if (ev->val[2] != MPLANE_MARK_STEP)
		return;
	for (i = 0; i < tm->npids && !p; i++)
		if (tm->pids[i].pid == pid)
			p = &tm->pids[i];
	if (!p) {
		p = grow(&tm->pids, &tm->npids, sizeof(*p));
		if (!p)
			return;
		p->pid = pid;
	} else if (ev->hdr.ts_ns >= p->last_ts) {
		mp_hist_add(&tm->steps, ev->hdr.ts_ns - p->last_ts);
	}
	p->last_ts = ev->hdr.ts_ns;
	p->steps++;
}

/* A collective iteration: from its begin to its end is one step. */
static void coll_mark(struct mp_tm *tm, const struct mplane_event *ev)
{
	struct mp_tm_step_rank *p = NULL;
	unsigned int i;

	for (i = 0; i < tm->nranks && !p; i++)
		if (tm->ranks[i].job == ev->hdr.ifindex &&
		    tm->ranks[i].rank == ev->val[1])
			p = &tm->ranks[i];
	if (!p && ev->val[2] == MPLANE_MARK_STEP) {
		p = grow(&tm->ranks, &tm->nranks, sizeof(*p));
		if (!p)
			return;
		p->job = ev->hdr.ifindex;
		p->rank = ev->val[1];
	}
	if (!p)
		return;
	if (ev->val[2] == MPLANE_MARK_STEP) {
		p->iter = ev->val[0];
		p->begin_ts = ev->hdr.ts_ns;
	} else if (ev->val[2] == MPLANE_MARK_STEP_END && p->begin_ts &&
		   p->iter == ev->val[0] && ev->hdr.ts_ns >= p->begin_ts) {
		mp_hist_add(&tm->steps, ev->hdr.ts_ns - p->begin_ts);
		p->begin_ts = 0;
		p->steps++;
	}
}

static void fault(struct mp_tm *tm, const struct mplane_event *ev)
{
	struct mp_tm_anomaly *a = anomaly(tm, ev->hdr.ts_ns, MP_TM_AN_FAULT,
					  -1, ev->val[0]);

	if (a)
		a->fault = *ev;
}

static int entity_of(struct mp_tm *tm, unsigned int source,
		     const struct mplane_event_hdr *h)
{
	struct ent_key k;

	key_for(tm, source, h, &k);
	return entity(tm, &k);
}

/* QPs */

static unsigned int qp_hash_of(unsigned int source, uint32_t netns,
			       uint32_t ifindex, uint32_t qpn)
{
	uint64_t h = ((uint64_t)source << 48) ^ ((uint64_t)ifindex << 24) ^
		     qpn ^ ((uint64_t)netns * 0xff51afd7ed558ccdULL);

	h *= 0x9e3779b97f4a7c15ULL;
	return h >> 32;
}

static bool qp_is(const struct mp_tm_qp *q, unsigned int source,
		  uint32_t netns, uint32_t ifindex, uint32_t qpn)
{
	return q->source == source && q->netns == netns &&
	       q->ifindex == ifindex && q->qpn == qpn;
}

static int qp_lookup(const struct mp_tm *tm, unsigned int source,
		     uint32_t netns, uint32_t ifindex, uint32_t qpn)
{
	unsigned int h, slot;

	if (!tm->qp_hash)
		return -1;
	h = qp_hash_of(source, netns, ifindex, qpn);
	while ((slot = tm->qp_hash[h & (tm->qp_hash_size - 1)])) {
		if (qp_is(&tm->qps[slot - 1], source, netns, ifindex, qpn))
			return slot - 1;
		h++;
	}
	return -1;
}

static void qp_hash_put(struct mp_tm *tm, unsigned int idx)
{
	const struct mp_tm_qp *q = &tm->qps[idx];
	unsigned int h = qp_hash_of(q->source, q->netns, q->ifindex, q->qpn);

	while (tm->qp_hash[h & (tm->qp_hash_size - 1)])
		h++;
	tm->qp_hash[h & (tm->qp_hash_size - 1)] = idx + 1;
}

const struct mp_tm_qp *mp_tm_qp_find(const struct mp_tm *tm,
				     unsigned int source, uint32_t netns,
				     uint32_t ifindex, uint32_t qpn)
{
	int i;

	if (!names_netns(tm, source))
		netns = 0;
	i = qp_lookup(tm, source, netns, ifindex, qpn);
	return i < 0 ? NULL : &tm->qps[i];
}

/*
 * The QP of this key, made when new: in a full table it takes the place
 * of the QP updated longest ago, which is counted.  NULL: no memory.
 */
static struct mp_tm_qp *qp_get(struct mp_tm *tm, unsigned int source,
			       uint32_t netns, uint32_t ifindex, uint32_t qpn)
{
	struct mp_tm_qp *q;
	unsigned int i, old = 0;
	int found = qp_lookup(tm, source, netns, ifindex, qpn);
	bool evict = tm->nqps >= tm->o.qps_max;

	if (found >= 0)
		return &tm->qps[found];
	if (!tm->qp_hash) {
		/* At most half full: a power of two above twice the cap. */
		tm->qp_hash_size = 4;
		while (tm->qp_hash_size < 2 * tm->o.qps_max)
			tm->qp_hash_size *= 2;
		tm->qp_hash = calloc(tm->qp_hash_size, sizeof(*tm->qp_hash));
		if (!tm->qp_hash)
			return NULL;
	}
	if (!evict) {
		q = grow(&tm->qps, &tm->nqps, sizeof(*q));
		if (!q)
			return NULL;
	} else {
		for (i = 1; i < tm->nqps; i++)
			if (tm->qps[i].last_ts < tm->qps[old].last_ts)
				old = i;
		q = &tm->qps[old];
		memset(q, 0, sizeof(*q));
		tm->qps_evicted++;
	}
	q->source = source;
	q->netns = netns;
	q->ifindex = ifindex;
	q->qpn = qpn;
	q->cut_plane = MPLANE_EVENT_NO_PLANE;
	if (evict) {
		/* Its old key leaves the hash: put every QP in anew. */
		memset(tm->qp_hash, 0, tm->qp_hash_size * sizeof(*tm->qp_hash));
		for (i = 0; i < tm->nqps; i++)
			qp_hash_put(tm, i);
	} else {
		qp_hash_put(tm, q - tm->qps);
	}
	tm->dirty = true;
	return q;
}

static void rate_update(struct mp_tm *tm, unsigned int source,
			const struct mplane_event *ev)
{
	const struct mplane_event_hdr *h = &ev->hdr;
	uint32_t netns = names_netns(tm, source) ? h->flags : 0;
	struct mp_tm_qp *q = qp_get(tm, source, netns, h->ifindex,
				    (uint32_t)ev->val[0]);
	bool cut = ev->val[3] == MPLANE_RATE_CUT;
	int i;

	if (q) {
		if (!q->updates)
			q->first_ts = h->ts_ns;
		q->rate_kbps = ev->val[1];
		q->old_kbps = ev->val[2];
		q->cause = ev->val[3];
		q->updates++;
		q->last_ts = h->ts_ns;
		if (cut) {
			q->cuts++;
			q->cut_ts = h->ts_ns;
			q->cut_plane = h->plane;
		}
	}
	/* The plane the cut's CNP came in on: a plane entity, as the
	 * plane's other events key it. */
	if (cut && h->plane != MPLANE_EVENT_NO_PLANE) {
		i = entity_of(tm, source, h);
		if (i >= 0)
			tm->ents[i].rate_cuts++;
	}
}

static void apply(struct mp_tm *tm, unsigned int source,
		  const struct mplane_event *ev)
{
	const struct mplane_event_hdr *h = &ev->hdr;
	uint64_t ts = h->ts_ns, n;
	struct mp_tm_entity *e;
	int i;

	switch (h->type) {
	case MPLANE_EV_PLANE_SAMPLE:
	case MPLANE_EV_PORT_SAMPLE:
	case MPLANE_EV_QUEUE_SAMPLE:
	case MPLANE_EV_ECN_MARK:
	case MPLANE_EV_CNP:
	case MPLANE_EV_PORT_STATE:
	case MPLANE_EV_PLANE_STATE:
	case MPLANE_EV_FAILOVER:
	case MPLANE_EV_COUNTER:
		i = entity_of(tm, source, h);
		break;
	case MPLANE_EV_STEP_MARK:
		step_mark(tm, ev);
		return;
	case MPLANE_EV_COLLECTIVE:
		coll_mark(tm, ev);
		return;
	case MPLANE_EV_FAULT:
		fault(tm, ev);
		return;
	case MPLANE_EV_RATE_UPDATE:
		rate_update(tm, source, ev);
		return;
	default:
		return;
	}
	if (i < 0)
		return;
	e = &tm->ents[i];
	switch (h->type) {
	case MPLANE_EV_PLANE_SAMPLE:
	case MPLANE_EV_PORT_SAMPLE:
		queue_sample(tm, i, ev->val[0]);
		series_add(tm, &e->tx_bytes, ts, ev->val[1]);
		n = series_add(tm, &e->ecn, ts, ev->val[2]);
		if (h->type == MPLANE_EV_PLANE_SAMPLE)
			series_add(tm, &e->cnp, ts, ev->val[3]);
		else
			series_add(tm, &e->tx_packets, ts, ev->val[3]);
		ecn_marks(tm, i, ts, n);
		break;
	case MPLANE_EV_QUEUE_SAMPLE:
		queue_sample(tm, i, ev->val[0]);
		series_add(tm, &e->tx_packets, ts, ev->val[2]);
		break;
	case MPLANE_EV_ECN_MARK:
		e->ecn_events++;
		ecn_marks(tm, i, ts, 1);
		break;
	case MPLANE_EV_CNP:
		e->cnp_events++;
		break;
	case MPLANE_EV_PORT_STATE:
		set_state(e, !!ev->val[0]);
		if (!ev->val[0] && ev->val[1])
			anomaly(tm, ts, MP_TM_AN_PORT_DOWN, i, 0);
		break;
	case MPLANE_EV_PLANE_STATE:
		set_state(e, (int)ev->val[0]);
		if (!plane_up(ev->val[0]) && plane_up(ev->val[1]))
			anomaly(tm, ts, MP_TM_AN_PLANE_DOWN, i, ev->val[0]);
		break;
	case MPLANE_EV_FAILOVER:
		anomaly(tm, ts, MP_TM_AN_FAILOVER, i, ev->val[1]);
		break;
	case MPLANE_EV_COUNTER:
		series_add(tm, &e->tx_bytes, ts, ev->val[0]);
		break;
	}
}

static void release_cb(const struct mp_event_item *it, void *data)
{
	struct mp_tm *tm = data;

	if (!tm->first_ts || it->ev.hdr.ts_ns < tm->first_ts)
		tm->first_ts = it->ev.hdr.ts_ns;
	if (it->ev.hdr.ts_ns > tm->last_ts)
		tm->last_ts = it->ev.hdr.ts_ns;
	apply(tm, it->source, &it->ev);
}

/* Frames */

static struct mp_tm_source *source_get(struct mp_tm *tm, unsigned int id)
{
	struct mp_tm_source *s;

	while (tm->nsources <= id) {
		s = grow(&tm->sources, &tm->nsources, sizeof(*s));
		if (!s)
			return NULL;
	}
	return &tm->sources[id];
}

static int event_frame(struct mp_tm *tm, struct mp_tm_source *src,
		       unsigned int source, const void *payload, size_t len)
{
	struct mplane_event ev;
	uint64_t upto;
	int err;

	if (mp_event_decode(payload, len, &ev)) {
		tm->undecodable++;
		return 0;
	}
	src->events++;
	tm->events++;
	if (ev.hdr.type < __MPLANE_EV_MAX)
		src->by_type[ev.hdr.type]++;
	err = mp_evq_push(&tm->evq, &ev, source);
	if (err)
		return err;
	if (ev.hdr.ts_ns > tm->newest_ts)
		tm->newest_ts = ev.hdr.ts_ns;
	/* Sorting the queue costs: release in batches of a hold time. */
	if (tm->newest_ts > 2 * tm->o.hold_ns &&
	    tm->newest_ts - 2 * tm->o.hold_ns > tm->evq.released_ts) {
		upto = tm->newest_ts - tm->o.hold_ns;
		mp_evq_release(&tm->evq, upto, release_cb, tm);
		/* Nothing was old enough: do not sort again at once. */
		if (tm->evq.released_ts < upto)
			tm->evq.released_ts = upto;
	}
	return 0;
}

static int name_frame(struct mp_tm *tm, unsigned int kind,
		      unsigned int source, const void *payload, size_t len)
{
	const struct mplane_capture_counter_name *cn = payload;
	const struct mplane_capture_ifname *ifn = payload;
	struct mp_tm_name *n;

	/* An ifname without netns (20 bytes, older captures) is netns 0. */
	if (kind == MPLANE_CF_IFNAME ?
	    len < offsetof(struct mplane_capture_ifname, netns) :
	    len <= sizeof(*cn))
		return 0;
	n = grow(&tm->names, &tm->nnames, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->source = source;
	if (kind == MPLANE_CF_IFNAME) {
		n->ifindex = ifn->ifindex;
		if (len >= sizeof(*ifn))
			n->netns = ifn->netns;
		snprintf(n->name, sizeof(n->name), "%.*s",
			 (int)sizeof(ifn->name), ifn->name);
	} else {
		n->counter = true;
		n->id = cn->id;
		n->counter_kind = cn->kind;
		n->ifindex = cn->ifindex;
		snprintf(n->name, sizeof(n->name), "%.*s",
			 (int)(len - sizeof(*cn)), cn->name);
	}
	tm->dirty = true;
	return 0;
}

static int netns_frame(struct mp_tm *tm, unsigned int source,
		       const void *payload, size_t len)
{
	const struct mplane_capture_netns *cn = payload;
	struct mp_tm_netns *n;

	if (len < sizeof(*cn))
		return 0;
	n = grow(&tm->netns, &tm->nnetns, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->source = source;
	n->inode = cn->inode;
	snprintf(n->name, sizeof(n->name), "%.*s", (int)(len - sizeof(*cn)),
		 cn->name);
	tm->dirty = true;
	return 0;
}

int mp_tm_frame(struct mp_tm *tm, unsigned int kind, unsigned int source,
		const void *payload, size_t len)
{
	struct mp_tm_source *src = source_get(tm, source);

	if (!src)
		return -ENOMEM;
	switch (kind) {
	case MPLANE_CF_EVENT:
		return event_frame(tm, src, source, payload, len);
	case MPLANE_CF_SOURCE:
		snprintf(src->label, sizeof(src->label), "%.*s", (int)len,
			 (const char *)payload);
		tm->dirty = true;
		return 0;
	case MPLANE_CF_IFNAME:
	case MPLANE_CF_COUNTER_NAME:
		return name_frame(tm, kind, source, payload, len);
	case MPLANE_CF_NETNS:
		return netns_frame(tm, source, payload, len);
	case MPLANE_CF_STATS:
		if (len >= sizeof(src->stats)) {
			memcpy(&src->stats, payload, sizeof(src->stats));
			src->has_stats = true;
		}
		return 0;
	default:
		return 0;
	}
}

/* Names and groups */

const char *mp_tm_node(const struct mp_tm *tm, unsigned int source,
		       char *buf, size_t size)
{
	const char *label = source < tm->nsources ?
			    tm->sources[source].label : "";
	const char *p, *end;

	if (!*label) {
		snprintf(buf, size, "src%u", source);
		return buf;
	}
	/* The kmod relay of a host's namespace: "dev/INODE/...". */
	if (!strncmp(label, "dev/", 4) && label[4] >= '0' && label[4] <= '9') {
		snprintf(buf, size, "ns%.*s", (int)strcspn(label + 4, "/"),
			 label + 4);
		return buf;
	}
	if (!strncmp(label, "fabric/", 7) && (p = strchr(label + 7, '/'))) {
		p++;
		end = strchr(p, '/');
	} else {
		end = label + strlen(label);
		while (end > label && end[-1] == '/')
			end--;
		for (p = end; p > label && p[-1] != '/'; p--)
			;
	}
	snprintf(buf, size, "%.*s", (int)(end ? end - p : (long)strlen(p)),
		 p);
	return buf;
}

static const struct mp_tm_name *find_name(const struct mp_tm *tm,
					  unsigned int source, bool counter,
					  uint32_t id)
{
	const struct mp_tm_name *n;
	unsigned int i;

	/* The newest announcement wins: an ifindex may be reused. */
	for (i = tm->nnames; i--; ) {
		n = &tm->names[i];
		if (n->source == source && n->counter == counter &&
		    (counter ? n->id : n->ifindex) == id)
			return n;
	}
	return NULL;
}

/* The newest name @source gave namespace @inode, or NULL. */
static const char *netns_name(const struct mp_tm *tm, unsigned int source,
			      uint32_t inode)
{
	unsigned int i;

	for (i = tm->nnetns; i--; )
		if (tm->netns[i].source == source &&
		    tm->netns[i].inode == inode)
			return tm->netns[i].name;
	return NULL;
}

/* A namespace as CF_IFNAME says it: 0 for the source's own (named ""). */
static uint32_t canon_netns(const struct mp_tm *tm, unsigned int source,
			    uint32_t inode)
{
	const char *name = inode ? netns_name(tm, source, inode) : NULL;

	return name && !*name ? 0 : inode;
}

/*
 * The name of interface (@netns, @ifindex) of @source.  A source that
 * names no namespace (older captures) has one: netns 0.
 */
static const struct mp_tm_name *find_ifname(const struct mp_tm *tm,
					    unsigned int source,
					    uint32_t netns, uint32_t ifindex)
{
	uint32_t want = canon_netns(tm, source, netns);
	const struct mp_tm_name *n;
	unsigned int i;

	for (i = tm->nnames; i--; ) {
		n = &tm->names[i];
		if (n->source == source && !n->counter &&
		    n->ifindex == ifindex &&
		    canon_netns(tm, source, n->netns) == want)
			return n;
	}
	return NULL;
}

static void ifname(const struct mp_tm *tm, unsigned int source,
		   uint32_t netns, uint32_t ifindex, char *buf, size_t size)
{
	const struct mp_tm_name *n = find_ifname(tm, source, netns, ifindex);

	if (n)
		snprintf(buf, size, "%s", n->name);
	else
		snprintf(buf, size, "if%u", ifindex);
}

static void name_entity(const struct mp_tm *tm, struct mp_tm_entity *e)
{
	const struct mp_tm_name *n;
	char node[64], dev[80];
	const char *ns;

	mp_tm_node(tm, e->source, node, sizeof(node));
	snprintf(e->node, sizeof(e->node), "%.31s", node);
	e->dev[0] = 0;
	if (e->kind != MP_TM_COUNTER) {
		ifname(tm, e->source, e->netns, e->ifindex, dev, sizeof(dev));
		snprintf(e->dev, sizeof(e->dev), "%.31s", dev);
	}
	switch (e->kind) {
	case MP_TM_PLANE:
		/* A fabric's host is its namespace: "mpf-h1:mp0/plane0", and
		 * the plane's node is the host, not the relay all share. */
		ns = e->netns ? netns_name(tm, e->source, e->netns) : NULL;
		if (ns && *ns)
			snprintf(e->node, sizeof(e->node), "%.31s", ns);
		else if (canon_netns(tm, e->source, e->netns))
			snprintf(e->node, sizeof(e->node), "ns%u", e->netns);
		if (ns && *ns)
			snprintf(e->name, sizeof(e->name), "%.47s:%.31s/plane%u",
				 ns, dev, e->plane);
		else
			snprintf(e->name, sizeof(e->name), "%.79s/plane%u", dev,
				 e->plane);
		break;
	case MP_TM_PORT:
		snprintf(e->name, sizeof(e->name), "%.31s/%.63s", node, dev);
		break;
	default:
		n = find_name(tm, e->source, true, e->counter_id);
		if (n)
			snprintf(e->name, sizeof(e->name), "%s", n->name);
		else
			snprintf(e->name, sizeof(e->name), "counter%u",
				 e->counter_id);
		break;
	}
}

/* The device part of a plane's name: "h1:mp0" of "h1:mp0/plane0". */
static int dev_len(const struct mp_tm_entity *e)
{
	const char *slash = strrchr(e->name, '/');

	return slash ? slash - e->name : (int)strlen(e->name);
}

static bool same_dev(const struct mp_tm_entity *a,
		     const struct mp_tm_entity *b)
{
	return a->source == b->source && a->netns == b->netns &&
	       a->ifindex == b->ifindex;
}

enum { BY_NODE = 1, BY_NETNS = 2 };

/* Why plane @i needs more in its name: another device has its name. */
static int plane_clash(const struct mp_tm *tm, unsigned int i)
{
	const struct mp_tm_entity *e = &tm->ents[i], *o;
	int len = dev_len(e), why = 0;
	unsigned int j;

	for (j = 0; j < tm->nents; j++) {
		o = &tm->ents[j];
		if (o->kind != MP_TM_PLANE || same_dev(e, o) ||
		    dev_len(o) != len || strncmp(e->name, o->name, len))
			continue;
		why |= o->source != e->source ? BY_NODE : BY_NETNS;
	}
	return why;
}

/*
 * Two devices whose planes would share a device name (the mp0 of two
 * hosts) are told apart: by the node of their sources, and within one
 * source by the inode of an unnamed namespace (the recorder's own stays
 * bare).  Decided for all first, so that renaming one does not hide the
 * clash from the other.
 */
static void disambiguate_planes(struct mp_tm *tm)
{
	int *why = calloc(tm->nents ? tm->nents : 1, sizeof(*why));
	char node[64], ns[32], old[96];
	struct mp_tm_entity *e;
	unsigned int i;

	if (!why)
		return;
	for (i = 0; i < tm->nents; i++)
		if (tm->ents[i].kind == MP_TM_PLANE)
			why[i] = plane_clash(tm, i);
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (!why[i])
			continue;
		node[0] = ns[0] = 0;
		if (why[i] & BY_NODE)
			mp_tm_node(tm, e->source, node, sizeof(node));
		if ((why[i] & BY_NETNS) && canon_netns(tm, e->source, e->netns))
			snprintf(ns, sizeof(ns), "ns%u", e->netns);
		snprintf(old, sizeof(old), "%s", e->name);
		snprintf(e->name, sizeof(e->name), "%.15s%s%.15s%s%.60s", node,
			 *node ? ":" : "", ns, *ns ? ":" : "", old);
	}
	free(why);
}

/* The same name for two entities: put each one's node in front. */
static void disambiguate(struct mp_tm *tm)
{
	char node[64], old[96];
	unsigned int i, j;
	bool dup;

	disambiguate_planes(tm);
	for (i = 0; i < tm->nents; i++) {
		if (tm->ents[i].kind != MP_TM_COUNTER)
			continue;
		for (dup = false, j = 0; j < tm->nents && !dup; j++)
			dup = j != i && !strcmp(tm->ents[i].name,
						tm->ents[j].name) &&
			      tm->ents[i].source != tm->ents[j].source;
		if (!dup)
			continue;
		/* Every copy is renamed in its turn: compare old names. */
		snprintf(old, sizeof(old), "%s", tm->ents[i].name);
		for (j = i; j < tm->nents; j++) {
			if (strcmp(tm->ents[j].name, old))
				continue;
			mp_tm_node(tm, tm->ents[j].source, node, sizeof(node));
			snprintf(tm->ents[j].name, sizeof(tm->ents[j].name),
				 "%.15s:%.79s", node, old);
		}
	}
}

/* "rail0/tx_bytes" of a netdev counter: the rail's name, or false. */
static bool rail_tx(const struct mp_tm *tm, const struct mp_tm_entity *e,
		    char *dev, size_t size)
{
	const struct mp_tm_name *n = find_name(tm, e->source, true,
					       e->counter_id);
	const char *slash;
	unsigned int i;

	if (!n || n->counter_kind != MPLANE_COUNTER_NETDEV)
		return false;
	slash = strrchr(n->name, '/');
	if (!slash || strcmp(slash, "/tx_bytes"))
		return false;
	snprintf(dev, size, "%.*s", (int)(slash - n->name), n->name);
	/* An mplane device is the sum of its rails, not one of them; the
	 * pollers read the recorder's namespace only. */
	for (i = 0; i < tm->nents; i++) {
		const struct mp_tm_entity *p = &tm->ents[i];
		char pdev[80];

		if (p->kind != MP_TM_PLANE ||
		    canon_netns(tm, p->source, p->netns))
			continue;
		ifname(tm, p->source, p->netns, p->ifindex, pdev,
		       sizeof(pdev));
		if (!strcmp(pdev, dev))
			return false;
	}
	return true;
}

static int group(struct mp_tm *tm, enum mp_tm_kind kind, const char *name)
{
	struct mp_tm_group *g;
	unsigned int i;

	for (i = 0; i < tm->ngroups; i++)
		if (tm->groups[i].kind == kind &&
		    !strcmp(tm->groups[i].name, name))
			return i;
	g = grow(&tm->groups, &tm->ngroups, sizeof(*g));
	if (!g)
		return -1;
	g->kind = kind;
	snprintf(g->name, sizeof(g->name), "%s", name);
	return tm->ngroups - 1;
}

static void group_entities(struct mp_tm *tm)
{
	char gname[96], dev[80], node[64];
	struct mp_tm_entity *e;
	const char *slash;
	unsigned int i;

	tm->ngroups = 0;
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		e->group = -1;
		mp_tm_node(tm, e->source, node, sizeof(node));
		switch (e->kind) {
		case MP_TM_PLANE:
			/* The device part of "[node:]mp0/plane1". */
			slash = strrchr(e->name, '/');
			snprintf(gname, sizeof(gname), "%.*s",
				 (int)(slash - e->name), e->name);
			break;
		case MP_TM_PORT:
			/* Like with like: a leaf's uplinks ("s0", "s1") apart
			 * from its host ports ("h0"), by the letters that
			 * start the port's name: "p0l0/s*". */
			slash = strrchr(e->name, '/');
			slash = slash ? slash + 1 : e->name;
			snprintf(gname, sizeof(gname), "%s/%.*s*", node,
				 (int)strcspn(slash, "0123456789"), slash);
			break;
		default:
			if (!rail_tx(tm, e, dev, sizeof(dev)))
				continue;
			snprintf(gname, sizeof(gname), "%s rails", node);
			break;
		}
		e->group = group(tm, e->kind, gname);
	}
}

static int by_ts(const void *a, const void *b)
{
	const struct mp_tm_anomaly *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

void mp_tm_release(struct mp_tm *tm, uint64_t now_ns)
{
	if (tm->evq.n && now_ns > tm->o.hold_ns)
		mp_evq_release(&tm->evq, now_ns - tm->o.hold_ns, release_cb,
			       tm);
}

void mp_tm_finish(struct mp_tm *tm)
{
	mp_evq_release(&tm->evq, ~0ULL, release_cb, tm);
	if (tm->nanoms)
		qsort(tm->anoms, tm->nanoms, sizeof(*tm->anoms), by_ts);
	mp_tm_refresh(tm);
}

/*
 * A QP is named after its device as the device's planes are: the device
 * part of a plane's name ("h1:mp0" of "h1:mp0/plane0"), or, before any
 * plane of it is seen, what a plane of it would be named.
 */
static void name_qp(const struct mp_tm *tm, struct mp_tm_qp *q)
{
	const struct mp_tm_entity *o = NULL;
	struct mp_tm_entity tmp;
	unsigned int i;

	for (i = 0; i < tm->nents && !o; i++)
		if (tm->ents[i].kind == MP_TM_PLANE &&
		    tm->ents[i].source == q->source &&
		    tm->ents[i].netns == q->netns &&
		    tm->ents[i].ifindex == q->ifindex)
			o = &tm->ents[i];
	if (!o) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.kind = MP_TM_PLANE;
		tmp.source = q->source;
		tmp.netns = q->netns;
		tmp.ifindex = q->ifindex;
		name_entity(tm, &tmp);
		o = &tmp;
	}
	snprintf(q->node, sizeof(q->node), "%s", o->node);
	snprintf(q->dev, sizeof(q->dev), "%s", o->dev);
	snprintf(q->name, sizeof(q->name), "%.*s/qp%u",
		 dev_len(o) < 80 ? dev_len(o) : 80, o->name, q->qpn);
}

void mp_tm_refresh(struct mp_tm *tm)
{
	unsigned int i;

	if (!tm->dirty)
		return;
	for (i = 0; i < tm->nents; i++)
		name_entity(tm, &tm->ents[i]);
	disambiguate(tm);
	group_entities(tm);
	for (i = 0; i < tm->nqps; i++)
		name_qp(tm, &tm->qps[i]);
	tm->dirty = false;
}

bool mp_tm_plane_stat(const struct mp_tm *tm, const struct mp_tm_entity *e,
		      const char *const *stats, char *dev, size_t dev_size,
		      unsigned int *plane, const char **stat, char *node,
		      size_t node_size)
{
	static const char mark[] = "/ethtool/plane";
	const struct mp_tm_name *n;
	const struct mp_tm_entity *o;
	const char *p, *s;
	unsigned long v;
	unsigned int i;
	char *end;

	if (e->kind != MP_TM_COUNTER)
		return false;
	n = find_name(tm, e->source, true, e->counter_id);
	if (!n || n->counter_kind != MPLANE_COUNTER_ETHTOOL)
		return false;
	p = strstr(n->name, mark);
	if (!p || p[sizeof(mark) - 1] < '0' || p[sizeof(mark) - 1] > '9')
		return false;
	v = strtoul(p + sizeof(mark) - 1, &end, 10);
	if (*end != '_' || !end[1] || v >= MPLANE_EVENT_NO_PLANE)
		return false;
	s = end + 1;
	for (i = 0; stats && stats[i] && strcmp(stats[i], s); i++)
		;
	if (stats && !stats[i])
		return false;
	snprintf(dev, dev_size, "%.*s", (int)(p - n->name), n->name);
	*plane = v;
	*stat = s;
	/* The pollers read the recorder's namespace: the planes of the
	 * device there, whatever source saw them. */
	for (i = 0; i < tm->nents; i++) {
		o = &tm->ents[i];
		if (o->kind == MP_TM_PLANE && o->plane == v &&
		    !canon_netns(tm, o->source, o->netns) &&
		    !strcmp(o->dev, dev)) {
			snprintf(node, node_size, "%s", o->node);
			return true;
		}
	}
	mp_tm_node(tm, e->source, node, node_size);
	return true;
}

/* Symmetry */

/*
 * Square root by Newton's method: the one libm function the model needs,
 * so that it (and its unit test) links without libm.  Ten steps from a
 * start within a factor of two are exact to a double's precision.
 */
static double root(double x)
{
	double r = 1;
	int i;

	if (x <= 0)
		return 0;
	while (r * r * 4 < x)
		r *= 2;
	while (r * r > x * 4)
		r /= 2;
	for (i = 0; i < 10; i++)
		r = (r + x / r) / 2;
	return r;
}

static bool member(const struct mp_tm_entity *e, unsigned int g,
		   enum mp_tm_bw which, double *bw)
{
	if (e->group != (int)g)
		return false;
	*bw = mp_tm_bw(e, which);
	return *bw >= 0;
}

void mp_tm_symmetry(const struct mp_tm *tm, unsigned int g,
		    enum mp_tm_bw which, struct mp_tm_symmetry *sym)
{
	double bw, sum = 0, sq = 0;
	unsigned int i;

	memset(sym, 0, sizeof(*sym));
	for (i = 0; i < tm->nents; i++) {
		if (!member(&tm->ents[i], g, which, &bw))
			continue;
		if (!sym->members || bw > sym->max_bps)
			sym->max_bps = bw;
		if (!sym->members || bw < sym->min_bps)
			sym->min_bps = bw;
		sym->members++;
		sum += bw;
	}
	if (!sym->members)
		return;
	sym->mean_bps = sum / sym->members;
	for (i = 0; i < tm->nents; i++)
		if (member(&tm->ents[i], g, which, &bw))
			sq += (bw - sym->mean_bps) * (bw - sym->mean_bps);
	if (sym->mean_bps <= 0)
		return;
	sym->max_mean = sym->max_bps / sym->mean_bps;
	sym->cv = root(sq / sym->members) / sym->mean_bps;
	for (i = 0; i < tm->nents; i++)
		if (mp_tm_slow(tm, sym, &tm->ents[i], which) &&
		    tm->ents[i].group == (int)g)
			sym->slow++;
	sym->flagged = sym->max_mean > tm->o.sym_threshold || sym->slow;
}

bool mp_tm_slow(const struct mp_tm *tm, const struct mp_tm_symmetry *sym,
		const struct mp_tm_entity *e, enum mp_tm_bw which)
{
	double bw = mp_tm_bw(e, which);

	return bw >= 0 && sym->mean_bps > 0 &&
	       sym->mean_bps > tm->o.sym_threshold * bw;
}

/* Names */

const char *mp_tm_kind_name(enum mp_tm_kind kind)
{
	static const char *const names[] = {
		[MP_TM_PLANE] = "plane", [MP_TM_PORT] = "port",
		[MP_TM_COUNTER] = "counter",
	};

	return kind < __MP_TM_KIND_MAX ? names[kind] : "?";
}

const char *mp_tm_anomaly_name(enum mp_tm_anomaly_type type)
{
	static const char *const names[] = {
		[MP_TM_AN_FAILOVER] = "failover",
		[MP_TM_AN_PLANE_DOWN] = "plane_down",
		[MP_TM_AN_PORT_DOWN] = "port_down",
		[MP_TM_AN_ECN_STORM] = "ecn_storm",
		[MP_TM_AN_FAULT] = "fault",
	};

	return type < __MP_TM_AN_MAX ? names[type] : "?";
}

const char *mp_tm_state_name(const struct mp_tm_entity *e)
{
	static const char *const planes[] = {
		[MPLANE_PLANE_UP] = "up", [MPLANE_PLANE_DOWN] = "down",
		[MPLANE_PLANE_CONGESTED] = "congested",
		[MPLANE_PLANE_PROBING] = "probing",
		[MPLANE_PLANE_ADMIN_DOWN] = "admin-down",
	};

	if (e->state < 0)
		return "-";
	if (e->kind == MP_TM_PORT)
		return e->state ? "up" : "down";
	return e->state < __MPLANE_PLANE_STATE_MAX ? planes[e->state] : "?";
}
