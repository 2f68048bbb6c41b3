// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/mplane.h>
#include "mplane_maps.h"

#include "mp_out.h"
#include "mp_pin.h"

#define BPFFS	"/sys/fs/bpf"

static int bpffs_mount(void)
{
	struct statfs st;

	if (!statfs(BPFFS, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	/* As systemd would have it: one bpffs, root only. */
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		return -errno;
	/* Most often this is 'ip netns exec', whose fresh /sys hides the
	 * host's bpffs: pins made now vanish with this process. */
	mp_err("note: no bpffs on " BPFFS ", mounted one; pins made here are seen only in this mount namespace ('ip netns exec' remounts /sys: prefer 'mplanectl -n NAME')");
	return 0;
}

/* mkdir -p for the part of @path below BPFFS. */
static int make_dirs(const char *path)
{
	char buf[256];
	size_t i;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (i = sizeof(BPFFS); buf[i]; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		buf[i] = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int mp_pin_dev_dir(const char *ifname, char *buf, size_t size, bool create)
{
	struct stat st;

	/* The thread's: mplanectl -n moved this thread, not the process. */
	if (stat("/proc/thread-self/ns/net", &st))
		return -errno;
	if (snprintf(buf, size, "%s/dev/%lu/%s", MPLANE_BPF_PIN_ROOT,
		     (unsigned long)st.st_ino, ifname) >= (int)size)
		return -ENAMETOOLONG;
	return create ? mp_pin_mkdir(buf) : 0;
}

int mp_pin_mkdir(const char *path)
{
	int err = bpffs_mount();

	return err ? err : make_dirs(path);
}

int mp_pin_protect(const char *path)
{
	return chmod(path, 0600) ? -errno : 0;
}

int mp_pin_remove_dir(const char *dir)
{
	char path[512], parent[256];
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	if (rmdir(dir))
		return -errno;
	snprintf(parent, sizeof(parent), "%s", dir);
	/* The namespace's directory goes with its last device. */
	rmdir(dirname(parent));
	return 0;
}
