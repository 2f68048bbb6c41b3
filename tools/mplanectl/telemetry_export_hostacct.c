// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry export: the hostacct programs' rail counters, read from
 * their pinned maps at each scrape.  hostacct counts in maps, not in
 * events (only CNPs are events), so no feed carries these: each device
 * it runs on has a pin directory, MPLANE_BPF_PIN_ROOT/dev/NETNS/DEV
 * (mp_pin.h), whose mp_rail_acct holds, per direction, the counters of
 * struct mplane_rail_acct summed here over the CPUs.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>

#include "hostacct.h"
#include "mp_bpf.h"
#include "telemetry.h"
#include "mplane_maps.h"

#define DEV_PIN_ROOT	MPLANE_BPF_PIN_ROOT "/dev"

static const char *const dir_names[__MPLANE_DIR_MAX] = {
	[MPLANE_DIR_INGRESS] = "ingress",
	[MPLANE_DIR_EGRESS] = "egress",
};

/* One device's counters: sum[dir][field]. */
struct ha_rail {
	char node[64];
	char dev[64];
	__u64 sum[__MPLANE_DIR_MAX][HOSTACCT_RAIL_FIELDS];
};

/*
 * The node of namespace @inode: this host's name for our own, the name
 * under /run/netns for another (a fabric's host), else "ns<inode>".
 */
static void netns_node(unsigned long inode, char *buf, size_t size)
{
	char path[300];
	struct utsname u;
	struct dirent *d;
	struct stat st;
	DIR *dir;

	if (!stat("/proc/self/ns/net", &st) && st.st_ino == inode &&
	    !uname(&u)) {
		snprintf(buf, size, "%.63s", u.nodename);
		return;
	}
	snprintf(buf, size, "ns%lu", inode);
	dir = opendir("/run/netns");
	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/run/netns/%.255s", d->d_name);
		if (d->d_name[0] != '.' && !stat(path, &st) &&
		    st.st_ino == inode) {
			snprintf(buf, size, "%.63s", d->d_name);
			break;
		}
	}
	if (dir)
		closedir(dir);
}

/* The rail map of @path summed per direction: 0, or a negative errno. */
static int read_rail(const char *path, unsigned int ifindex,
		     struct ha_rail *r)
{
	struct mplane_rail_key key = { .ifindex = ifindex };
	int fd = bpf_obj_get(path), err = 0;

	if (fd < 0)
		return -errno;
	for (key.dir = 0; key.dir < __MPLANE_DIR_MAX && !err; key.dir++)
		err = mp_percpu_sum(fd, &key, r->sum[key.dir],
				    HOSTACCT_RAIL_FIELDS);
	close(fd);
	return err;
}

/*
 * The rail map is keyed by ifindex, which the pin directory does not
 * name: the map's one device, found as its first key.
 */
static int first_ifindex(const char *path, unsigned int *ifindex)
{
	struct mplane_rail_key key;
	int fd = bpf_obj_get(path), err;

	if (fd < 0)
		return -errno;
	err = bpf_map_get_next_key(fd, NULL, &key) ? -errno : 0;
	close(fd);
	if (!err)
		*ifindex = key.ifindex;
	return err;
}

/* Every device's rails, pinned under DEV_PIN_ROOT/NETNS/DEV/. */
static struct ha_rail *read_rails(size_t *n)
{
	struct ha_rail *rails = NULL, *more;
	DIR *top = opendir(DEV_PIN_ROOT), *ns;
	struct dirent *d, *e;
	char path[PATH_MAX];
	unsigned int ifindex = 0;

	*n = 0;
	while (top && (d = readdir(top))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", DEV_PIN_ROOT, d->d_name);
		ns = opendir(path);
		while (ns && (e = readdir(ns))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/%s", DEV_PIN_ROOT,
				 d->d_name, e->d_name, HOSTACCT_PIN_RAIL);
			/* A device that has seen no packet has no key yet. */
			if (access(path, F_OK) || first_ifindex(path, &ifindex))
				continue;
			more = realloc(rails, (*n + 1) * sizeof(*rails));
			if (!more)
				break;
			rails = more;
			memset(&rails[*n], 0, sizeof(rails[*n]));
			if (read_rail(path, ifindex, &rails[*n]))
				continue;
			netns_node(strtoul(d->d_name, NULL, 10),
				   rails[*n].node, sizeof(rails[*n].node));
			snprintf(rails[*n].dev, sizeof(rails[*n].dev), "%.63s",
				 e->d_name);
			(*n)++;
		}
		if (ns)
			closedir(ns);
	}
	if (top)
		closedir(top);
	return rails;
}

void export_hostacct(FILE *f)
{
	struct ha_rail *rails;
	unsigned int field, dir;
	char name[96];
	size_t n, i;

	rails = read_rails(&n);
	for (field = 0; field < HOSTACCT_RAIL_FIELDS; field++) {
		snprintf(name, sizeof(name), "mplane_hostacct_%s_total",
			 hostacct_rail_names[field]);
		export_family(f, name, "counter",
			      "A rail's packets as hostacct counts them, per direction (mplanectl bpf status --prog hostacct).");
		for (i = 0; i < n; i++) {
			for (dir = 0; dir < __MPLANE_DIR_MAX; dir++) {
				fprintf(f, "%s{", name);
				export_label(f, "node", rails[i].node, true);
				export_label(f, "dev", rails[i].dev, false);
				export_label(f, "dir", dir_names[dir], false);
				fprintf(f, "} %llu\n",
					(unsigned long long)rails[i].sum[dir][field]);
			}
		}
	}
	free(rails);
}
