# SPDX-License-Identifier: GPL-2.0
"""Telemetry capture files for tests: the header and the framing of
uapi/linux/mplane.h (MPLANE_CAPTURE_*), in the byte order of this host,
so that generators only write the frames their test is about."""
import struct

CAPTURE_MAGIC = 0x5043504d      # "MPCP"
CAPTURE_VERSION = 1
HDR_LEN = 88


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
