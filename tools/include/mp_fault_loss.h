/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * mp_fault_loss.h: what bpf/fault_loss.bpf.c and 'mplanectl fabric fault
 * loss' share: the program's maps, its name and its tc slot.  Not kernel
 * ABI.  The includer brings __u32 and friends: vmlinux.h in BPF,
 * <linux/types.h> in user space.
 *
 * The program is loaded once per port and attached to that port's tc
 * egress, so its maps hold that port's setting and counts alone: user
 * space finds them again from the filter (program, then its maps), with
 * no pin that another tool's cleanup could take away.
 */
#ifndef MP_FAULT_LOSS_H
#define MP_FAULT_LOSS_H

/* A share of packets in parts per million. */
#define MP_FAULT_PPM_ONE	1000000U

/* mp_fault_cfg[0]: what to drop. */
struct mp_fault_loss_cfg {
	__u32	ppm;
	__u32	pad;
};

/* mp_fault_stats[0], per CPU: what the program saw. */
struct mp_fault_loss_stats {
	__u64	passed;
	__u64	dropped;
};

#define MP_FAULT_LOSS_PROG	"mp_fault_drop"
#define MP_FAULT_LOSS_CFG	"mp_fault_cfg"
#define MP_FAULT_LOSS_STATS	"mp_fault_stats"

/*
 * Its tc slot on egress ("handle 0x4d46 pref 0x4d70" in tc's words):
 * after hostacct, pktcount and ar (0x4d48, 0x4d50, 0x4d60), whose
 * programs pass every packet on (TC_ACT_UNSPEC), so they count what is
 * sent before the wire loses it, as a NIC's counters would.
 */
#define MP_FAULT_TC_HANDLE	0x4d46
#define MP_FAULT_TC_PRIO	0x4d70

#endif /* MP_FAULT_LOSS_H */
