#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the ICRC of the RoCEv2 packets seen on some interfaces.

    roce_icrc.py [--opcode N]... [--count N] [--timeout S]
                 [--ready-file F] IFACE...

Reads every frame on the interfaces (AF_PACKET, both directions) until
COUNT RoCEv2 packets (UDP port 4791) of the given BTH opcodes, or all
opcodes, have been checked, TIMEOUT seconds have passed, or SIGTERM or
SIGINT came, then prints
one JSON object: how many were checked (in all and by IP version), how
many failed, and the first that failed with the ICRC it carries and the one it should.

The ICRC (InfiniBand annex A17) is CRC-32 from the IP header to the end
of the payload, after eight bytes of ones for the LRH RoCEv2 lacks, with
the fields that routers may rewrite read as ones: TOS or traffic class
and flow label, TTL or hop limit, the IP and UDP checksums, and BTH's
reserved byte.  It is stored least significant byte first.
"""
import argparse
import json
import select
import signal
import socket
import struct
import sys
import time
import zlib

ETH_P_ALL = 0x0003
ROCEV2_PORT = 4791
BTH_LEN = 12


def ip_datagram(frame):
    """The IP datagram in an Ethernet frame, VLAN tags skipped, or None."""
    off = 12
    while len(frame) >= off + 2:
        ethertype = struct.unpack_from("!H", frame, off)[0]
        if ethertype in (0x8100, 0x88A8):
            off += 4
            continue
        if ethertype not in (0x0800, 0x86DD):
            return None
        return frame[off + 2:]
    return None


def masked_headers(ip):
    """(the IP, UDP and BTH headers masked, the rest up to the ICRC), or
    None when this is not a whole RoCEv2 datagram."""
    version = ip[0] >> 4
    if version == 4:
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack_from("!H", ip, 2)[0]
        if ip[9] != socket.IPPROTO_UDP or ihl < 20 or total > len(ip):
            return None
    elif version == 6:
        ihl = 40
        total = 40 + struct.unpack_from("!H", ip, 4)[0]
        if ip[6] != socket.IPPROTO_UDP or total > len(ip):
            return None
    else:
        return None
    hlen = ihl + 8 + BTH_LEN
    if total < hlen + 4 or struct.unpack_from("!H", ip, ihl + 2)[0] != ROCEV2_PORT:
        return None
    head = bytearray(ip[:hlen])
    if version == 4:
        head[1] = 0xFF                  # TOS
        head[8] = 0xFF                  # TTL
        head[10:12] = b"\xff\xff"       # header checksum
    else:
        head[0] |= 0x0F                 # traffic class, flow label
        head[1:4] = b"\xff\xff\xff"
        head[7] = 0xFF                  # hop limit
    head[ihl + 6:ihl + 8] = b"\xff\xff"  # UDP checksum
    head[ihl + 8 + 4] = 0xFF            # BTH's reserved byte
    return bytes(head), ip[hlen:total - 4], ip[total - 4:total], ip[ihl + 8]


def icrc(head, rest):
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + head + rest))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opcode", type=lambda v: int(v, 0), action="append",
                    help="BTH opcodes to check (default all), e.g. 0x81 for CNPs")
    ap.add_argument("--count", type=int, default=1,
                    help="stop after this many checked (default 1)")
    ap.add_argument("--timeout", type=float, default=10,
                    help="stop after this many seconds (default 10)")
    ap.add_argument("--ready-file", help="created once every socket is bound")
    ap.add_argument("iface", nargs="+")
    args = ap.parse_args()

    def stop(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)

    socks = []
    for name in args.iface:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((name, 0))
        socks.append(s)
    if args.ready_file:
        open(args.ready_file, "w").close()

    result = {"checked": 0, "by_version": {"4": 0, "6": 0}, "bad": 0,
              "first_bad": None}
    try:
        check(socks, args, result)
    except KeyboardInterrupt:
        pass
    json.dump(result, sys.stdout)
    print()


def check(socks, args, result):
    """Read and check until COUNT or TIMEOUT, counting into result."""
    deadline = time.monotonic() + args.timeout
    while result["checked"] < args.count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select(socks, [], [], left)
        for s in ready:
            frame, addr = s.recvfrom(65536)
            ip = ip_datagram(frame)
            parts = ip and masked_headers(ip)
            if not parts:
                continue
            head, rest, carried, opcode = parts
            if args.opcode and opcode not in args.opcode:
                continue
            result["checked"] += 1
            result["by_version"][str(ip[0] >> 4)] += 1
            want = icrc(head, rest)
            if carried != want:
                result["bad"] += 1
                if result["first_bad"] is None:
                    result["first_bad"] = {"iface": addr[0], "opcode": opcode,
                                           "icrc": carried.hex(), "want": want.hex()}

if __name__ == "__main__":
    main()
