// SPDX-License-Identifier: GPL-2.0
/* mplanectl bpf status: what a program of mplane's holds on a device. */
#include "bpf_prog.h"
#include "mp_cmd.h"
#include "mplanectl.h"
#include "mplane_maps.h"
#include "pktcount.h"

static const struct mp_opt status_opts[] = {
	MPBPF_OPT_PROG,
	{}
};

/* The slots' numbers are tc's: pref is decimal in 'tc filter show'. */
_Static_assert(PKTCOUNT_TC_HANDLE == 0x4d50 && PKTCOUNT_TC_PRIO == 19792,
	       "status_cmd.about names pktcount's tc slot");

static const struct mp_opt_cmd status_cmd = {
	.usage = "bpf status [--prog NAME] DEV",
	.about =
"Show whether a program of mplane's (pktcount unless --prog says\n"
"otherwise) is attached to the hooks of DEV and what it has counted since\n"
"it was first attached.  Bytes include the link-layer header.\n"
"\n"
"pktcount: packets and bytes per direction and protocol class (ipv4,\n"
"ipv6, arp, other, from the packet's link-layer protocol), found through\n"
"its program on tcx or its tc filter (handle 0x4d50, priority 19792),\n"
"so a status is always that of DEV itself; \"tc_hook\" says which.  With\n"
"-j, one JSON object:\n"
"  {\"dev\":\"eth0\",\"ifindex\":2,\n"
"   \"ingress\":{\"attached\":true,\"tc_hook\":\"tcx\",\"prog_id\":41,\"map_id\":7,\n"
"              \"ipv4\":{\"packets\":10,\"bytes\":980},\"ipv6\":{...},\n"
"              \"arp\":{...},\"other\":{...}},\n"
"   \"egress\":{\"attached\":false}}\n"
"\n"
"hostacct: per direction, where it is attached (tc or xdp) and the rail's\n"
"counters summed over CPUs; then one line per destination QP seen, and\n"
"the events produced and dropped (ring full).  Counters are read from the\n"
"maps pinned under " MPLANE_BPF_PIN_ROOT "/dev/NETNS/DEV/, so they\n"
"survive a re-attach and a move between tc and XDP.  With -j, one JSON\n"
"object:\n"
"  {\"dev\":\"eth0\",\"ifindex\":2,\"prog\":\"hostacct\",\"pin\":\"/sys/fs/bpf/...\",\n"
"   \"ingress\":{\"attached\":true,\"hook\":\"xdp\",\"prog_id\":52,\"packets\":10,\n"
"              \"bytes\":1220,\"ect\":0,\"ecn_ce\":10,\"udp_ce\":10,\"tcp_ce\":0,\n"
"              \"roce_packets\":10,\"roce_bytes\":1220,\"roce_ce\":10,\"cnp\":0,\n"
"              \"malformed\":0,\"truncated\":0},\n"
"   \"egress\":{\"attached\":true,\"hook\":\"tc\",\"tc_hook\":\"tcx\",...},\n"
"   \"qps\":[{\"qpn\":4660,\"dir\":\"ingress\",\"packets\":10,\"bytes\":1220,\n"
"            \"ecn_ce\":10,\"cnp\":0,\"ack_req\":2,\"last_psn\":9}],\n"
"   \"event_ring\":{\"produced\":0,\"dropped\":0}}\n"
"\"attached\" is false where it is not (and there is no \"hook\"); the\n"
"counters stay until detach.\n",
	.opts = status_opts,
	.footer =
"Examples:\n"
"  mplanectl bpf status eth0\n"
"  mplanectl -j bpf status eth0 | jq .ingress.ipv4.packets\n"
"  mplanectl -j bpf status --prog hostacct ens1f0 | jq .ingress.cnp\n",
};

int bpf_status_main(int argc, char **argv)
{
	struct mpbpf_target t = {};
	int ret;

	ret = mpbpf_parse(&status_cmd, argc, argv, &t);
	if (ret != MP_OPT_RUN)
		return ret;
	return t.kind->status(&t) ? MP_EXIT_ERR : MP_EXIT_OK;
}
