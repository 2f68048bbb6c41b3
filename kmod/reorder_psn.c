// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 resequencing's decisions (see reorder_psn.h): BTH opcodes and
 * 24-bit PSN arithmetic, with no state of their own.
 */
#include "reorder_psn.h"

#define BTH_TRANSPORT_MASK	0xe0
#define BTH_TRANSPORT_RC	0x00
#define BTH_TRANSPORT_UC	0x20
#define BTH_OP_MASK		0x1f
#define BTH_OP_RDMA_READ_REQUEST	0x0c
#define BTH_OP_CMP_SWAP		0x13
#define BTH_OP_FETCH_ADD	0x14
#define BTH_OP_SEND_LAST_INV	0x16
#define BTH_OP_SEND_ONLY_INV	0x17
#define BTH_OP_UC_LAST		0x0b	/* RDMA WRITE only with immediate */

/*
 * Does a packet with BTH @opcode take the next PSN of its QP's requests?
 * Requests of RC and UC QPs do: sends, writes, reads and atomics.
 * Responses do not (an ACK's PSN is the last request it covers, so ACKs
 * skip PSNs), nor do UD datagrams, which nothing resends, nor CNPs.
 */
bool mplane_reorder_sequenced(u8 opcode)
{
	u8 op = opcode & BTH_OP_MASK;

	switch (opcode & BTH_TRANSPORT_MASK) {
	case BTH_TRANSPORT_RC:
		return op <= BTH_OP_RDMA_READ_REQUEST || op == BTH_OP_CMP_SWAP ||
		       op == BTH_OP_FETCH_ADD || op == BTH_OP_SEND_LAST_INV ||
		       op == BTH_OP_SEND_ONLY_INV;
	case BTH_TRANSPORT_UC:
		return op <= BTH_OP_UC_LAST;
	default:
		return false;
	}
}

/*
 * An RDMA READ request takes one PSN for each packet of its response,
 * which only its length and the QP's MTU tell: what comes after it has a
 * PSN that mp0 cannot know, and starts the sequence again.
 */
bool mplane_reorder_resyncs(u8 opcode)
{
	return opcode == (BTH_TRANSPORT_RC | BTH_OP_RDMA_READ_REQUEST);
}

/*
 * Does a packet with @opcode that comes behind the one expected start a
 * resend?  An RC responder drops what comes past a gap and NAKs it, and
 * the requester sends everything again from there (go-back-N).  UC
 * sends nothing twice: a UC packet behind is a straggler.
 */
bool mplane_reorder_goes_back(u8 opcode)
{
	return (opcode & BTH_TRANSPORT_MASK) == BTH_TRANSPORT_RC;
}

/* How far @psn is past @from, modulo 2^24: negative when before it. */
s32 mplane_psn_diff(u32 psn, u32 from)
{
	return (s32)((psn - from) << 8) >> 8;
}

/*
 * What becomes of a request with @psn when its QP expects @expected and
 * holds @held packets; @room says whether the device may hold one more.
 * A packet at most MPLANE_REORDER_DEPTH past the one expected may be
 * waiting for packets that another plane is bringing; one further on
 * follows a loss, which no wait fills.
 */
enum mplane_reorder_verdict mplane_reorder_verdict(u32 expected, u32 psn,
						   unsigned int held,
						   bool room)
{
	s32 ahead = mplane_psn_diff(psn, expected);

	if (ahead < -MPLANE_REORDER_BEHIND_MAX)
		return MPLANE_REORDER_RESTART;
	if (ahead <= 0)
		return MPLANE_REORDER_PASS;
	if (ahead >= MPLANE_REORDER_DEPTH || held >= MPLANE_REORDER_DEPTH - 1 ||
	    !room)
		return MPLANE_REORDER_GIVE_UP;
	return MPLANE_REORDER_HOLD;
}
