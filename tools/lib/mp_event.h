/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Records of the mplane event stream (struct mplane_event in
 * tools/include/mplane_events.h): checking what a ring buffer hands over, naming
 * types and values, and putting records from several rings back into
 * timestamp order.
 */
#ifndef MP_EVENT_H
#define MP_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/mplane.h>
#include "mplane_events.h"
#include "mp_print.h"

/*
 * Copy the raw record @data of @size bytes into @e: 0, -EPROTO for a
 * version this reader does not know, -EINVAL for one too short for its
 * header or shorter than it claims.  Longer records (a newer writer's
 * trailing fields) are cut to what this reader knows; shorter ones are
 * zero-filled.
 */
int mp_event_decode(const void *data, size_t size, struct mplane_event *e);

/* "queue_sample", ...; NULL for a type this reader does not know. */
const char *mp_event_type_name(unsigned int type);

/* The type named @name: its value, or -1. */
int mp_event_type_parse(const char *name);

/* The name of val[@i] for @type ("q_bytes"), NULL when it is unused. */
const char *mp_event_val_name(unsigned int type, unsigned int i);

/*
 * The name of the value @val of val[@i] where it is an enum (RATE_UPDATE's
 * cause: "cut", "fast_recovery", ...), else NULL; a newer writer's value
 * has none either.
 */
const char *mp_event_val_label(unsigned int type, unsigned int i,
			       uint64_t val);

/*
 * Value @i of @e through mp_print to @to (MP_PRINT_ANY, or MP_PRINT_JSON
 * alone), when its type names it (every value of a type unknown, as
 * "v0".."v3").  JSON: "NAME": the number; for an enum, "NAME_id": the
 * number and "NAME": its name when it has one ("cause_id":0,
 * "cause":"cut"), so that a key has one type in every command.  Text:
 * " NAME=" the name, or the number, in hex where mp_event_val_hex() says.
 */
void mp_event_print_val(const struct mplane_event *e, unsigned int i,
			enum mp_print_to to);

/* enum mplane_rate_cause's name, or NULL. */
const char *mp_rate_cause_name(uint64_t cause);

/* Whether text shows val[@i] of @type in hex (a QPN, a plane mask). */
bool mp_event_val_hex(unsigned int type, unsigned int i);

/*
 * A reorder buffer.  Records from several rings, or from several CPUs of
 * one ring, arrive slightly out of order; records are held until they
 * are older than the newest by a hold time, then released sorted.
 */
struct mp_event_item {
	struct mplane_event ev;
	unsigned int source;		/* which ring, for the caller */
};

struct mp_evq {
	struct mp_event_item *items;
	size_t n;
	size_t cap;
	uint64_t released_ts;		/* the newest timestamp released */
	uint64_t late;			/* released after a newer one */
};

int mp_evq_push(struct mp_evq *q, const struct mplane_event *e,
		unsigned int source);

typedef void (*mp_evq_cb)(const struct mp_event_item *it, void *data);

/* Release, in timestamp order, every held record with ts_ns <= @upto;
 * ~0 releases all.  Returns how many. */
size_t mp_evq_release(struct mp_evq *q, uint64_t upto, mp_evq_cb cb,
		      void *data);

void mp_evq_free(struct mp_evq *q);

#endif /* MP_EVENT_H */
