// SPDX-License-Identifier: GPL-2.0
/* mplanectl traffic: the group of commands that make and measure a test
 * stream. */
#include <signal.h>

#include "mp_cmd.h"
#include "mplanectl.h"
#include "traffic.h"

volatile sig_atomic_t traffic_stop;

static const struct mp_cmd traffic_cmds[] = {
	{ "send", traffic_send_main, "send a paced stream of numbered UDP packets" },
	{ "recv", traffic_recv_main, "receive it: loss, reordering, delivery gaps" },
	{}
};

static const struct mp_group traffic_group = {
	.usage =
"Usage: mplanectl [GLOBAL OPTIONS] traffic COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Send a UDP stream of numbered, timestamped packets at a steady rate, and\n"
"receive it to see what the path did to it: packets lost, reordered and\n"
"duplicated, and the gaps in delivery (the longest one, after which packet\n"
"it came, and percentiles).  Start the receiver first.  Both stop on\n"
"SIGINT or SIGTERM and then print what they have.\n",
	.footer =
"Run 'mplanectl traffic COMMAND --help' for the options of a command.\n"
"\n"
"Examples:\n"
"  mplanectl -n b traffic recv --expect 20000 --idle 1 &\n"
"  mplanectl -n a traffic send 10.0.0.2 --rate 20000 --count 20000\n",
	.cmds = traffic_cmds,
};

static void on_stop(int sig)
{
	(void)sig;
	traffic_stop = 1;
}

int traffic_main(int argc, char **argv)
{
	/* No SA_RESTART: a blocked sleep or receive returns EINTR, so the
	 * command sees the flag at once. */
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return mp_group_run(&traffic_group, argc - 1, argv + 1);
}
