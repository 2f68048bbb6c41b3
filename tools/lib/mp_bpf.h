/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libbpf glue shared by mplane tools. */
#ifndef MP_BPF_H
#define MP_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

/* libbpf logs nothing unless @verbose: tools print their own errors. */
void mp_libbpf_setup(bool verbose);

/* Map @fd's info (id, type, sizes), zeroed first: 0 or a negative errno. */
int mp_map_info(int fd, struct bpf_map_info *info);

/* The name the kernel holds for program @prog_id; 0 or a negative errno. */
int mp_prog_name(__u32 prog_id, char name[BPF_OBJ_NAME_LEN]);

/*
 * An fd of the map called @map_name that program @prog_id uses, with its
 * info in @info; a negative errno (-ENOENT if it has no such map).
 */
int mp_prog_map_fd(__u32 prog_id, const char *map_name,
		   struct bpf_map_info *info);

/*
 * The value of @key in per-CPU map @fd, made of @n __u64 counters, summed
 * over the CPUs into @sum.  A key with no entry yet sums to zeros.  0, or
 * a negative errno.
 */
int mp_percpu_sum(int fd, const void *key, __u64 *sum, size_t n);

#endif /* MP_BPF_H */
