// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status: what pktcount holds on a device, and its counts. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "pktcount.h"

static void status_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] bpf status DEV\n"
"\n"
"Show whether the pktcount programs are attached to the ingress and\n"
"egress hooks of DEV and, where they are, the packets and bytes counted\n"
"since they were first attached, per protocol class (ipv4, ipv6, arp,\n"
"other, from the packet's link-layer protocol).  Bytes include the\n"
"link-layer header.\n"
"\n"
"The programs are found through their tc filter (handle %#x, priority\n"
"%u), not through pinned files, so a status is always that of DEV itself.\n"
"\n"
"With -j, one JSON object:\n"
"  {\"dev\":\"eth0\",\"ifindex\":2,\n"
"   \"ingress\":{\"attached\":true,\"prog_id\":41,\"map_id\":7,\n"
"              \"ipv4\":{\"packets\":10,\"bytes\":980},\"ipv6\":{...},\n"
"              \"arp\":{...},\"other\":{...}},\n"
"   \"egress\":{\"attached\":false}}\n"
"\n"
"Options:\n"
"  -h, --help      show this help\n"
"\n"
"Examples:\n"
"  mplanectl bpf status eth0\n"
"  mplanectl -j bpf status eth0 | jq .ingress.ipv4.packets\n",
	       PKTCOUNT_TC_HANDLE, PKTCOUNT_TC_PRIO);
}

static const struct option status_opts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{}
};

struct hook_status {
	bool attached;
	__u32 prog_id;
	__u32 map_id;
	struct mplane_pktcount count[__MPLANE_PKT_CLASS_MAX];
};

static int hook_status(int ifindex, const struct pktcount_hook *hook,
		       struct hook_status *st)
{
	struct pktcount_slot slot;
	int err, map_fd;

	memset(st, 0, sizeof(*st));
	err = pktcount_query(ifindex, hook, &slot);
	if (err || !slot.ours)
		return err;
	map_fd = pktcount_map_fd(slot.prog_id, &st->map_id);
	if (map_fd < 0)
		return map_fd;
	err = pktcount_read(map_fd, hook->dir, st->count);
	close(map_fd);
	st->attached = !err;
	st->prog_id = slot.prog_id;
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
		json_object_object_add(obj, pktcount_hooks[d].name,
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
			printf("  %-8s not attached\n", pktcount_hooks[d].name);
			continue;
		}
		printf("  %-8s prog %u, map %u\n", pktcount_hooks[d].name,
		       st[d].prog_id, st[d].map_id);
		printf("    %-6s %14s %14s\n", "class", "packets", "bytes");
		for (class = 0; class < __MPLANE_PKT_CLASS_MAX; class++) {
			c = &st[d].count[class];
			printf("    %-6s %14llu %14llu\n",
			       pktcount_class_names[class], c->packets, c->bytes);
		}
	}
}

int bpf_status_main(int argc, char **argv)
{
	struct hook_status st[__MPLANE_DIR_MAX];
	const char *dev;
	int c, d, err, ifindex;

	while ((c = mp_getopt(argc, argv, ":h", status_opts)) != -1) {
		if (c != 'h')
			return MP_EXIT_USAGE;
		status_help();
		return MP_EXIT_OK;
	}
	dev = mp_single_arg(argc, argv, "DEV");
	if (!dev)
		return MP_EXIT_USAGE;
	ifindex = mp_ifindex(dev);
	if (!ifindex)
		return MP_EXIT_ERR;
	for (d = 0; d < __MPLANE_DIR_MAX; d++) {
		err = hook_status(ifindex, &pktcount_hooks[d], &st[d]);
		if (err) {
			mp_err("%s: %s: %s", dev, pktcount_hooks[d].name,
			       pktcount_strerror(err));
			return MP_EXIT_ERR;
		}
	}
	if (mp_json)
		print_json(dev, ifindex, st);
	else
		print_text(dev, ifindex, st);
	return MP_EXIT_OK;
}
