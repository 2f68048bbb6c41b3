// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_tm.h"
#include "mplane_capture.h"
#include "mplane_events.h"
#include "mplane_mark_proto.h"

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
	tm->scratch = malloc(sizeof(*tm->scratch));
	return tm->scratch ? 0 : -ENOMEM;
}

void mp_tm_free(struct mp_tm *tm)
{
	unsigned int i;

	for (i = 0; i < tm->nents; i++) {
		mp_hist_sparse_free(&tm->ents[i].queue);
		mp_hist_sparse_free(&tm->ents[i].gaps);
	}
	for (i = 0; i < tm->npids; i++)
		mp_hist_sparse_free(&tm->pids[i].hist);
	for (i = 0; i < tm->nranks; i++)
		mp_hist_sparse_free(&tm->ranks[i].hist);
	free(tm->scratch);
	free(tm->ents);
	mp_index_free(&tm->ent_index);
	free(tm->groups);
	mp_index_free(&tm->group_index);
	free(tm->anoms);
	free(tm->pids);
	free(tm->ranks);
	free(tm->names);
	mp_index_free(&tm->name_index);
	free(tm->netns);
	mp_index_free(&tm->netns_index);
	free(tm->qps);
	mp_index_free(&tm->qp_index);
	free(tm->sources);
	mp_index_free(&tm->source_index);
	mp_evq_free(&tm->evq);
	memset(tm, 0, sizeof(*tm));
}

/* Copies */

/* What grow() takes to be there for @n elements. */
static size_t grown(unsigned int n)
{
	size_t cap = 4;

	if (!n)
		return 0;
	while (cap < n)
		cap *= 2;
	return cap;
}

/* A copy of @n elements of @size that grow() can go on from. */
static int dup_array(void *dst_p, const void *src, unsigned int n,
		     size_t size)
{
	void **dst = dst_p;

	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(grown(n) * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, (size_t)n * size);
	return 0;
}

static int dup_index(struct mp_index *dst, const struct mp_index *src)
{
	*dst = *src;
	dst->slot = NULL;
	if (!src->size)
		return 0;
	dst->slot = malloc(src->size * sizeof(*dst->slot));
	if (!dst->slot)
		return -ENOMEM;
	memcpy(dst->slot, src->slot, src->size * sizeof(*dst->slot));
	return 0;
}

/* @dst, a byte copy of @src, gets buckets of its own. */
static int dup_sparse(struct mp_hist_sparse *dst,
		      const struct mp_hist_sparse *src)
{
	*dst = *src;
	dst->b = NULL;
	if (!src->n)
		return 0;
	dst->b = malloc(src->cap * sizeof(*dst->b));
	if (!dst->b) {
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	memcpy(dst->b, src->b, src->n * sizeof(*dst->b));
	return 0;
}

int mp_tm_copy(struct mp_tm *dst, const struct mp_tm *src)
{
	unsigned int i;
	int err = 0;

	/* Every table is copied, even after one failed, so that none is
	 * left pointing at @src's when @dst is freed. */
	*dst = *src;
	memset(&dst->evq, 0, sizeof(dst->evq));
	dst->scratch = malloc(sizeof(*dst->scratch));
	if (!dst->scratch)
		err = -ENOMEM;
	err |= dup_array(&dst->sources, src->sources, src->nsources,
			 sizeof(*src->sources));
	err |= dup_array(&dst->groups, src->groups, src->ngroups,
			 sizeof(*src->groups));
	err |= dup_array(&dst->anoms, src->anoms, src->nanoms,
			 sizeof(*src->anoms));
	err |= dup_array(&dst->pids, src->pids, src->npids, sizeof(*src->pids));
	err |= dup_array(&dst->ranks, src->ranks, src->nranks,
			 sizeof(*src->ranks));
	err |= dup_array(&dst->names, src->names, src->nnames,
			 sizeof(*src->names));
	err |= dup_array(&dst->netns, src->netns, src->nnetns,
			 sizeof(*src->netns));
	err |= dup_array(&dst->qps, src->qps, src->nqps, sizeof(*src->qps));
	err |= dup_index(&dst->source_index, &src->source_index);
	err |= dup_index(&dst->ent_index, &src->ent_index);
	err |= dup_index(&dst->group_index, &src->group_index);
	err |= dup_index(&dst->name_index, &src->name_index);
	err |= dup_index(&dst->netns_index, &src->netns_index);
	err |= dup_index(&dst->qp_index, &src->qp_index);
	err |= dup_array(&dst->ents, src->ents, src->nents, sizeof(*src->ents));
	if (!dst->ents)
		dst->nents = 0;
	if (!dst->pids)
		dst->npids = 0;
	if (!dst->ranks)
		dst->nranks = 0;
	/* Each histogram's buckets are its own, or nobody's: none is left
	 * pointing at @src's when a copy fails half way. */
	for (i = 0; i < dst->nents; i++) {
		memset(&dst->ents[i].queue, 0, sizeof(dst->ents[i].queue));
		memset(&dst->ents[i].gaps, 0, sizeof(dst->ents[i].gaps));
	}
	for (i = 0; i < dst->npids; i++)
		memset(&dst->pids[i].hist, 0, sizeof(dst->pids[i].hist));
	for (i = 0; i < dst->nranks; i++)
		memset(&dst->ranks[i].hist, 0, sizeof(dst->ranks[i].hist));
	for (i = 0; i < dst->nents; i++) {
		err |= dup_sparse(&dst->ents[i].queue, &src->ents[i].queue);
		err |= dup_sparse(&dst->ents[i].gaps, &src->ents[i].gaps);
	}
	for (i = 0; i < dst->npids; i++)
		err |= dup_sparse(&dst->pids[i].hist, &src->pids[i].hist);
	for (i = 0; i < dst->nranks; i++)
		err |= dup_sparse(&dst->ranks[i].hist, &src->ranks[i].hist);
	if (err) {
		mp_tm_free(dst);
		return -ENOMEM;
	}
	return 0;
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

static unsigned int ent_hash(unsigned int idx, const void *arg)
{
	const struct mp_tm *tm = arg;
	struct ent_key k;

	key_of(&tm->ents[idx], &k);
	return key_hash(&k);
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
	unsigned int probe = key_hash(k);
	int i;

	while ((i = mp_index_next(&tm->ent_index, &probe)) >= 0)
		if (ent_is(&tm->ents[i], k))
			return i;
	return -1;
}

/* Whether @source named any namespace (CF_NETNS): the kmod relay does. */
static bool names_netns(const struct mp_tm *tm, unsigned int source)
{
	const struct mp_tm_source *s = mp_tm_source(tm, source);

	return s && s->names_netns;
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

const struct mp_hist *mp_tm_expand(const struct mp_tm *tm,
				   const struct mp_hist_sparse *h)
{
	if (!h->count)
		return NULL;
	mp_hist_sparse_expand(h, tm->scratch);
	return tm->scratch;
}

const struct mp_hist *mp_tm_queue(const struct mp_tm *tm,
				  const struct mp_tm_entity *e)
{
	return mp_tm_expand(tm, &e->queue);
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
	if (tm->nents >= MP_TM_ENTS_MAX) {
		tm->ents_refused++;
		return -1;
	}
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
	if (mp_index_add(&tm->ent_index, key_hash(k), tm->nents - 1, ent_hash,
			 tm)) {
		tm->nents--;
		return -1;
	}
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

/* @gaps: the entity's delivery-gap histogram, for a series with gaps. */
static uint64_t series_add(struct mp_tm *tm, struct mp_tm_series *s,
			   struct mp_hist_sparse *gaps, uint64_t ts, uint64_t v)
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
			mp_hist_sparse_add(gaps, ts - s->inc_ts);
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
	struct mp_tm_anomaly *a = NULL;

	tm->anom_count[type]++;
	if (ent >= 0)
		tm->ents[ent].anomalies++;
	if (type != MP_TM_AN_ECN_STORM && type != MP_TM_AN_FAULT &&
	    !tm->fail_ts) {
		tm->fail_ts = ts ? ts : 1;
		split_all(tm);
	}
	if (tm->nanoms < MP_TM_ANOMS_MAX)
		a = grow(&tm->anoms, &tm->nanoms, sizeof(*a));
	if (!a)
		return NULL;
	a->ts_ns = ts;
	a->type = type;
	a->entity = ent;
	a->value = value;
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

	if (mp_hist_sparse_add(&e->queue, q))
		return;
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

/*
 * A new process or rank in table @arr of @n elements of @size, whose
 * uint64_t last mark and sparse histogram are at @ts_off and @hist_off:
 * a new element while the table is below the cap, else the one marked
 * least recently, emptied.  Its own timings go; the model's stay.
 */
static void *new_stepper(struct mp_tm *tm, void **arr, unsigned int *n,
			 size_t size, size_t ts_off, size_t hist_off)
{
	char *e, *oldest = NULL;
	unsigned int i;

	if (*n < MP_TM_STEPPERS_MAX)
		return grow(arr, n, size);
	for (i = 0; i < *n; i++) {
		e = (char *)*arr + (size_t)i * size;
		if (!oldest || *(uint64_t *)(e + ts_off) <
			       *(uint64_t *)(oldest + ts_off))
			oldest = e;
	}
	mp_hist_sparse_free((struct mp_hist_sparse *)(oldest + hist_off));
	memset(oldest, 0, size);
	tm->steppers_evicted++;
	return oldest;
}

/* One step time, in the model's histogram and in @own. */
static void step_time(struct mp_tm *tm, struct mp_hist_sparse *own,
		      uint64_t ns)
{
	mp_hist_add(&tm->steps, ns);
	mp_hist_sparse_add(own, ns);
}

static void step_mark(struct mp_tm *tm, unsigned int source,
		      const struct mplane_event *ev)
{
	uint32_t pid = ev->val[1];
	struct mp_tm_step_pid *p = NULL;
	unsigned int i;

	if (ev->val[2] != MPLANE_MARK_STEP)
		return;
	/* A pid is a process of one host: the same number on another
	 * source is another process. */
	for (i = 0; i < tm->npids && !p; i++)
		if (tm->pids[i].pid == pid && tm->pids[i].source == source)
			p = &tm->pids[i];
	if (!p) {
		p = new_stepper(tm, (void **)&tm->pids, &tm->npids, sizeof(*p),
				offsetof(struct mp_tm_step_pid, last_ts),
				offsetof(struct mp_tm_step_pid, hist));
		if (!p)
			return;
		p->source = source;
		p->pid = pid;
	} else if (ev->hdr.ts_ns >= p->last_ts) {
		step_time(tm, &p->hist, ev->hdr.ts_ns - p->last_ts);
	}
	p->last_ts = ev->hdr.ts_ns;
	p->steps++;
}

/* A collective iteration: from its begin to its end is one step. */
static void coll_mark(struct mp_tm *tm, unsigned int source,
		      const struct mplane_event *ev)
{
	struct mp_tm_step_rank *p = NULL;
	unsigned int i;

	for (i = 0; i < tm->nranks && !p; i++)
		if (tm->ranks[i].job == ev->hdr.ifindex &&
		    tm->ranks[i].rank == ev->val[1])
			p = &tm->ranks[i];
	if (!p && ev->val[2] == MPLANE_MARK_STEP) {
		p = new_stepper(tm, (void **)&tm->ranks, &tm->nranks,
				sizeof(*p),
				offsetof(struct mp_tm_step_rank, last_ts),
				offsetof(struct mp_tm_step_rank, hist));
		if (!p)
			return;
		p->source = source;
		p->job = ev->hdr.ifindex;
		p->rank = ev->val[1];
	}
	if (!p)
		return;
	p->last_ts = ev->hdr.ts_ns;
	if (ev->val[2] == MPLANE_MARK_STEP) {
		p->iter = ev->val[0];
		p->begin_ts = ev->hdr.ts_ns;
	} else if (ev->val[2] == MPLANE_MARK_STEP_END && p->begin_ts &&
		   p->iter == ev->val[0] && ev->hdr.ts_ns >= p->begin_ts) {
		step_time(tm, &p->hist, ev->hdr.ts_ns - p->begin_ts);
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
	unsigned int probe = qp_hash_of(source, netns, ifindex, qpn);
	int i;

	while ((i = mp_index_next(&tm->qp_index, &probe)) >= 0)
		if (qp_is(&tm->qps[i], source, netns, ifindex, qpn))
			return i;
	return -1;
}

static unsigned int qp_hash(unsigned int idx, const void *arg)
{
	const struct mp_tm_qp *q = &((const struct mp_tm *)arg)->qps[idx];

	return qp_hash_of(q->source, q->netns, q->ifindex, q->qpn);
}

static int qp_index_add(struct mp_tm *tm, unsigned int idx)
{
	return mp_index_add(&tm->qp_index, qp_hash(idx, tm), idx, qp_hash, tm);
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
		/* Its old key leaves the index: every QP goes in anew, into
		 * a table already the size it needs. */
		mp_index_clear(&tm->qp_index);
		for (i = 0; i < tm->nqps; i++)
			qp_index_add(tm, i);
	} else if (qp_index_add(tm, q - tm->qps)) {
		tm->nqps--;
		return NULL;
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
		step_mark(tm, source, ev);
		return;
	case MPLANE_EV_COLLECTIVE:
		coll_mark(tm, source, ev);
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
		series_add(tm, &e->tx_bytes, &e->gaps, ts, ev->val[1]);
		n = series_add(tm, &e->ecn, &e->gaps, ts, ev->val[2]);
		if (h->type == MPLANE_EV_PLANE_SAMPLE)
			series_add(tm, &e->cnp, &e->gaps, ts, ev->val[3]);
		else
			series_add(tm, &e->tx_packets, &e->gaps, ts, ev->val[3]);
		ecn_marks(tm, i, ts, n);
		break;
	case MPLANE_EV_QUEUE_SAMPLE:
		queue_sample(tm, i, ev->val[0]);
		series_add(tm, &e->tx_packets, &e->gaps, ts, ev->val[2]);
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
		series_add(tm, &e->tx_bytes, &e->gaps, ts, ev->val[0]);
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

static unsigned int source_key_hash(unsigned int id)
{
	return (id * 0x9e3779b97f4a7c15ULL) >> 32;
}

static unsigned int source_hash(unsigned int idx, const void *arg)
{
	return source_key_hash(((const struct mp_tm *)arg)->sources[idx].id);
}

const struct mp_tm_source *mp_tm_source(const struct mp_tm *tm,
					unsigned int id)
{
	unsigned int probe = source_key_hash(id);
	int i;

	while ((i = mp_index_next(&tm->source_index, &probe)) >= 0)
		if (tm->sources[i].id == id)
			return &tm->sources[i];
	return NULL;
}

/* Sources are kept as they come, not by id: a frame of source 65535
 * costs one entry, not 65536. */
static struct mp_tm_source *source_get(struct mp_tm *tm, unsigned int id)
{
	const struct mp_tm_source *found = mp_tm_source(tm, id);
	struct mp_tm_source *s;

	if (found)
		return &tm->sources[found - tm->sources];
	s = grow(&tm->sources, &tm->nsources, sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	if (mp_index_add(&tm->source_index, source_key_hash(id),
			 tm->nsources - 1, source_hash, tm)) {
		tm->nsources--;
		return NULL;
	}
	return s;
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

/* Names, keyed by (source, counter, id): an interface's id is its
 * ifindex, and interfaces of several namespaces share one. */

static uint32_t name_id(const struct mp_tm_name *n)
{
	return n->counter ? n->id : n->ifindex;
}

static unsigned int name_key_hash(unsigned int source, bool counter,
				  uint32_t id)
{
	uint64_t h = ((uint64_t)source << 33) ^ ((uint64_t)counter << 32) ^ id;

	h *= 0x9e3779b97f4a7c15ULL;
	return h >> 32;
}

static unsigned int name_hash(unsigned int idx, const void *arg)
{
	const struct mp_tm_name *n = &((const struct mp_tm *)arg)->names[idx];

	return name_key_hash(n->source, n->counter, name_id(n));
}

/*
 * Where the name of @key goes: the one announced before under the same
 * key and namespace, which the newest replaces, or a new one.  NULL: no
 * memory, or past the cap (counted).
 */
static struct mp_tm_name *name_slot(struct mp_tm *tm,
				    const struct mp_tm_name *key)
{
	unsigned int hash = name_key_hash(key->source, key->counter,
					  name_id(key)), probe = hash;
	struct mp_tm_name *n;
	int i;

	while ((i = mp_index_next(&tm->name_index, &probe)) >= 0) {
		n = &tm->names[i];
		if (n->source == key->source && n->counter == key->counter &&
		    name_id(n) == name_id(key) && n->netns == key->netns)
			return n;
	}
	if (tm->nnames >= MP_TM_NAMES_MAX) {
		tm->names_refused++;
		return NULL;
	}
	n = grow(&tm->names, &tm->nnames, sizeof(*n));
	if (!n)
		return NULL;
	if (mp_index_add(&tm->name_index, hash, tm->nnames - 1, name_hash,
			 tm)) {
		tm->nnames--;
		return NULL;
	}
	return n;
}

static int name_frame(struct mp_tm *tm, unsigned int kind,
		      unsigned int source, const void *payload, size_t len)
{
	const struct mplane_capture_counter_name *cn = payload;
	const struct mplane_capture_ifname *ifn = payload;
	struct mp_tm_name key = { .source = source }, *n;

	/* An ifname without netns (20 bytes, older captures) is netns 0. */
	if (kind == MPLANE_CF_IFNAME ?
	    len < offsetof(struct mplane_capture_ifname, netns) :
	    len <= sizeof(*cn))
		return 0;
	if (kind == MPLANE_CF_IFNAME) {
		key.ifindex = ifn->ifindex;
		if (len >= sizeof(*ifn))
			key.netns = ifn->netns;
		snprintf(key.name, sizeof(key.name), "%.*s",
			 (int)sizeof(ifn->name), ifn->name);
	} else {
		key.counter = true;
		key.id = cn->id;
		key.counter_kind = cn->kind;
		key.ifindex = cn->ifindex;
		snprintf(key.name, sizeof(key.name), "%.*s",
			 (int)(len - sizeof(*cn)), cn->name);
	}
	n = name_slot(tm, &key);
	if (!n)
		return tm->nnames >= MP_TM_NAMES_MAX ? 0 : -ENOMEM;
	*n = key;
	tm->dirty = true;
	return 0;
}

static unsigned int netns_key_hash(unsigned int source, uint32_t inode)
{
	uint64_t h = ((uint64_t)source << 32) ^ inode;

	h *= 0x9e3779b97f4a7c15ULL;
	return h >> 32;
}

static unsigned int netns_hash(unsigned int idx, const void *arg)
{
	const struct mp_tm_netns *n = &((const struct mp_tm *)arg)->netns[idx];

	return netns_key_hash(n->source, n->inode);
}

static int netns_lookup(const struct mp_tm *tm, unsigned int source,
			uint32_t inode)
{
	unsigned int probe = netns_key_hash(source, inode);
	int i;

	while ((i = mp_index_next(&tm->netns_index, &probe)) >= 0)
		if (tm->netns[i].source == source &&
		    tm->netns[i].inode == inode)
			return i;
	return -1;
}

static int netns_frame(struct mp_tm *tm, struct mp_tm_source *src,
		       unsigned int source, const void *payload, size_t len)
{
	const struct mplane_capture_netns *cn = payload;
	struct mp_tm_netns *n;
	int i;

	if (len < sizeof(*cn))
		return 0;
	src->names_netns = true;
	i = netns_lookup(tm, source, cn->inode);
	if (i >= 0) {
		n = &tm->netns[i];
	} else if (tm->nnetns >= MP_TM_NAMES_MAX) {
		tm->names_refused++;
		return 0;
	} else {
		n = grow(&tm->netns, &tm->nnetns, sizeof(*n));
		if (!n)
			return -ENOMEM;
		n->source = source;
		n->inode = cn->inode;
		if (mp_index_add(&tm->netns_index,
				 netns_key_hash(source, cn->inode),
				 tm->nnetns - 1, netns_hash, tm)) {
			tm->nnetns--;
			return -ENOMEM;
		}
	}
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
		return netns_frame(tm, src, source, payload, len);
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
	const struct mp_tm_source *s = mp_tm_source(tm, source);
	const char *label = s ? s->label : "";
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

/* The newest name of (@source, @counter, @id), of any namespace. */
static const struct mp_tm_name *find_name(const struct mp_tm *tm,
					  unsigned int source, bool counter,
					  uint32_t id)
{
	unsigned int probe = name_key_hash(source, counter, id);
	const struct mp_tm_name *n, *found = NULL;
	int i;

	while ((i = mp_index_next(&tm->name_index, &probe)) >= 0) {
		n = &tm->names[i];
		if (n->source == source && n->counter == counter &&
		    name_id(n) == id && (!found || n > found))
			found = n;
	}
	return found;
}

/* The newest name @source gave namespace @inode, or NULL. */
static const char *netns_name(const struct mp_tm *tm, unsigned int source,
			      uint32_t inode)
{
	int i = netns_lookup(tm, source, inode);

	return i < 0 ? NULL : tm->netns[i].name;
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
	unsigned int probe = name_key_hash(source, false, ifindex);
	uint32_t want = canon_netns(tm, source, netns);
	const struct mp_tm_name *n, *found = NULL;
	int i;

	while ((i = mp_index_next(&tm->name_index, &probe)) >= 0) {
		n = &tm->names[i];
		if (n->source == source && !n->counter &&
		    n->ifindex == ifindex && (!found || n > found) &&
		    canon_netns(tm, source, n->netns) == want)
			found = n;
	}
	return found;
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
		if (n) {
			snprintf(e->name, sizeof(e->name), "%s", n->name);
			e->counter_kind = n->counter_kind;
		} else {
			snprintf(e->name, sizeof(e->name), "counter%u",
				 e->counter_id);
		}
		break;
	}
}

/* The device part of a plane's name: "h1:mp0" of "h1:mp0/plane0". */
static int dev_len(const struct mp_tm_entity *e)
{
	const char *slash = strrchr(e->name, '/');

	return slash ? slash - e->name : (int)strlen(e->name);
}

/*
 * Renaming and grouping sort the entities instead of comparing each with
 * every other, so that a capture of many loads in O(E log E).  What the
 * sorts order: an entity's index and a name (part of one) to compare.
 */
struct ent_ref {
	unsigned int idx;
	const char *name;
	int len;
	unsigned int source;
	uint32_t netns, ifindex;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ent_ref *x = a, *y = b;
	int len = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, len);

	if (c || x->len != y->len)
		return c ? c : x->len - y->len;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The entities of @kind (all: __MP_TM_KIND_MAX), sorted by @len_of's part
 * of their names (NULL: none), then device and index; *@n of them.  NULL:
 * no memory. */
static struct ent_ref *sorted_refs(const struct mp_tm *tm,
				   enum mp_tm_kind kind,
				   int (*len_of)(const struct mp_tm_entity *),
				   unsigned int *n)
{
	struct ent_ref *refs = malloc((tm->nents ? tm->nents : 1) *
				      sizeof(*refs));
	const struct mp_tm_entity *e;
	unsigned int i;

	*n = 0;
	if (!refs)
		return NULL;
	for (i = 0; i < tm->nents; i++) {
		e = &tm->ents[i];
		if (kind != __MP_TM_KIND_MAX && e->kind != kind)
			continue;
		refs[(*n)++] = (struct ent_ref) {
			.idx = i, .name = e->name,
			.len = len_of ? len_of(e) : 0,
			.source = e->source, .netns = e->netns,
			.ifindex = e->ifindex,
		};
	}
	qsort(refs, *n, sizeof(*refs), ref_cmp);
	return refs;
}

static int name_len(const struct mp_tm_entity *e)
{
	return strlen(e->name);
}

/* The end of the run of names equal to refs[from]'s. */
static unsigned int run_end(const struct ent_ref *refs, unsigned int n,
			    unsigned int from)
{
	unsigned int to = from + 1;

	while (to < n && refs[to].len == refs[from].len &&
	       !memcmp(refs[to].name, refs[from].name, refs[from].len))
		to++;
	return to;
}

static bool ref_same_dev(const struct ent_ref *a, const struct ent_ref *b)
{
	return a->source == b->source && a->netns == b->netns &&
	       a->ifindex == b->ifindex;
}

enum { BY_NODE = 1, BY_NETNS = 2 };

/*
 * Why the planes of one run of device names need more in their names:
 * another source has a device of that name (BY_NODE), or another device
 * of their own source has (BY_NETNS).  The run is sorted by source, then
 * device.
 */
static void plane_clash(const struct ent_ref *refs, unsigned int from,
			unsigned int to, int *why)
{
	unsigned int i, s, devs;
	bool sources = refs[from].source != refs[to - 1].source;

	for (s = from; s < to; s = i) {
		devs = 1;
		for (i = s + 1; i < to && refs[i].source == refs[s].source;
		     i++)
			devs += !ref_same_dev(&refs[i], &refs[i - 1]);
		while (s < i)
			why[refs[s++].idx] = (sources ? BY_NODE : 0) |
					     (devs > 1 ? BY_NETNS : 0);
	}
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
	unsigned int i, n, to;
	struct mp_tm_entity *e;
	struct ent_ref *refs;

	refs = why ? sorted_refs(tm, MP_TM_PLANE, dev_len, &n) : NULL;
	if (!refs) {
		free(why);
		return;
	}
	for (i = 0; i < n; i = to) {
		to = run_end(refs, n, i);
		plane_clash(refs, i, to, why);
	}
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
	free(refs);
	free(why);
}

/*
 * A counter whose name another source's entity has too: each entity of
 * that name from the counter on (in index order) gets its node in front.
 */
static void disambiguate_run(struct mp_tm *tm, const struct ent_ref *refs,
			     unsigned int from, unsigned int to)
{
	unsigned int i, first = UINT32_MAX;
	char node[64], old[96];
	struct mp_tm_entity *e;

	if (refs[from].source == refs[to - 1].source)
		return;
	for (i = from; i < to; i++)
		if (tm->ents[refs[i].idx].kind == MP_TM_COUNTER &&
		    refs[i].idx < first)
			first = refs[i].idx;
	for (i = from; i < to && first != UINT32_MAX; i++) {
		e = &tm->ents[refs[i].idx];
		if (refs[i].idx < first)
			continue;
		snprintf(old, sizeof(old), "%s", e->name);
		mp_tm_node(tm, e->source, node, sizeof(node));
		snprintf(e->name, sizeof(e->name), "%.15s:%.79s", node, old);
	}
}

/* The same name for two entities: put each one's node in front. */
static void disambiguate(struct mp_tm *tm)
{
	unsigned int i, n, to;
	struct ent_ref *refs;

	disambiguate_planes(tm);
	refs = sorted_refs(tm, __MP_TM_KIND_MAX, name_len, &n);
	if (!refs)
		return;
	/* A run is found before it is renamed, and renaming it changes
	 * none of the names the next runs are found by. */
	for (i = 0; i < n; i = to) {
		to = run_end(refs, n, i);
		disambiguate_run(tm, refs, i, to);
	}
	free(refs);
}

/* The device names of the planes in the recorder's namespace, sorted:
 * what rail_tx() leaves out.  NULL: none, or no memory. */
struct dev_names {
	char (*name)[80];
	unsigned int n;
};

static int dev_name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void plane_devs(const struct mp_tm *tm, struct dev_names *d)
{
	const struct mp_tm_entity *p;
	unsigned int i;

	d->n = 0;
	d->name = malloc((tm->nents ? tm->nents : 1) * sizeof(*d->name));
	for (i = 0; d->name && i < tm->nents; i++) {
		p = &tm->ents[i];
		if (p->kind == MP_TM_PLANE &&
		    !canon_netns(tm, p->source, p->netns))
			ifname(tm, p->source, p->netns, p->ifindex,
			       d->name[d->n++], sizeof(d->name[0]));
	}
	if (d->name)
		qsort(d->name, d->n, sizeof(d->name[0]), dev_name_cmp);
}

/* "rail0/tx_bytes" of a netdev counter: the rail's name, or false. */
static bool rail_tx(const struct mp_tm *tm, const struct mp_tm_entity *e,
		    const struct dev_names *planes, char *dev, size_t size)
{
	const struct mp_tm_name *n = find_name(tm, e->source, true,
					       e->counter_id);
	char key[80];
	const char *slash;

	if (!n || n->counter_kind != MPLANE_COUNTER_NETDEV)
		return false;
	slash = strrchr(n->name, '/');
	if (!slash || strcmp(slash, "/tx_bytes"))
		return false;
	snprintf(dev, size, "%.*s", (int)(slash - n->name), n->name);
	/* An mplane device is the sum of its rails, not one of them; the
	 * pollers read the recorder's namespace only. */
	snprintf(key, sizeof(key), "%s", dev);
	return !planes->name || !bsearch(key, planes->name, planes->n,
					 sizeof(planes->name[0]),
					 dev_name_cmp);
}

static unsigned int group_key_hash(enum mp_tm_kind kind, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ kind;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

static unsigned int group_hash(unsigned int idx, const void *arg)
{
	const struct mp_tm_group *g = &((const struct mp_tm *)arg)->groups[idx];

	return group_key_hash(g->kind, g->name);
}

static int group(struct mp_tm *tm, enum mp_tm_kind kind, const char *name)
{
	unsigned int hash = group_key_hash(kind, name), probe = hash;
	struct mp_tm_group *g;
	int i;

	while ((i = mp_index_next(&tm->group_index, &probe)) >= 0)
		if (tm->groups[i].kind == kind &&
		    !strcmp(tm->groups[i].name, name))
			return i;
	g = grow(&tm->groups, &tm->ngroups, sizeof(*g));
	if (!g)
		return -1;
	g->kind = kind;
	snprintf(g->name, sizeof(g->name), "%s", name);
	if (mp_index_add(&tm->group_index, hash, tm->ngroups - 1, group_hash,
			 tm)) {
		tm->ngroups--;
		return -1;
	}
	return tm->ngroups - 1;
}

static void group_entities(struct mp_tm *tm)
{
	char gname[96], dev[80], node[64];
	struct dev_names planes;
	struct mp_tm_entity *e;
	const char *slash;
	unsigned int i;

	tm->ngroups = 0;
	mp_index_clear(&tm->group_index);
	plane_devs(tm, &planes);
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
			if (!rail_tx(tm, e, &planes, dev, sizeof(dev)))
				continue;
			snprintf(gname, sizeof(gname), "%s rails", node);
			break;
		}
		e->group = group(tm, e->kind, gname);
	}
	free(planes.name);
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
static int dev_cmp(const void *a, const void *b)
{
	const struct ent_ref *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static void name_qp(const struct mp_tm *tm, const struct ent_ref *planes,
		    unsigned int nplanes, struct mp_tm_qp *q)
{
	struct ent_ref key = {
		.source = q->source, .netns = q->netns, .ifindex = q->ifindex,
	};
	const struct ent_ref *found = NULL;
	const struct mp_tm_entity *o = NULL;
	struct mp_tm_entity tmp;

	if (planes)
		found = bsearch(&key, planes, nplanes, sizeof(*planes),
				dev_cmp);
	if (found)
		o = &tm->ents[found->idx];
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
	struct ent_ref *planes;
	unsigned int i, n = 0;

	if (!tm->dirty)
		return;
	for (i = 0; i < tm->nents; i++)
		name_entity(tm, &tm->ents[i]);
	disambiguate(tm);
	group_entities(tm);
	/* Any plane of a device names it: they share its part. */
	planes = tm->nqps ? sorted_refs(tm, MP_TM_PLANE, NULL, &n) : NULL;
	for (i = 0; i < tm->nqps; i++)
		name_qp(tm, planes, n, &tm->qps[i]);
	free(planes);
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
