# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Stamp a Python program's steps into the mplane event stream.

The Python twin of mplane_mark.h: 'mplanectl mark serve' (run as root)
owns a Unix datagram socket; each mark is one struct mplane_mark_msg
datagram to it (tools/include/mplane_mark_proto.h), from any user, with nothing but
the standard library.  Sending never blocks: when the server is gone or
its queue is full the mark is dropped and mark() says so.

    import mplane_mark
    marker = mplane_mark.connect()      # OSError if no server listens
    for step in range(steps):
        marker.mark(mplane_mark.STEP, step)
        train_one_step()
        marker.mark(mplane_mark.STEP_END, step)
"""
import socket
import struct
import time

# As tools/include/mplane_mark_proto.h defines them (selftests/bpf/torch.sh compares).
MARK_SOCKET = "/run/mplane/mark.sock"
MARK_MAGIC = 0x4D504D4B  # "MPMK"
MARK_VERSION = 1
STEP, STEP_END, USER = 0, 1, 2  # enum mplane_mark_kind

# struct mplane_mark_msg: __u32 magic, __u16 version, __u16 kind,
# __u64 step, __u64 app_ts_ns; the host's byte order, no padding.
_MSG = struct.Struct("=IHHQQ")


class Marker:
    """A socket connected to the mark server; one datagram per mark."""

    def __init__(self, sock):
        self._sock = sock
        self.sent = 0
        self.dropped = 0

    def mark(self, kind, step):
        """Mark step as kind now: True if sent, False if dropped."""
        msg = _MSG.pack(MARK_MAGIC, MARK_VERSION, kind, step,
                        time.clock_gettime_ns(time.CLOCK_MONOTONIC))
        try:
            ok = self._sock.send(msg, socket.MSG_DONTWAIT) == len(msg)
        except OSError:
            # The server went away or its queue is full: the program
            # being marked must not notice beyond this count.
            ok = False
        if ok:
            self.sent += 1
        else:
            self.dropped += 1
        return ok

    def close(self):
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(path=None):
    """A Marker for the server at path (None: MARK_SOCKET).

    Raises OSError (FileNotFoundError, ConnectionRefusedError...) when
    no server listens there.
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
    try:
        sock.connect(path or MARK_SOCKET)
    except OSError:
        sock.close()
        raise
    return Marker(sock)
