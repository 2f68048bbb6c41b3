// SPDX-License-Identifier: GPL-2.0
/*
 * A degraded port, as ar sees it: where ar runs on the switch ('bpf
 * attach --fabric'), its model of the port's queue drains at the port's
 * rate and tail-drops at its limit (mplane_port_cfg), so that it marks
 * ECN and steers away as the real tbf queue fills.  The model follows
 * the tbf: a degrade writes the new rate and the limit tbf got with it,
 * a clear the state file's.  The map is pinned in bpffs, the same from
 * every namespace; a switch without ar, or a host, has none.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "ar.h"
#include "fabric.h"
#include "fabric_fault.h"
#include "mplane_maps.h"

int fault_ar_rate(const struct mp_fabric *f, const struct mp_fabric_node *n,
		  const struct mp_fabric_port *p, uint64_t rate_bps)
{
	struct mplane_port_cfg cfg;
	__u32 ifindex = p->ifindex;
	char path[256];
	int fd, err = 0;

	if (n->role == MP_NODE_HOST)
		return 0;
	if (ar_pin_path(path, sizeof(path), f->prefix, n->name, "mp_port_cfg"))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!bpf_map_lookup_elem(fd, &ifindex, &cfg)) {
		cfg.rate_bps = rate_bps;
		cfg.limit_bytes = fabric_tbf_limit(rate_bps, p->buffer_us);
		if (bpf_map_update_elem(fd, &ifindex, &cfg, BPF_EXIST))
			err = -errno;
	}
	close(fd);
	return err;
}
