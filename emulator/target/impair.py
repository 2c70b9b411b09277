"""Wire-level impairments of one link direction: seeded random loss, bit corruption, a
stuck receiver's black hole.

Every data frame (PFC frames are exempt: the MAC handles them) passes through an
:class:`Impairment` before the wire; ``None`` means lost, otherwise the frame goes on,
possibly with one bit flipped. The virtual runtime's ``LinkDir.impair`` and the switch
process's ``set_port_impair`` command (emulator.target.process) use it::

    corrupt: flip one bit after the headers (Eth 14 + IPv4 20 + UDP 8 + BTH 12), inside the
             payload or, for payload-less frames (ACK/NAK/CTS), the ICRC itself, so switches
             forward it and the receiving RNIC's ICRC check fails (``icrc_errors``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

HEADERS = 14 + 20 + 8 + 12  # Ethernet, IPv4, UDP, BTH: left intact (the frame is routed)
ICRC_LEN = 4


@dataclass
class Impairment:
    """Loss (``mode='loss'``), corruption (``'corrupt'``) or black hole (``'stuck'``)."""

    mode: str
    probability: float
    rng: random.Random
    fault: int
    seen: int = 0
    lost: int = 0
    corrupted: int = 0
    active: bool = field(default=True)

    def __call__(self, frame: bytes) -> bytes | None:
        """The frame as it leaves the wire: None (lost), corrupted, or untouched."""
        if not self.active:
            return frame
        self.seen += 1
        if self.mode == "stuck":
            self.lost += 1
            return None
        if self.rng.random() >= self.probability:
            return frame
        if self.mode == "loss":
            self.lost += 1
            return None
        self.corrupted += 1
        return flip_bit(frame, self.rng)


def flip_bit(frame: bytes, rng: random.Random) -> bytes:
    """``frame`` with one random bit flipped past the routed headers (see module doc)."""
    lo = HEADERS if len(frame) > HEADERS + ICRC_LEN else max(0, len(frame) - ICRC_LEN)
    pos = rng.randrange(lo, len(frame))
    out = bytearray(frame)
    out[pos] ^= 1 << rng.randrange(8)
    return bytes(out)
