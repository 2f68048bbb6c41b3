#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A BTH cut short, in a frame whose padding reads as the rest of it.

    padded_bth.py OPCODE QPN PSN [COUNT]

Sends COUNT (default 1) frames on b0, from mp_pair's hb to ha (MACs
02:00:00:00:0b:00 to 02:00:00:00:0a:00, 10.99.0.2 to 10.99.0.1): each
a UDP datagram to 4791 of 3 bytes (BTH opcode OPCODE, flags, half a
P_Key), in a frame padded to Ethernet's 60 bytes with what reads as the
rest of a BTH for destination QP QPN and PSN PSN.  The datagram's own
length says it is cut short; the frame's length does not.
"""
import socket
import struct
import sys


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    opcode, qpn, psn = (int(v, 0) for v in sys.argv[1:4])
    count = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    data = bytes([opcode, 0x00, 0xff])
    udp = struct.pack("!HHHH", 4791, 4791, 8 + len(data), 0) + data
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     socket.inet_aton("10.99.0.2"), socket.inet_aton("10.99.0.1"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = bytes.fromhex("020000000a00" "020000000b00" "0800")
    pad = bytes([0xff]) + struct.pack("!II", qpn & 0xffffff, psn & 0xffffff)
    frame = eth + ip + udp + pad
    frame += bytes(60 - len(frame))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(("b0", 0))
    for _ in range(count):
        s.send(frame)


if __name__ == "__main__":
    main()
