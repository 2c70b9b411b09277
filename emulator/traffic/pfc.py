"""IEEE 802.1Qbb priority flow control (and 802.3x PAUSE) frames: build and parse.

    dst 01:80:c2:00:00:01 | src | 0x8808 | opcode 0x0101 | class-enable vector (16 bits,
    bit p = priority p) | 8 x 16-bit pause quanta (priority 0 first) | zero pad to 60 bytes

A quantum is 512 bit-times at the receiving port's speed; quanta 0 means resume (XON).
"""

from __future__ import annotations

import struct

from emulator.traffic.framing import mac_bytes

ETH_TYPE_MAC_CONTROL = 0x8808
OPCODE_PAUSE = 0x0001
OPCODE_PFC = 0x0101
PFC_DST_MAC = "01:80:c2:00:00:01"
QUANTUM_BITS = 512
_MAC_CONTROL = b"\x88\x08"
_PFC = struct.Struct("!HH8H")
_MIN_FRAME = 60


def build_pfc(src_mac: str, quanta: dict[int, int]) -> bytes:
    """A PFC frame pausing each priority ``p`` in ``quanta`` for ``quanta[p]`` quanta."""
    vector = 0
    times = [0] * 8
    for prio, q in quanta.items():
        if not 0 <= prio < 8 or not 0 <= q <= 0xFFFF:
            raise ValueError(f"bad PFC priority/quanta {prio}:{q}")
        vector |= 1 << prio
        times[prio] = q
    frame = mac_bytes(PFC_DST_MAC) + mac_bytes(src_mac) + _MAC_CONTROL
    frame += _PFC.pack(OPCODE_PFC, vector, *times)
    return frame.ljust(_MIN_FRAME, b"\x00")


def build_pause(src_mac: str, quanta: int) -> bytes:
    """An 802.3x PAUSE frame (all priorities)."""
    frame = mac_bytes(PFC_DST_MAC) + mac_bytes(src_mac) + _MAC_CONTROL
    frame += struct.pack("!HH", OPCODE_PAUSE, quanta)
    return frame.ljust(_MIN_FRAME, b"\x00")


def parse_pfc(frame: bytes) -> dict[int, int] | None:
    """{priority: quanta} of a PFC or PAUSE frame (PAUSE: all 8 priorities); None otherwise."""
    if len(frame) < 18 or frame[12:14] != _MAC_CONTROL:
        return None
    opcode = int.from_bytes(frame[14:16], "big")
    if opcode == OPCODE_PAUSE:
        q = int.from_bytes(frame[16:18], "big")
        return dict.fromkeys(range(8), q)
    if opcode != OPCODE_PFC or len(frame) < 14 + _PFC.size:
        return None
    _, vector, *times = _PFC.unpack_from(frame, 14)
    return {p: times[p] for p in range(8) if vector >> p & 1}


def quanta_to_ns(quanta: int, link_bps: float) -> int:
    """Pause duration of ``quanta`` at ``link_bps``, in integer nanoseconds (rounded up)."""
    bits = quanta * QUANTUM_BITS
    return -(-bits * 1_000_000_000 // int(link_bps))
