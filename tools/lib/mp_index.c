// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_index.h"

static void place(unsigned int *slot, unsigned int size, unsigned int hash,
		  unsigned int idx)
{
	while (slot[hash & (size - 1)])
		hash++;
	slot[hash & (size - 1)] = idx + 1;
}

/* Twice the size (or 8), every index placed anew by its hash. */
static int grow(struct mp_index *x, mp_index_hash_fn rehash, const void *arg)
{
	unsigned int size = x->size ? x->size * 2 : 8, i, idx;
	unsigned int *slot = calloc(size, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < x->size; i++) {
		idx = x->slot[i];
		if (idx)
			place(slot, size, rehash(idx - 1, arg), idx - 1);
	}
	free(x->slot);
	x->slot = slot;
	x->size = size;
	return 0;
}

int mp_index_add(struct mp_index *x, unsigned int hash, unsigned int idx,
		 mp_index_hash_fn rehash, const void *arg)
{
	/* At most half full, so that every way ends soon. */
	if ((x->n + 1) * 2 > x->size && grow(x, rehash, arg))
		return -ENOMEM;
	place(x->slot, x->size, hash, idx);
	x->n++;
	return 0;
}

int mp_index_next(const struct mp_index *x, unsigned int *probe)
{
	unsigned int idx;

	if (!x->size)
		return -1;
	idx = x->slot[*probe & (x->size - 1)];
	if (!idx)
		return -1;
	(*probe)++;
	return idx - 1;
}

void mp_index_clear(struct mp_index *x)
{
	if (x->slot)
		memset(x->slot, 0, x->size * sizeof(*x->slot));
	x->n = 0;
}

void mp_index_free(struct mp_index *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
