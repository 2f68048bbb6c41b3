// SPDX-License-Identifier: GPL-2.0
/*
 * The roce transport of 'mplanectl collective', until its own file
 * replaces this one: a transport whose setup says it is not there, so
 * that the tree links and --transport roce fails cleanly.
 */
#include <errno.h>

#include "mp_out.h"
#include "collective.h"

static int roce_setup(struct coll_comm *c)
{
	(void)c;
	mp_err("roce transport not built yet");
	return -EOPNOTSUPP;
}

static int roce_exchange(struct coll_comm *c, const struct coll_xfer *sends,
			 unsigned int nsends, const struct coll_xfer *recvs,
			 unsigned int nrecvs)
{
	(void)c, (void)sends, (void)nsends, (void)recvs, (void)nrecvs;
	return -EOPNOTSUPP;
}

static void roce_teardown(struct coll_comm *c)
{
	(void)c;
}

const struct coll_transport coll_roce_transport = {
	.name = "roce",
	.setup = roce_setup,
	.exchange = roce_exchange,
	.teardown = roce_teardown,
};
