# SPDX-License-Identifier: GPL-2.0
"""Telemetry capture files for tests: the header and the framing of
tools/include/mplane_capture.h (MPLANE_CAPTURE_*), in the byte order of this host,
so that generators only write the frames their test is about."""
import struct

CAPTURE_MAGIC = 0x5043504d      # "MPCP"
CAPTURE_VERSION = 1
HDR_LEN = 88
FRAME_EVENT = 1                 # MPLANE_CF_EVENT: one struct mplane_event


def open_capture(path, start_mono_ns, host=b'genhost',
                 start_real_ns=1_700_000_000_000_000_000):
    """Create @path with its header; return (file, frame), where
    frame(kind, source, payload) appends one frame, padded to 8 bytes."""
    out = open(path, 'wb')
    out.write(struct.pack('<IHHQQ64s', CAPTURE_MAGIC, CAPTURE_VERSION,
                          HDR_LEN, start_mono_ns, start_real_ns, host))

    def frame(kind, src, payload):
        out.write(struct.pack('<IHH', len(payload), kind, src))
        out.write(payload + b'\0' * (-len(payload) % 8))
    return out, frame


def event(frame, src, typ, netns, ifindex, plane, ts, values):
    """Append one MPLANE_CF_EVENT frame from source @src: a struct
    mplane_event (version 1, 56 bytes) of type @typ with its four
    @values."""
    frame(FRAME_EVENT, src, struct.pack('<BBHHHIIQ4Q', 1, typ, 56, 0, plane,
                                        ifindex, netns, ts, *values))
