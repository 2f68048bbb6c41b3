/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Where mplane pins BPF objects of one device: MPLANE_BPF_PIN_ROOT/dev/
 * NETNS/IFNAME, NETNS being the inode of the caller's network namespace,
 * so that devices of the same name in two namespaces never share pins.
 */
#ifndef MP_PIN_H
#define MP_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include "mplane_maps.h"

/*
 * The pin directory of device @ifname into @buf.  With @create, bpffs is
 * mounted on /sys/fs/bpf if it is not, and the directories are made
 * (mode 0700).  0 or a negative errno.
 */
int mp_pin_dev_dir(const char *ifname, char *buf, size_t size, bool create);

/* mkdir -p @path below /sys/fs/bpf (mode 0700), mounting bpffs there
 * first if it is not; for pins of other kinds than a device's too. */
int mp_pin_mkdir(const char *path);

/* Only the owner may read or write a pinned object: counters and events
 * are the host's business.  0 or a negative errno. */
int mp_pin_protect(const char *path);

/* Remove the files in @dir, then @dir and its NETNS parent if they are
 * left empty.  A directory that is not there is not an error. */
int mp_pin_remove_dir(const char *dir);

#endif /* MP_PIN_H */
