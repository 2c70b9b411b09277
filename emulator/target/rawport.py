"""One switch port bound to a Linux interface through a raw AF_PACKET socket.

Receives every frame arriving on the interface (ETH_P_ALL, promiscuous through a
socket-scoped membership that the kernel drops when the socket closes) and skips frames
the host itself sends (PACKET_OUTGOING), so the switch never sees its own output.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import struct

from emulator.errors import UserError

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_IGNORE_OUTGOING = 23  # Linux >= 4.20
PACKET_OUTGOING = 4
MAX_FRAME = 65535
RCVBUF_BYTES = 4 * 1024 * 1024

#: send() errors that lose one frame but leave the port usable
_TRANSIENT = {errno.ENOBUFS, errno.EAGAIN, errno.EMSGSIZE}


class RawPort:
    """A non-blocking raw socket on interface ``ifname`` serving switch port ``port``."""

    def __init__(self, port: int, ifname: str) -> None:
        self.port = port
        self.ifname = ifname
        self.rx = self.tx = self.tx_errors = 0
        self.rx_bytes = self.tx_bytes = 0
        try:
            ifindex = socket.if_nametoindex(ifname)
        except OSError:
            raise UserError(f"interface {ifname!r} (port {port}): no such device") from None
        try:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        except PermissionError:
            raise UserError(f"interface {ifname!r}: raw sockets need root (CAP_NET_RAW)") from None
        try:
            sock.bind((ifname, ETH_P_ALL))
            mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
            sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF_BYTES)
            with contextlib.suppress(OSError):  # older kernel: recv() filters by pkttype
                sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            sock.setblocking(False)
        except OSError as exc:
            sock.close()
            raise UserError(f"interface {ifname!r} (port {port}): {exc.strerror}") from None
        self.sock = sock

    def fileno(self) -> int:
        """The socket's descriptor (for selectors)."""
        return self.sock.fileno()

    def recv(self) -> bytes | None:
        """One received frame, or None when nothing is waiting (outgoing frames skipped)."""
        while True:
            try:
                data, addr = self.sock.recvfrom(MAX_FRAME)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError as exc:  # interface went down / vanished: nothing to read
                if exc.errno in (errno.ENETDOWN, errno.ENXIO):
                    return None
                raise
            if addr[2] == PACKET_OUTGOING:
                continue
            self.rx += 1
            self.rx_bytes += len(data)
            return data

    def send(self, frame: bytes) -> bool:
        """Transmit ``frame``; False (and counted) if the kernel refused it."""
        try:
            self.sock.send(frame)
        except OSError as exc:
            if exc.errno in _TRANSIENT or exc.errno in (errno.ENETDOWN, errno.ENXIO):
                self.tx_errors += 1
                return False
            raise
        self.tx += 1
        self.tx_bytes += len(frame)
        return True

    def close(self) -> None:
        """Close the socket (the kernel also drops the promiscuous membership)."""
        self.sock.close()
