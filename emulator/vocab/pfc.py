"""IEEE 802.1Qbb priority flow control (and 802.3x PAUSE) frames: the one codec.

A PFC frame is a MAC Control frame (untagged)::

    dst 01:80:c2:00:00:01 | src | EtherType 0x8808 | opcode 0x0101
    | class-enable vector (16 bit, bit i = class i, bits 8..15 reserved 0)
    | quanta[0] .. quanta[7] (8 x 16 bit) | zero padding to 60 bytes (FCS not included)

A quantum is 512 bit-times at the receiving port's speed, so the pause lasts
``quanta * 512 / speed`` seconds (rounded up to whole ns here). A quanta of 0 resumes the
class at once. Switches (``emulator.target``) and RNICs (``emulator.traffic``) both use it.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.vocab import MAC_CONTROL_DST, MIN_FRAME_BYTES, EtherType, MacControlOpcode

PFC_DST_MAC = MAC_CONTROL_DST.to_bytes(6, "big")
PFC_CLASSES = 8
BITS_PER_QUANTUM = 512

_HDR = struct.Struct("!6s6sHHH8H")  # dst, src, ethertype, opcode, class-enable, quanta
_PAUSE = struct.Struct("!6s6sHHH")  # dst, src, ethertype, opcode, quanta


@dataclass(frozen=True)
class PfcFrame:
    """A decoded PFC frame: who sent it, which classes it addresses, and their quanta."""

    src_mac: bytes
    class_enable: int
    quanta: tuple[int, ...]
    dst_mac: bytes = PFC_DST_MAC

    def paused_classes(self) -> list[int]:
        """Classes whose enable bit is set (their quanta apply)."""
        return [c for c in range(PFC_CLASSES) if self.class_enable >> c & 1]


def _mac_bytes(mac: bytes | str) -> bytes:
    """Accept ``aa:bb:cc:dd:ee:ff`` / ``aa-bb-...`` text or 6 raw bytes."""
    if isinstance(mac, str):
        text = mac.replace(":", "").replace("-", "")
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            raise ValueError(f"bad MAC address {mac!r}") from None
    else:
        raw = bytes(mac)
    if len(raw) != 6:
        raise ValueError(f"a MAC address has 6 bytes, got {len(raw)} in {mac!r}")
    return raw


def encode_pfc(
    src_mac: bytes | str,
    class_enable: int,
    quanta: Sequence[int],
    dst_mac: bytes | str = PFC_DST_MAC,
) -> bytes:
    """Build a 60-byte PFC frame; ``quanta`` has 8 values (0..65535), one per class."""
    if not 0 <= class_enable <= 0xFF:
        raise ValueError(f"class_enable must be 0..255 (8 classes), got {class_enable}")
    q = tuple(int(v) for v in quanta)
    if len(q) != PFC_CLASSES:
        raise ValueError(f"PFC carries {PFC_CLASSES} quanta, got {len(q)}")
    if any(not 0 <= v <= 0xFFFF for v in q):
        raise ValueError(f"each quanta must be 0..65535, got {q}")
    head = _HDR.pack(
        _mac_bytes(dst_mac),
        _mac_bytes(src_mac),
        EtherType.MAC_CONTROL,
        MacControlOpcode.PFC,
        class_enable,
        *q,
    )
    return head + bytes(MIN_FRAME_BYTES - len(head))


def build_pfc(src_mac: bytes | str, quanta: Mapping[int, int]) -> bytes:
    """A PFC frame pausing each priority ``p`` in ``quanta`` for ``quanta[p]`` quanta."""
    times = [0] * PFC_CLASSES
    vector = 0
    for prio, q in quanta.items():
        if not 0 <= prio < PFC_CLASSES or not 0 <= q <= 0xFFFF:
            raise ValueError(f"bad PFC priority/quanta {prio}:{q}")
        vector |= 1 << prio
        times[prio] = q
    return encode_pfc(src_mac, vector, times)


def build_pause(src_mac: bytes | str, quanta: int) -> bytes:
    """An 802.3x PAUSE frame (all priorities)."""
    head = _PAUSE.pack(
        PFC_DST_MAC, _mac_bytes(src_mac), EtherType.MAC_CONTROL, MacControlOpcode.PAUSE, quanta
    )
    return head + bytes(MIN_FRAME_BYTES - len(head))


def decode_pfc(frame: bytes) -> PfcFrame | None:
    """Parse a PFC frame; None when ``frame`` is not one (short, other EtherType/opcode)."""
    if len(frame) < _HDR.size:
        return None
    dst, src, ethertype, opcode, enable, *quanta = _HDR.unpack_from(frame)
    if ethertype != EtherType.MAC_CONTROL or opcode != MacControlOpcode.PFC:
        return None
    # bits 8..15 of the class-enable vector are reserved: ignored on receipt
    return PfcFrame(src_mac=src, class_enable=enable & 0xFF, quanta=tuple(quanta), dst_mac=dst)


def parse_pfc(frame: bytes) -> dict[int, int] | None:
    """{priority: quanta} of a PFC or PAUSE frame (PAUSE: all 8 priorities); None otherwise."""
    if len(frame) >= _PAUSE.size:
        _, _, ethertype, opcode, q = _PAUSE.unpack_from(frame)
        if ethertype == EtherType.MAC_CONTROL and opcode == MacControlOpcode.PAUSE:
            return dict.fromkeys(range(PFC_CLASSES), q)
    pfc = decode_pfc(frame)
    if pfc is None:
        return None
    return {p: pfc.quanta[p] for p in pfc.paused_classes()}


def quanta_to_ns(quanta: int, speed_bps: float) -> int:
    """Pause length of ``quanta`` at ``speed_bps``: quanta * 512 bit-times, rounded up to ns."""
    speed = round(speed_bps)
    if speed <= 0:
        raise ValueError(f"port speed must be positive, got {speed_bps}")
    return -(-quanta * BITS_PER_QUANTUM * 1_000_000_000 // speed)
