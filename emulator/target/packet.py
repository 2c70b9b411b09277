"""The per-packet context the generated code works on (besides the slot list ``f``)."""

from __future__ import annotations

from typing import Any

from emulator.target.codegen import ParserErrorSignal

PKT_INSTANCE_TYPE_NORMAL = 0
PKT_INSTANCE_TYPE_INGRESS_CLONE = 1
PKT_INSTANCE_TYPE_EGRESS_CLONE = 2
PKT_INSTANCE_TYPE_RECIRC = 4
PKT_INSTANCE_TYPE_REPLICATION = 5
PKT_INSTANCE_TYPE_RESUBMIT = 6


class Pkt:
    """A packet in flight: raw bytes, parse cursor, payload and pending v1model requests.

    The requests and flags live on the class until a packet sets its own (no ``__slots__``:
    a new packet writes five attributes, not sixteen; this is per packet, per switch)."""

    payload = b""
    exit = False
    clone_session: int | None = None
    clone_fl: int | None = None
    resubmit_fl: int | None = None
    recirc_fl: int | None = None
    digest: int | None = None
    digest_receiver = 0
    truncate = -1  # the length truncate() asked for, the smallest of them; -1: none
    origin: Any = None  # framereplay: the ingress outcome replayed instead of parsing
    full = True  # False: f holds metadata only, not the parsed header fields
    #: the port the frame came in on (BMv2's ``packet->get_ingress_port()``): kept through
    #: resubmit and recirculation, where standard_metadata.ingress_port is reset to 0, and
    #: what an I2E clone is parsed again with
    rx_port = 0

    def __init__(self, buf: bytes, f: list[int]) -> None:
        self.buf = buf
        #: BMv2's packet-length register: the frame's length, then +/- the bytes of headers
        #: made valid or invalid (add_header/remove_header); egress reads it as packet_length
        self.n = self.length_register = len(buf)
        self.off = 0
        self.f = f

    def look(self, bit_offset: int, width: int) -> int:
        """``lookahead``: ``width`` bits starting ``bit_offset`` bits past the cursor."""
        start = self.off * 8 + bit_offset
        end = start + width
        if end > self.n * 8:
            raise ParserErrorSignal(-1)  # PacketTooShort, resolved by the parser driver
        first, last = start // 8, (end + 7) // 8
        value = int.from_bytes(self.buf[first:last], "big")
        return (value >> (last * 8 - end)) & ((1 << width) - 1)

    def clear_requests(self) -> None:
        """Forget clone/resubmit/recirculate/digest/exit requests (between pipelines)."""
        self.exit = False
        self.clone_session = None
        self.clone_fl = None
        self.resubmit_fl = None
        self.recirc_fl = None
        self.digest = None
