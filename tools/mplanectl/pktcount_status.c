// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status --prog pktcount: its hooks, and its counts. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mp_out.h"
#include "pktcount.h"
#include "mplane_maps.h"

struct hook_status {
	bool attached;
	__u32 prog_id;
	__u32 map_id;
	struct mplane_pktcount count[__MPLANE_PKT_CLASS_MAX];
};

static int hook_status(struct mpbpf_target *t, int d, struct hook_status *st)
{
	const struct mpbpf_slot *slot = &t->slots[d];
	int err, map_fd;

	memset(st, 0, sizeof(*st));
	err = mpbpf_query(t, d);
	if (err || !slot->ours)
		return err;
	map_fd = pktcount_map_fd(slot->prog_id, &st->map_id);
	if (map_fd < 0)
		return map_fd;
	err = pktcount_read(map_fd, d, st->count);
	close(map_fd);
	st->attached = !err;
	st->prog_id = slot->prog_id;
	return err;
}

static struct json_object *hook_json(const struct hook_status *st)
{
	struct json_object *obj = json_object_new_object(), *c;
	int class;

	json_object_object_add(obj, "attached",
			       json_object_new_boolean(st->attached));
	if (!st->attached)
		return obj;
	json_object_object_add(obj, "prog_id", json_object_new_int64(st->prog_id));
	json_object_object_add(obj, "map_id", json_object_new_int64(st->map_id));
	for (class = 0; class < __MPLANE_PKT_CLASS_MAX; class++) {
		c = json_object_new_object();
		json_object_object_add(c, "packets",
				       json_object_new_uint64(st->count[class].packets));
		json_object_object_add(c, "bytes",
				       json_object_new_uint64(st->count[class].bytes));
		json_object_object_add(obj, pktcount_class_names[class], c);
	}
	return obj;
}

static void print_json(const char *dev, int ifindex,
		       const struct hook_status st[__MPLANE_DIR_MAX])
{
	struct json_object *obj = json_object_new_object();
	int d;

	json_object_object_add(obj, "dev", json_object_new_string(dev));
	json_object_object_add(obj, "ifindex", json_object_new_int(ifindex));
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		json_object_object_add(obj, mpbpf_hooks[d].name,
				       hook_json(&st[d]));
	mp_json_print(obj);
}

static void print_text(const char *dev, int ifindex,
		       const struct hook_status st[__MPLANE_DIR_MAX])
{
	const struct mplane_pktcount *c;
	int d, class;

	printf("%s (ifindex %d)\n", dev, ifindex);
	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		if (!st[d].attached) {
			printf("  %-8s not attached\n", mpbpf_hooks[d].name);
			continue;
		}
		printf("  %-8s prog %u, map %u\n", mpbpf_hooks[d].name,
		       st[d].prog_id, st[d].map_id);
		printf("    %-6s %14s %14s\n", "class", "packets", "bytes");
		for (class = 0; class < __MPLANE_PKT_CLASS_MAX; class++) {
			c = &st[d].count[class];
			printf("    %-6s %14llu %14llu\n",
			       pktcount_class_names[class], c->packets, c->bytes);
		}
	}
}

int pktcount_status(struct mpbpf_target *t)
{
	struct hook_status st[__MPLANE_DIR_MAX];
	int d, err;

	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		err = hook_status(t, d, &st[d]);
		if (err) {
			mp_err("%s: %s: %s", t->dev, mpbpf_hooks[d].name,
			       pktcount_strerror(err));
			return err;
		}
	}
	if (mp_json)
		print_json(t->dev, t->ifindex, st);
	else
		print_text(t->dev, t->ifindex, st);
	return 0;
}
