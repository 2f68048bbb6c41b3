#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seeds for fuzz_capture (tools/fuzz/corpus/capture/): small captures
that between them hold every frame kind and every event type the model
reads, as mplanectl's sources write them, and the edges of the format (a
header alone, a longer header, a file cut inside a frame, frames empty
or shorter than their structs: the inputs of bugs the fuzzer found).  The fuzzer
mutates from these; run this again when the format grows.

  tools/fuzz/corpus_capture.py tools/fuzz/corpus/capture"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..',
                                'selftests', 'lib'))
from mpcapture import open_capture, event  # noqa: E402

CF_SOURCE, CF_IFNAME, CF_COUNTER_NAME, CF_STATS, CF_NETNS = 2, 3, 4, 5, 6
(EV_QUEUE_SAMPLE, EV_ECN_MARK, EV_CNP, EV_PORT_STATE, EV_PLANE_STATE,
 EV_FAILOVER, EV_STEP_MARK, EV_RATE_UPDATE, EV_COLLECTIVE, EV_PLANE_SAMPLE,
 EV_PORT_SAMPLE, EV_COUNTER, EV_FAULT) = 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, \
    13, 14, 16
NO_PLANE = 0xffff
MS = 1_000_000


def source(frame, src, label):
    frame(CF_SOURCE, src, label.encode() + b'\0')


def ifname(frame, src, ifindex, name, netns=0):
    frame(CF_IFNAME, src, struct.pack('<I16sI', ifindex, name.encode(),
                                      netns))


def netns(frame, src, inode, name):
    frame(CF_NETNS, src, struct.pack('<I', inode) + name.encode() + b'\0')


def counter_name(frame, src, cid, kind, ifindex, name):
    frame(CF_COUNTER_NAME, src, struct.pack('<III', cid, kind, ifindex) +
          name.encode() + b'\0')


def stats(frame, src):
    frame(CF_STATS, src, struct.pack('<4Q', 1000, 3, 997, 0))


def planes(path):
    """mplane.ko's relay: two hosts' mp0 in named namespaces, samples,
    a plane going down, a failover and DCQCN rate updates."""
    out, frame = open_capture(path, MS)
    source(frame, 0, 'dev/4026531840/mp0')
    netns(frame, 0, 4026531840, '')
    netns(frame, 0, 4026532001, 'mpf-h1')
    netns(frame, 0, 4026532002, 'mpf-h2')
    for ns in (4026532001, 4026532002):
        ifname(frame, 0, 5, 'mp0', ns)
        for t in range(4):
            for plane in (0, 1):
                event(frame, 0, EV_PLANE_SAMPLE, ns, 5, plane,
                      MS + t * MS, (100 * t, 1500 * t * (plane + 1), t, 0))
    event(frame, 0, EV_PLANE_STATE, 4026532001, 5, 1, 6 * MS, (1, 0, 0, 0))
    event(frame, 0, EV_FAILOVER, 4026532001, 5, 1, 6 * MS, (1, 0, 0, 0))
    event(frame, 0, EV_RATE_UPDATE, 4026532002, 5, 0, 7 * MS,
          (17, 50000, 100000, 0))
    event(frame, 0, EV_RATE_UPDATE, 4026532002, 5, NO_PLANE, 8 * MS,
          (17, 75000, 50000, 2))
    stats(frame, 0)
    out.close()


def ports(path):
    """A switch's sampler: uplinks and host ports, queues, ECN, CNPs and
    a port going down."""
    out, frame = open_capture(path, MS)
    source(frame, 1, 'fabric/f1/l0')
    for ifindex, name in ((3, 's0'), (4, 's1'), (5, 'h0')):
        ifname(frame, 1, ifindex, name)
    for t in range(5):
        for ifindex in (3, 4, 5):
            event(frame, 1, EV_PORT_SAMPLE, 0, ifindex, NO_PLANE, MS + t * MS,
                  (2000 * t, 9000 * t * ifindex, t, 6 * t))
    event(frame, 1, EV_QUEUE_SAMPLE, 0, 3, NO_PLANE, 3 * MS, (30000, 0, 5, 0))
    for i in range(3):
        event(frame, 1, EV_ECN_MARK, 0, 4, NO_PLANE, 4 * MS + i, (1, 0, 0, 0))
    event(frame, 1, EV_CNP, 0, 5, NO_PLANE, 4 * MS, (1, 0, 0, 0))
    event(frame, 1, EV_PORT_STATE, 0, 4, NO_PLANE, 5 * MS, (0, 1, 0, 0))
    event(frame, 1, EV_PORT_STATE, 0, 4, NO_PLANE, 6 * MS, (1, 0, 0, 0))
    stats(frame, 1)
    out.close()


def counters(path):
    """The pollers: netdev, ethtool and RDMA counters with their names."""
    out, frame = open_capture(path, MS)
    source(frame, 2, 'poll')
    names = ((0, 0, 7, 'rail0/tx_bytes'), (1, 0, 8, 'rail1/tx_bytes'),
             (2, 0, 7, 'rail0/rx_packets'),
             (3, 1, 9, 'mp0/ethtool/plane1_cnp_sent'),
             (4, 2, 0, 'rxe0/1/rcvd_pkts'), (5, 0, 9, 'mp0/tx_bytes'))
    for cid, kind, ifindex, name in names:
        counter_name(frame, 2, cid, kind, ifindex, name)
    for t in range(4):
        for cid, _, ifindex, _ in names:
            frame(1, 2, struct.pack('<BBHHHIIQ4Q', 1, EV_COUNTER, 56, 0,
                                    NO_PLANE, ifindex, cid, MS + t * MS,
                                    1000 * t * (cid + 1), 0, 0, 0))
    stats(frame, 2)
    out.close()


def marks(path):
    """Step marks, a collective's iterations and injected faults."""
    out, frame = open_capture(path, MS)
    source(frame, 3, 'marks')
    source(frame, 4, 'fabric/f1/faults')
    for it in range(3):
        event(frame, 3, EV_STEP_MARK, 0, 0, NO_PLANE, MS + it * MS,
              (it, 4242, 0, 0))
        for rank in (0, 1):
            event(frame, 3, EV_COLLECTIVE, 1, 7, NO_PLANE,
                  MS + it * MS + rank, (it, rank, 0, 0))
            event(frame, 3, EV_COLLECTIVE, 1, 7, NO_PLANE,
                  MS + it * MS + 500000 + rank, (it, rank, 1, 0))
    event(frame, 4, EV_FAULT, 0, 4, NO_PLANE, 2 * MS, (0, 0, 0, 0))
    event(frame, 4, EV_FAULT, 0, 4, NO_PLANE, 3 * MS, (2, 10_000_000, 0, 0))
    event(frame, 4, EV_FAULT, 0, 4, NO_PLANE, 4 * MS, (4, 0, 0, 0))
    out.close()


def clash(path):
    """Two sources with an mp0 each, and one source's two mp0 in unnamed
    namespaces: the names the model must tell apart."""
    out, frame = open_capture(path, MS)
    for src, label in ((0, 'fabric/f/h0/mp0'), (1, 'fabric/f/h1/mp0')):
        source(frame, src, label)
        ifname(frame, src, 5, 'mp0')
        event(frame, src, EV_PLANE_SAMPLE, 0, 5, 0, MS, (1, 100, 0, 0))
        event(frame, src, EV_PLANE_SAMPLE, 0, 5, 0, 2 * MS, (1, 200, 0, 0))
    source(frame, 2, 'dev/4026531840/mp0')
    netns(frame, 2, 11, '')
    for ns in (12, 13):
        ifname(frame, 2, 5, 'mp0', ns)
        event(frame, 2, EV_PLANE_SAMPLE, ns, 5, 0, MS, (1, 10, 0, 0))
    out.close()


def header_only(path):
    out, _ = open_capture(path, MS)
    out.close()


def longer_header(path):
    """A newer writer's header, 8 bytes longer: skipped by hdr_len."""
    with open(path, 'wb') as out:
        out.write(struct.pack('<IHHQQ64s', 0x5043504d, 1, 96, MS, 0,
                              b'newer') + b'\xff' * 8)
        out.write(struct.pack('<IHH', 8, 2, 0) + b'poll\0\0\0\0')


def cut(path):
    """A file cut inside its second frame."""
    ports(path)
    with open(path, 'r+b') as f:
        f.truncate(88 + 8 + 16 + 8 + 12)


def empty_frames(path):
    """Frames with no payload, of every kind: a payload is never NULL."""
    out, frame = open_capture(path, MS)
    for kind in (CF_SOURCE, CF_IFNAME, CF_COUNTER_NAME, CF_STATS, CF_NETNS,
                 1, 99):
        frame(kind, 3, b'')
    out.close()


def short_frames(path):
    """Frames shorter than their structs: skipped, nothing leaked."""
    out, frame = open_capture(path, MS)
    for kind in (CF_IFNAME, CF_COUNTER_NAME, CF_STATS, CF_NETNS, 1):
        frame(kind, 65535, b'\x01\x02\x03')
    out.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for gen in (planes, ports, counters, marks, clash, header_only,
                longer_header, cut, empty_frames, short_frames):
        gen(os.path.join(out, gen.__name__ + '.mpcap'))


if __name__ == '__main__':
    main()
