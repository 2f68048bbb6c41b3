/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A reader's own ring of an object's events: a ring made for it and put
 * in a free slot of the object's mp_event_readers, so that it gets every
 * record however many others read mp_events (tools/include/
 * mplane_events.h).  A slot whose ring no process holds any more (its
 * reader was killed) is taken back by the next reader that finds no free
 * one.
 */
#ifndef MP_EV_READER_H
#define MP_EV_READER_H

#include <stdint.h>

struct mp_ev_reader {
	int readers_fd;		/* the object's mp_event_readers */
	int ring_fd;		/* ours */
	uint32_t ring_id;
	unsigned int slot;
};

/*
 * Make a ring and put it in a slot of the mp_event_readers pinned at
 * @readers_pin.  0, -ENOENT when the object has no such map (one loaded
 * by an older mplanectl), -EBUSY when every slot's ring is held by a
 * live reader, or -errno.
 */
int mp_ev_reader_claim(struct mp_ev_reader *r, const char *readers_pin);

/* Empty our slot (if the ring in it is still ours) and close both. */
void mp_ev_reader_release(struct mp_ev_reader *r);

#endif /* MP_EV_READER_H */
