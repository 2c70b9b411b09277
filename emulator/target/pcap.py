"""A minimal pcap (libpcap classic format, Ethernet, microsecond stamps) writer.

``fabemu switch --pcap DIR`` writes ``DIR/<iface>_in.pcap`` and ``DIR/<iface>_out.pcap``
per interface, as simple_switch does; readable by tcpdump, tshark and scapy.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path
from types import TracebackType

PCAP_MAGIC_US = 0xA1B2C3D4
LINKTYPE_ETHERNET = 1
SNAPLEN = 65535


class PcapWriter:
    """Append Ethernet frames to a pcap file; flushes every ``flush_every`` frames."""

    def __init__(self, path: str | Path, flush_every: int = 1) -> None:
        self.path = Path(path)
        self._f = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self._f.write(
            struct.pack("<IHHiIII", PCAP_MAGIC_US, 2, 4, 0, 0, SNAPLEN, LINKTYPE_ETHERNET)
        )
        self._flush_every = max(1, flush_every)
        self._pending = 0
        self.count = 0

    def write(self, frame: bytes, ts_ns: int | None = None) -> None:
        """Record ``frame`` at ``ts_ns`` (ns since the epoch; now by default)."""
        if ts_ns is None:
            ts_ns = time.time_ns()
        sec, nsec = divmod(ts_ns, 1_000_000_000)
        data = frame[:SNAPLEN]
        self._f.write(struct.pack("<IIII", sec, nsec // 1000, len(data), len(frame)) + data)
        self.count += 1
        self._pending += 1
        if self._pending >= self._flush_every:
            self._f.flush()
            self._pending = 0

    def close(self) -> None:
        """Flush and close the file."""
        if not self._f.closed:
            self._f.close()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()


def read_pcap(path: str | Path) -> list[tuple[int, bytes]]:
    """Read a file written by :class:`PcapWriter`: (timestamp ns, frame) pairs (for tests)."""
    data = Path(path).read_bytes()
    magic, _maj, _min, _tz, _sig, _snap, link = struct.unpack_from("<IHHiIII", data)
    if magic != PCAP_MAGIC_US or link != LINKTYPE_ETHERNET:
        raise ValueError(f"{path}: not a little-endian microsecond Ethernet pcap")
    out = []
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, _orig = struct.unpack_from("<IIII", data, off)
        off += 16
        out.append((sec * 1_000_000_000 + usec * 1000, data[off : off + incl]))
        off += incl
    return out
