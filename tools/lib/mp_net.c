// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_net.h"
#include "mp_out.h"

/* Where "ip netns add" keeps its namespaces (bind mounts of nsfs). */
#define NETNS_RUN_DIR	"/run/netns"

/*
 * Only the network namespace is entered, unlike "ip netns exec", which
 * also makes a mount namespace with its own /sys: tools must keep seeing
 * the host's bpffs and files.  Netlink and ioctl sockets opened after this
 * belong to the new namespace; BPF object ids are global anyway.
 */
int mp_netns_enter(const char *name)
{
	char path[PATH_MAX];
	int fd, err = 0;

	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		err = -errno;
	close(fd);
	return err;
}

int mp_ifindex(const char *dev)
{
	unsigned int ifindex = if_nametoindex(dev);

	if (!ifindex)
		mp_err("%s: %s", dev, strerror(errno));
	return ifindex;
}
