"""The ``FASTFRAME`` speed-up: RoCEv2 frames from per-QP header templates.

A QP's frames differ, outside their transport bytes, only by length: the Ethernet, IPv4
and UDP headers of a frame of a given length along a path are always the same bytes, and
so is the ICRC's CRC-32 state after those (masked) headers. ``TemplateRoceV2Framing``
keeps both per (path, transport length) in ``RocePath.templates`` and per frame only
joins the headers with the transport bytes and continues the CRC over them
(``zlib.crc32`` from the kept state). Same bytes as :class:`RoceV2Framing`
(tests/traffic/test_framing_fast.py: against scapy and the plain encoder).
"""

from __future__ import annotations

import zlib

from emulator import speedups
from emulator.traffic.framing import RocePath, RoceV2Framing, ip_udp_headers
from emulator.traffic.roce import icrc_headers_state

#: distinct transport lengths kept per path (a QP uses a handful: MTU, ACK, last segments)
MAX_TEMPLATES = 64
_ONE = b"\xff"


class TemplateRoceV2Framing(RoceV2Framing):
    """RoCEv2 framing whose headers and ICRC prefix come from per-path templates."""

    def encode(self, path: object, transport: bytes) -> bytes:
        """As :meth:`RoceV2Framing.encode`."""
        assert isinstance(path, RocePath)
        n = len(transport)
        hit = path.templates.get(n)
        if hit is None:
            ip, udp = ip_udp_headers(path, n)
            hit = (path.eth + ip + udp, icrc_headers_state(ip, udp))
            if len(path.templates) < MAX_TEMPLATES:
                path.templates[n] = hit
        head, state = hit
        crc = zlib.crc32(transport[:4] + _ONE, state)
        crc = zlib.crc32(memoryview(transport)[5:], crc)
        return b"".join((head, transport, crc.to_bytes(4, "little")))


def default_framing() -> RoceV2Framing:
    """The RNICs' framing: templated when ``FASTFRAME`` is on."""
    return TemplateRoceV2Framing() if speedups.enabled("FASTFRAME") else RoceV2Framing()
