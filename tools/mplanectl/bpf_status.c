// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status: what a program of mplane's holds on a device. */
#include "bpf_prog.h"
#include "mp_cmd.h"
#include "mplanectl.h"
#include "mplane_maps.h"

static void status_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] bpf status [--prog NAME] DEV\n"
"\n"
"Show whether a program of mplane's (pktcount unless --prog says\n"
"otherwise) is attached to the hooks of DEV and what it has counted since\n"
"it was first attached.  Bytes include the link-layer header.\n"
"\n"
"pktcount: packets and bytes per direction and protocol class (ipv4,\n"
"ipv6, arp, other, from the packet's link-layer protocol), found through\n"
"its tc filter (handle %#x, priority %u), so a status is always that of\n"
"DEV itself.  With -j, one JSON object:\n"
"  {\"dev\":\"eth0\",\"ifindex\":2,\n"
"   \"ingress\":{\"attached\":true,\"prog_id\":41,\"map_id\":7,\n"
"              \"ipv4\":{\"packets\":10,\"bytes\":980},\"ipv6\":{...},\n"
"              \"arp\":{...},\"other\":{...}},\n"
"   \"egress\":{\"attached\":false}}\n"
"\n"
"hostacct: per direction, where it is attached (tc or xdp) and the rail's\n"
"counters summed over CPUs; then one line per destination QP seen, and\n"
"the events produced and dropped (ring full).  Counters are read from the\n"
"maps pinned under %s/dev/NETNS/DEV/, so they survive\n"
"a re-attach and a move between tc and XDP.  With -j, one JSON object:\n"
"  {\"dev\":\"eth0\",\"ifindex\":2,\"prog\":\"hostacct\",\"pin\":\"/sys/fs/bpf/...\",\n"
"   \"ingress\":{\"attached\":\"xdp\",\"prog_id\":52,\"packets\":10,\"bytes\":1220,\n"
"              \"ect\":0,\"ecn_ce\":10,\"udp_ce\":10,\"tcp_ce\":0,\n"
"              \"roce_packets\":10,\"roce_bytes\":1220,\"roce_ce\":10,\"cnp\":0,\n"
"              \"malformed\":0,\"truncated\":0},\n"
"   \"egress\":{\"attached\":\"tc\",...},\n"
"   \"qps\":[{\"qpn\":4660,\"dir\":\"ingress\",\"packets\":10,\"bytes\":1220,\n"
"            \"ecn_ce\":10,\"cnp\":0,\"ack_req\":2,\"last_psn\":9}],\n"
"   \"events\":{\"produced\":0,\"dropped\":0}}\n"
"\"attached\" is false where it is not; the counters stay until detach.\n"
"\n"
"Options:\n"
"  -p, --prog NAME pktcount (default) or hostacct\n"
"  -h, --help      show this help\n"
"\n"
"Examples:\n"
"  mplanectl bpf status eth0\n"
"  mplanectl -j bpf status eth0 | jq .ingress.ipv4.packets\n"
"  mplanectl -j bpf status --prog hostacct ens1f0 | jq .ingress.cnp\n",
	       pktcount_kind.tc_handle, pktcount_kind.tc_prio,
	       MPLANE_BPF_PIN_ROOT);
}

static const struct option status_opts[] = {
	{ "prog",	required_argument,	NULL, 'p' },
	{ "help",	no_argument,		NULL, 'h' },
	{}
};

int bpf_status_main(int argc, char **argv)
{
	struct mpbpf_target t = {};
	int c, ret;

	while ((c = mp_getopt(argc, argv, ":p:h", status_opts)) != -1) {
		ret = mpbpf_opt(c, optarg, &t);
		if (ret == 1)
			continue;
		if (ret)
			return ret;
		if (c != 'h')
			return MP_EXIT_USAGE;
		status_help();
		return MP_EXIT_OK;
	}
	ret = mpbpf_target_init(&t, argc, argv);
	if (ret)
		return ret;
	return t.kind->status(&t) ? MP_EXIT_ERR : MP_EXIT_OK;
}
