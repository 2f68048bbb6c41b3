// SPDX-License-Identifier: GPL-2.0
/*
 * mptcx: what the tests need of tcx that Debian 12's bpftool (7.1) cannot
 * do, through the bpf() syscall alone, so that the tests do not check
 * mplanectl's tcx code with itself:
 *
 *   mptcx has                      exit 0 if the kernel has tcx, else 1
 *   mptcx show DEV in|eg           the hook's programs, in the order they
 *                                  run: "ID NAME" per line
 *   mptcx counter DEV in|eg        a foreign program that counts what it
 *                                  sees and lets it on, at the tail;
 *                                  prints "PROG_ID MAP_ID"
 *   mptcx count MAP_ID             what that program has counted
 *   mptcx detach DEV in|eg PROG_ID take it off again
 *
 * The hook holds the program and the program its map: nothing is pinned.
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

#include "mp_tcx_uapi.h"

#define COUNTER_NAME	"tcx_foreign"

static int usage(void)
{
	fprintf(stderr, "usage: mptcx has | show DEV in|eg | counter DEV in|eg | count MAP_ID | detach DEV in|eg PROG_ID\n");
	return 2;
}

static int sys(int cmd, void *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size) < 0 ? -errno : 0;
}

static int hook_type(const char *word, __u32 *type)
{
	if (!strcmp(word, "in"))
		*type = MP_BPF_TCX_INGRESS;
	else if (!strcmp(word, "eg"))
		*type = MP_BPF_TCX_EGRESS;
	else
		return -EINVAL;
	return 0;
}

static int query(int ifindex, __u32 type, __u32 *ids, __u32 *n)
{
	struct mp_tcx_query_attr q = {
		.target_ifindex = ifindex, .attach_type = type,
		.prog_ids = (__u64)(unsigned long)ids, .count = *n,
	};
	int err = sys(BPF_PROG_QUERY, &q, sizeof(q));

	*n = q.count;
	return err;
}

static int show(int ifindex, __u32 type)
{
	__u32 ids[MP_TCX_MAX_PROGS], n = MP_TCX_MAX_PROGS, i, len;
	struct bpf_prog_info info;
	int err = query(ifindex, type, ids, &n), fd;

	for (i = 0; !err && i < n; i++) {
		fd = bpf_prog_get_fd_by_id(ids[i]);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			err = -errno;
		else
			printf("%u %s\n", ids[i], info.name);
		if (fd >= 0)
			close(fd);
	}
	return err;
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

/* Count into slot 0 of @map_fd, then TC_ACT_UNSPEC: let the next run. */
static int load_counter(int map_fd)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0,
		     map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0,
		     BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, -1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, COUNTER_NAME, "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), NULL);
}

static int id_of(int fd, bool prog, __u32 *id)
{
	struct bpf_prog_info pinfo = {};
	struct bpf_map_info minfo = {};
	__u32 len = prog ? sizeof(pinfo) : sizeof(minfo);

	if (bpf_obj_get_info_by_fd(fd, prog ? (void *)&pinfo : (void *)&minfo,
				   &len))
		return -errno;
	*id = prog ? pinfo.id : minfo.id;
	return 0;
}

static int attach_call(int cmd, int ifindex, __u32 type, int fd)
{
	struct mp_tcx_attach_attr a = {
		.target_ifindex = ifindex, .attach_bpf_fd = fd,
		.attach_type = type,
	};

	return sys(cmd, &a, sizeof(a));
}

static int counter(int ifindex, __u32 type)
{
	__u32 prog_id, map_id;
	int map_fd, fd, err;

	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, COUNTER_NAME, 4, 8, 1, NULL);
	if (map_fd < 0)
		return -errno;
	fd = load_counter(map_fd);
	if (fd < 0)
		return -errno;
	err = id_of(fd, true, &prog_id);
	if (!err)
		err = id_of(map_fd, false, &map_id);
	if (!err)
		err = attach_call(BPF_PROG_ATTACH, ifindex, type, fd);
	if (!err)
		printf("%u %u\n", prog_id, map_id);
	return err;
}

static int count(const char *map_id)
{
	int fd = bpf_map_get_fd_by_id(strtoul(map_id, NULL, 0));
	__u32 zero = 0;
	__u64 v;

	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &v))
		return -errno;
	printf("%llu\n", (unsigned long long)v);
	return 0;
}

static int detach(int ifindex, __u32 type, const char *prog_id)
{
	int fd = bpf_prog_get_fd_by_id(strtoul(prog_id, NULL, 0));

	return fd < 0 ? -errno : attach_call(BPF_PROG_DETACH, ifindex, type, fd);
}

static int run(int argc, char **argv)
{
	unsigned int ifindex;
	__u32 type, n = 0;

	if (argc == 2 && !strcmp(argv[1], "has"))
		return query(1, MP_BPF_TCX_INGRESS, NULL, &n) == -EINVAL ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "count"))
		return count(argv[2]);
	if (argc < 4 || hook_type(argv[3], &type))
		return usage();
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex)
		return -errno;
	if (argc == 4 && !strcmp(argv[1], "show"))
		return show(ifindex, type);
	if (argc == 4 && !strcmp(argv[1], "counter"))
		return counter(ifindex, type);
	if (argc == 5 && !strcmp(argv[1], "detach"))
		return detach(ifindex, type, argv[4]);
	return usage();
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "mptcx: %s\n", strerror(-ret));
		return 1;
	}
	return ret;
}
