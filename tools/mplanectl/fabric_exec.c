// SPDX-License-Identifier: GPL-2.0
/* mplanectl fabric exec: run a command in the namespace of a node. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_cmd.h"
#include "mp_netns.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mplanectl.h"
#include "fabric.h"

/* As the shell: a command that cannot be found, or not run. */
#define EXIT_NOT_FOUND	127
#define EXIT_NOT_RUN	126

static const struct mp_opt_cmd exec_cmd = {
	.usage = "fabric exec [--prefix NAME] NODE [--] CMD [ARG]...",
	.about =
"Run CMD in the network namespace of NODE (h3, p0l1, p1s0...) of fabric\n"
"NAME.  CMD replaces mplanectl, so its exit status is the command's own;\n"
"126 or 127 when it cannot be run or found.  As with the global -n, only\n"
"the network namespace changes: files, /sys and bpffs stay the host's\n"
"(unlike 'ip netns exec', which mounts a /sys of the namespace).  The\n"
"options end at NODE: what follows is CMD's, even without \"--\".\n",
	.opts = fabric_prefix_only_opts,
	.options_first = true,
	.footer =
"Examples:\n"
"  mplanectl fabric exec h0 -- ping -c1 -I r1 10.101.3.2\n"
"  mplanectl fabric exec p0l0 -- ip route show 10.100.3.0/24\n"
"  mplanectl fabric exec --prefix lab p1s0 -- tc -s qdisc\n",
};

static int enter_node(const char *prefix, const char *node)
{
	char netns[64];
	int fd, err;

	if (!fabric_node_name_ok(node))
		return mp_usage_err("bad NODE '%s': want h<H>, p<P>l<L> or p<P>s<S>",
				    node);
	snprintf(netns, sizeof(netns), "%s-%s", prefix, node);
	fd = mp_netns_open(netns);
	if (fd == -ENOENT) {
		mp_err("fabric %s has no node %s (no netns %s)", prefix, node,
		       netns);
		return MP_EXIT_ERR;
	}
	err = fd < 0 ? fd : mp_netns_return(fd);
	if (fd >= 0)
		close(fd);
	if (err) {
		mp_err("netns %s: %s", netns, strerror(-err));
		return MP_EXIT_ERR;
	}
	return MP_EXIT_OK;
}

int fabric_exec_main(int argc, char **argv)
{
	struct fabric_prefix_settings set = { MP_FABRIC_DEF_PREFIX };
	struct mp_opt_result res;
	const char *node;
	int ret;

	ret = mp_opt_parse(&exec_cmd, argc, argv, &set, &res);
	if (ret != MP_OPT_RUN)
		return ret;
	if (optind >= argc)
		return mp_usage_err("missing NODE");
	node = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		return mp_usage_err("missing CMD to run in %s", node);
	ret = enter_node(set.prefix, node);
	if (ret)
		return ret;
	fflush(NULL);
	execvp(argv[optind], argv + optind);
	mp_err("%s: %s", argv[optind], strerror(errno));
	return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_RUN;
}
