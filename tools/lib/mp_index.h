/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * An open-addressed hash table of array indices: the caller keeps its
 * elements in an array, hashes and compares them; this keeps, for each
 * hash, where to look.  The telemetry model finds its entities, QPs,
 * names and groups with it, so that a capture of many of them loads in
 * time linear in its size.
 *
 * Lookup:
 *	unsigned int probe = hash;
 *	int i;
 *
 *	while ((i = mp_index_next(x, &probe)) >= 0)
 *		if (matches(&arr[i]))
 *			return i;
 */
#ifndef MP_INDEX_H
#define MP_INDEX_H

struct mp_index {
	unsigned int *slot;	/* an index + 1; 0: empty */
	unsigned int size;	/* a power of two, or 0 before the first add */
	unsigned int n;		/* indices held: at most size / 2 */
};

/* The hash of the element at @idx, to place it anew when the table
 * grows. */
typedef unsigned int (*mp_index_hash_fn)(unsigned int idx, const void *arg);

/* Hold @idx under @hash.  0, or -ENOMEM with the table as it was. */
int mp_index_add(struct mp_index *x, unsigned int hash, unsigned int idx,
		 mp_index_hash_fn rehash, const void *arg);

/* The next index along @probe's way (which starts as the hash), or -1
 * where the way ends. */
int mp_index_next(const struct mp_index *x, unsigned int *probe);

/* Forget every index, keeping the table's memory. */
void mp_index_clear(struct mp_index *x);

void mp_index_free(struct mp_index *x);

#endif /* MP_INDEX_H */
