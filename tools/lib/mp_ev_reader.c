// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Slots are taken and given back under an flock of the directory that
 * holds mp_event_readers: two readers starting at once would otherwise
 * both see one slot free, and the second would put its ring over the
 * first's.  The producers need no lock: a slot's ring is swapped under
 * RCU, and a record goes into the old ring or the new.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <bpf/bpf.h>

#include "mp_bpf.h"
#include "mp_ev_reader.h"
#include "mplane_events.h"

/* The directory of @pin, open: what the slots' lock is taken on. */
static int open_dir_of(const char *pin)
{
	const char *slash = strrchr(pin, '/');
	char dir[PATH_MAX];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == pin)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - pin), pin);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Whether one of process @pid's descriptors is map @id. */
static bool pid_holds_map(const char *pid, uint32_t id)
{
	char path[PATH_MAX], line[128];
	bool held = false;
	struct dirent *d;
	unsigned int v;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!held && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (!held && fgets(line, sizeof(line), f))
			held = sscanf(line, "map_id: %u", &v) == 1 && v == id;
		fclose(f);
	}
	closedir(dir);
	return held;
}

/*
 * Whether any process holds map @id.  A slot's ring is held by the
 * array as well, which has no descriptor: a ring no process holds is a
 * reader's that died.
 */
static bool map_held(uint32_t id)
{
	DIR *proc = opendir("/proc");
	bool held = false;
	struct dirent *d;

	if (!proc)
		return true;	/* cannot tell: leave the slot alone */
	while (!held && (d = readdir(proc)))
		if (isdigit((unsigned char)d->d_name[0]))
			held = pid_holds_map(d->d_name, id);
	closedir(proc);
	return held;
}

/* A free slot, else one whose reader is gone; -EBUSY when neither. */
static int find_slot(int readers_fd, unsigned int slots, unsigned int *slot)
{
	uint32_t id, i;

	for (i = 0; i < slots; i++) {
		if (bpf_map_lookup_elem(readers_fd, &i, &id) && errno == ENOENT) {
			*slot = i;
			return 0;
		}
	}
	for (i = 0; i < slots; i++) {
		if (!bpf_map_lookup_elem(readers_fd, &i, &id) && !map_held(id)) {
			*slot = i;
			return 0;
		}
	}
	return -EBUSY;
}

/*
 * Under the lock: a slot, then our ring in it.  The ring is made only once
 * a slot is found, so that a reader that finds none (and tries again at
 * every rescan) does not make and free 1 MiB each time.
 */
static int put_in_slot(struct mp_ev_reader *r, int dir_fd)
{
	struct bpf_map_info info;
	int err;

	err = mp_map_info(r->readers_fd, &info);
	if (err)
		return err;
	if (info.type != BPF_MAP_TYPE_ARRAY_OF_MAPS)
		return -EINVAL;
	if (flock(dir_fd, LOCK_EX))
		return -errno;
	err = find_slot(r->readers_fd, info.max_entries, &r->slot);
	if (!err) {
		r->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mp_ev_reader",
					    0, 0, MPLANE_EV_READER_RING_BYTES,
					    NULL);
		err = r->ring_fd < 0 ? -errno : mp_map_info(r->ring_fd, &info);
	}
	if (!err && bpf_map_update_elem(r->readers_fd, &r->slot, &r->ring_fd,
					BPF_ANY))
		err = -errno;
	flock(dir_fd, LOCK_UN);
	if (!err)
		r->ring_id = info.id;
	return err;
}

int mp_ev_reader_claim(struct mp_ev_reader *r, const char *readers_pin)
{
	int dir_fd, err;

	r->ring_fd = -1;
	r->readers_fd = bpf_obj_get(readers_pin);
	if (r->readers_fd < 0)
		return -errno;
	dir_fd = open_dir_of(readers_pin);
	err = dir_fd < 0 ? dir_fd : put_in_slot(r, dir_fd);
	if (dir_fd >= 0)
		close(dir_fd);
	if (err) {
		if (r->ring_fd >= 0)
			close(r->ring_fd);
		close(r->readers_fd);
		r->ring_fd = r->readers_fd = -1;
	}
	return err;
}

/*
 * The slot is emptied only while it still holds our ring: a reader that
 * took it back (it thought us dead) keeps it.  No lock is needed for
 * that: only a dead reader's slot is taken, and we are not dead.
 */
void mp_ev_reader_release(struct mp_ev_reader *r)
{
	uint32_t id;

	if (r->readers_fd < 0)
		return;
	if (!bpf_map_lookup_elem(r->readers_fd, &r->slot, &id) &&
	    id == r->ring_id)
		bpf_map_delete_elem(r->readers_fd, &r->slot);
	close(r->ring_fd);
	close(r->readers_fd);
	r->ring_fd = r->readers_fd = -1;
}
