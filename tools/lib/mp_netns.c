// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mp_netns.h"

static int netns_path(const char *name, char *path)
{
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	if (snprintf(path, PATH_MAX, MP_NETNS_RUN_DIR "/%s", name) >=
	    PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * As ip-netns(8): /run/netns must be a shared mount, so that a namespace
 * mounted here is seen in every mount namespace (a later 'ip netns exec'
 * makes its own).  A directory that is no mount point at all cannot be
 * made shared (EINVAL): it is bind-mounted on itself first.
 */
static int run_dir_shared(void)
{
	static bool done;

	if (done)
		return 0;
	if (mkdir(MP_NETNS_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	while (mount("", MP_NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL)) {
		if (errno != EINVAL)
			return -errno;
		if (mount(MP_NETNS_RUN_DIR, MP_NETNS_RUN_DIR, "none",
			  MS_BIND | MS_REC, NULL))
			return -errno;
	}
	done = true;
	return 0;
}

int mp_netns_create(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = netns_path(name, path);
	if (!err)
		err = run_dir_shared();
	if (err)
		return err;
	/* The mount point: O_EXCL makes the name ours or fails. */
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	/* Only this thread moves: other threads keep their namespace. */
	if (unshare(CLONE_NEWNET) ||
	    mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL)) {
		err = -errno;
		unlink(path);
		return err;
	}
	return 0;
}

int mp_netns_return(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

int mp_netns_open(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = netns_path(name, path);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int mp_netns_delete(const char *name)
{
	char path[PATH_MAX];
	int err;

	err = netns_path(name, path);
	if (err)
		return err;
	/* A crash between open(O_EXCL) and mount() leaves a plain file:
	 * EINVAL from umount2() is then expected, and unlink() does it. */
	umount2(path, MNT_DETACH);
	return unlink(path) ? -errno : 0;
}

int mp_sysctl_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, val, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

static bool seen_inode(const unsigned long *seen, unsigned int n,
		       unsigned long ino)
{
	while (n--)
		if (seen[n] == ino)
			return true;
	return false;
}

int mp_netns_each(mp_netns_cb cb, void *data)
{
	unsigned long *seen, *more;
	unsigned int n = 0;
	char path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	int err = 0;
	DIR *dir;

	if (stat("/proc/thread-self/ns/net", &st))
		return -errno;
	seen = malloc(sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	seen[n++] = st.st_ino;
	dir = opendir(MP_NETNS_RUN_DIR);
	while (!err && dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), MP_NETNS_RUN_DIR "/%s", d->d_name);
		if (d->d_name[0] == '.' || stat(path, &st) ||
		    seen_inode(seen, n, st.st_ino))
			continue;
		more = realloc(seen, (n + 1) * sizeof(*seen));
		if (!more) {
			err = -ENOMEM;
			break;
		}
		seen = more;
		seen[n++] = st.st_ino;
		err = cb(d->d_name, st.st_ino, data);
	}
	if (dir)
		closedir(dir);
	free(seen);
	return err;
}
