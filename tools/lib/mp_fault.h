/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Fault events (MPLANE_EV_FAULT, put on the timeline by 'mplanectl fabric
 * fault') as people read them, from the event alone, without the
 * fabric's state file, which may be gone when a capture is read: where
 * the fault was made ("p0l0:s1", "p0s1", "plane 1") and what it did
 * ("down", "degrade 10mbit", "loss 1%").
 */
#ifndef MP_FAULT_H
#define MP_FAULT_H

#include <stddef.h>
#include <linux/mplane.h>
#include "mp_print.h"
#include "mplane_events.h"

/* Names of the uapi's fault values; "?" for one this reader lacks. */
const char *mp_fault_action_name(unsigned int action);
const char *mp_fault_target_name(unsigned int target);
const char *mp_fault_via_name(unsigned int via);

/* "p0l0:s1" (a link or port), "p0s1" (a switch), "plane 1", "fabric". */
char *mp_fault_where(const struct mplane_event *e, char *buf, size_t size);

/* "down", "degrade 10mbit", "loss 0.5%". */
char *mp_fault_what(const struct mplane_event *e, char *buf, size_t size);

/* "down (link, admin)": what, on what kind of target, and how. */
char *mp_fault_words(const struct mplane_event *e, char *buf, size_t size);

/* The same through mp_print, to @to, next to the event's numbers: JSON's
 * "where", "what", "target" and "via", and in text
 * where through @where_fmt (NULL: not in text, which names it already),
 * then " WORDS": " p0l0:s1 down (link, admin)" for " %s". */
void mp_fault_print(const struct mplane_event *e, enum mp_print_to to,
		    const char *where_fmt);

#endif /* MP_FAULT_H */
