#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RoCEv2-shaped packets with chosen PSNs, and the order they arrive in.

    roce_psn.py send DST QPN PSN... [--opcode N] [--gap-ms MS]
    roce_psn.py recv COUNT [--timeout S] [--ready-file F]

send: one UDP datagram to DST port 4791 for each PSN, in the order given,
--gap-ms apart (default 1): an InfiniBand BTH (--opcode, default 0x04,
RC SEND ONLY; destination QP QPN) and a 4-byte ICRC placeholder (a
--gap-ms of 0 sends them back to back).  The
PSNs are decimal, or A-B for A to B; +MS waits MS milliseconds more.

recv: binds UDP port 4791 (IPv4 and IPv6) and waits for COUNT datagrams or
TIMEOUT seconds (default 10), then prints one JSON object: "psns", the
PSNs in the order they arrived, and "ms", when each one was read, in
milliseconds after the first.  Read time, not the kernel's receive
timestamp: a packet that mp0 held keeps the time it reached the rail.
Exit status 1 when fewer than COUNT came.
"""
import argparse
import json
import socket
import struct
import sys
import time

ROCEV2_PORT = 4791
SO_RCVBUFFORCE = 33


def psn_list(words):
    """PSNs from words such as 5 or 2-9, and pauses (+MS) as floats."""
    out = []
    for w in words:
        if w.startswith("+"):
            out.append(float(w[1:]))
            continue
        lo, _, hi = w.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def send(args):
    family = socket.AF_INET6 if ":" in args.dst else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    for i, psn in enumerate(psn_list(args.psn)):
        if isinstance(psn, float):
            time.sleep(psn / 1000)
            continue
        if i and args.gap_ms:
            time.sleep(args.gap_ms / 1000)
        bth = struct.pack("!BBHII", args.opcode, 0, 0xffff,
                          args.qpn & 0xffffff, psn & 0xffffff)
        s.sendto(bth + bytes(4), (args.dst, ROCEV2_PORT))
    return 0


def recv(args):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # A hold let go at once is hundreds of datagrams: room for them all.
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)
    except PermissionError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("::", ROCEV2_PORT))
    if args.ready_file:
        open(args.ready_file, "w").close()
    deadline = time.monotonic() + args.timeout
    psns, stamps = [], []
    while len(psns) < args.count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data = s.recv(2048)
        except socket.timeout:
            break
        if len(data) < 12:
            continue
        psns.append(struct.unpack_from("!I", data, 8)[0] & 0xffffff)
        stamps.append(time.monotonic_ns())
    ms = [round((t - stamps[0]) / 1e6, 3) for t in stamps]
    print(json.dumps({"psns": psns, "ms": ms}))
    return 0 if len(psns) >= args.count else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("dst")
    ps.add_argument("qpn", type=lambda v: int(v, 0))
    ps.add_argument("psn", nargs="+")
    ps.add_argument("--opcode", type=lambda v: int(v, 0), default=0x04)
    ps.add_argument("--gap-ms", type=float, default=1.0)
    pr = sub.add_parser("recv")
    pr.add_argument("count", type=int)
    pr.add_argument("--timeout", type=float, default=10.0)
    pr.add_argument("--ready-file")
    args = p.parse_args()
    return send(args) if args.mode == "send" else recv(args)


if __name__ == "__main__":
    sys.exit(main())
