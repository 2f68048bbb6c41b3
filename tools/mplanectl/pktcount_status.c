// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status --prog pktcount: its hooks, and its counts. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "mp_out.h"
#include "mp_print.h"
#include "pktcount.h"
#include "mplane_maps.h"

struct hook_status {
	bool attached;
	enum mp_tc_hook hook;
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
	st->hook = slot->hook;
	st->prog_id = slot->prog_id;
	return err;
}

/* One hook, as text lines and as the hook's JSON object: one path. */
static void print_hook(const char *name, const struct hook_status *st)
{
	const struct mplane_pktcount *c;
	int class;

	mp_print_open_object(name);
	mp_print_text("  %-8s", name);
	mp_print_bool(MP_PRINT_JSON, "attached", NULL, st->attached);
	if (!st->attached) {
		mp_print_text(" not attached\n");
		mp_print_close_object();
		return;
	}
	mp_print_str(MP_PRINT_ANY, "tc_hook", " %s", mp_tc_hook_name(st->hook));
	mp_print_u64(MP_PRINT_ANY, "prog_id", ", prog %" PRIu64, st->prog_id);
	mp_print_u64(MP_PRINT_ANY, "map_id", ", map %" PRIu64 "\n", st->map_id);
	mp_print_text("    %-6s %14s %14s\n", "class", "packets", "bytes");
	for (class = 0; class < __MPLANE_PKT_CLASS_MAX; class++) {
		c = &st->count[class];
		mp_print_open_object(pktcount_class_names[class]);
		mp_print_text("    %-6s", pktcount_class_names[class]);
		mp_print_u64(MP_PRINT_ANY, "packets", " %14" PRIu64, c->packets);
		mp_print_u64(MP_PRINT_ANY, "bytes", " %14" PRIu64 "\n", c->bytes);
		mp_print_close_object();
	}
	mp_print_close_object();
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
	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "dev", "%s", t->dev);
	mp_print_s64(MP_PRINT_ANY, "ifindex", " (ifindex %" PRId64 ")\n",
		     t->ifindex);
	for (d = 0; d < __MPLANE_DIR_MAX; d++)
		print_hook(mpbpf_hooks[d].name, &st[d]);
	mp_print_end();
	return 0;
}
