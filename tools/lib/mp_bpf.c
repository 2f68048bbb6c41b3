// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mp_bpf.h"

static int libbpf_print_all(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Quiet by default: libbpf also "warns" about conditions that tools handle
 * (an existing clsact qdisc, a free tc slot), which would only confuse.
 */
void mp_libbpf_setup(bool verbose)
{
	libbpf_set_print(verbose ? libbpf_print_all : NULL);
}

int mp_map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

int mp_prog_name(__u32 prog_id, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (!err)
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	close(fd);
	return err ? -errno : 0;
}

/* The ids of the maps @prog_fd uses, in a buffer the caller frees. */
static int prog_map_ids(int prog_fd, __u32 **ids, __u32 *nr)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	/* First ask how many, then fetch them. */
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*nr = info.nr_map_ids;
	*ids = calloc(*nr ? *nr : 1, sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = *nr;
	info.map_ids = (__u64)(unsigned long)*ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		free(*ids);
		return -errno;
	}
	/* Maps bound since the first call are left out: the kernel fills
	 * at most *nr ids. */
	return 0;
}

static int map_fd_by_name(const __u32 *ids, __u32 nr, const char *name,
			  struct bpf_map_info *info)
{
	__u32 i;
	int fd;

	for (i = 0; i < nr; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;	/* freed meanwhile: not ours to find */
		if (!mp_map_info(fd, info) &&
		    !strncmp(info->name, name, BPF_OBJ_NAME_LEN))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

int mp_prog_map_fd(__u32 prog_id, const char *map_name,
		   struct bpf_map_info *info)
{
	__u32 *ids = NULL, nr = 0;
	int prog_fd, fd;

	prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (prog_fd < 0)
		return -errno;
	fd = prog_map_ids(prog_fd, &ids, &nr);
	if (!fd) {
		fd = map_fd_by_name(ids, nr, map_name, info);
		free(ids);
	}
	close(prog_fd);
	return fd;
}

int mp_percpu_sum(int fd, const void *key, __u64 *sum, size_t n)
{
	int ncpus = libbpf_num_possible_cpus(), cpu;
	__u64 *vals;
	size_t i;

	memset(sum, 0, n * sizeof(*sum));
	if (ncpus < 0)
		return ncpus;
	vals = calloc((size_t)ncpus * n, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, key, vals)) {
		free(vals);
		/* A rail that has seen no packet has no entry yet. */
		return errno == ENOENT ? 0 : -errno;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < n; i++)
			sum[i] += vals[cpu * n + i];
	free(vals);
	return 0;
}
