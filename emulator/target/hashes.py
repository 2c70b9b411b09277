"""Hash algorithms of v1model / BMv2, bit-exact with BMv2's calculations.

BMv2 feeds a hash with the field list's bits concatenated most significant first and
packed into bytes (the last byte zero-padded on the right when the bit count is not a
multiple of 8). See ../shared/BMV2-FACTS.md.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache


def reflect(value: int, width: int) -> int:
    """``value``'s low ``width`` bits in reverse order (CRC input/output reflection)."""
    out = 0
    for _ in range(width):
        out = (out << 1) | (value & 1)
        value >>= 1
    return out


@dataclass(frozen=True)
class CrcParams:
    """A Rocksoft-model CRC definition (as crc16_custom / crc32_custom take at run time)."""

    width: int
    poly: int
    init: int
    xorout: int
    refin: bool
    refout: bool


CRC16_ARC = CrcParams(16, 0x8005, 0x0000, 0x0000, True, True)
CRC32_ISO_HDLC = CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)
CRC16_CCITT = CrcParams(16, 0x1021, 0xFFFF, 0x0000, False, False)


@cache
def _table(params: CrcParams) -> tuple[int, ...]:
    """Byte-wise lookup table for ``params`` (reflected tables for reflected CRCs)."""
    width, mask = params.width, (1 << params.width) - 1
    table = []
    if params.refin:
        rpoly = reflect(params.poly, width)
        for byte in range(256):
            crc = byte
            for _ in range(8):
                crc = (crc >> 1) ^ rpoly if crc & 1 else crc >> 1
            table.append(crc & mask)
    else:
        top = 1 << (width - 1)
        for byte in range(256):
            crc = byte << (width - 8)
            for _ in range(8):
                crc = ((crc << 1) ^ params.poly) if crc & top else (crc << 1)
            table.append(crc & mask)
    return tuple(table)


@cache
def _reflected_init(params: CrcParams) -> int:
    return reflect(params.init, params.width)


def crc(params: CrcParams, data: bytes) -> int:
    """Compute the CRC described by ``params`` over ``data``."""
    width, mask = params.width, (1 << params.width) - 1
    table = _table(params)
    if params.refin:
        value = _reflected_init(params)
        for byte in data:
            value = (value >> 8) ^ table[(value ^ byte) & 0xFF]
        if not params.refout:
            value = reflect(value, width)
    else:
        value = params.init
        for byte in data:
            value = ((value << 8) & mask) ^ table[((value >> (width - 8)) ^ byte) & 0xFF]
        if params.refout:
            value = reflect(value, width)
    return (value ^ params.xorout) & mask


_CRC16_ARC_TABLE = _table(CRC16_ARC)


@cache
def _crc16_words() -> tuple[int, ...]:
    """CRC-16/ARC two bytes at a time: the state after XORing a little-endian 16-bit word
    into the register, then two byte steps with zero input (built on first use, ~10 ms)."""
    t = _CRC16_ARC_TABLE
    once = [(v >> 8) ^ t[v & 0xFF] for v in range(65536)]
    return tuple([(v >> 8) ^ t[v & 0xFF] for v in once])


@cache
def _le_words(nbytes: int) -> Callable[[bytes], tuple[int, ...]]:
    """Reads the little-endian 16-bit words of the first ``nbytes`` (rounded down) bytes."""
    return struct.Struct(f"<{nbytes // 2}H").unpack_from


def crc16(data: bytes) -> int:
    """CRC-16/ARC, BMv2's ``crc16`` (a per-packet hot path: two bytes per step)."""
    value, words, n = 0, _crc16_words(), len(data)
    for word in _le_words(n)(data):
        value = words[value ^ word]
    if n & 1:
        value = (value >> 8) ^ _CRC16_ARC_TABLE[(value ^ data[n - 1]) & 0xFF]
    return value


def crc32(data: bytes) -> int:
    """CRC-32/ISO-HDLC, BMv2's ``crc32``: the same CRC as zlib's, which computes it in C."""
    return zlib.crc32(data)


def crc16_ccitt(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, BMv2's ``crcCCITT``."""
    return crc(CRC16_CCITT, data)


def identity(data: bytes) -> int:
    """The input bytes as a big-endian integer (the caller truncates to its width)."""
    return int.from_bytes(data, "big")


def csum16(data: bytes) -> int:
    """16-bit ones'-complement Internet checksum (RFC 1071), BMv2's ``csum16``.

    One big-integer remainder in C: 2**16 is 1 modulo 0xFFFF, so the bytes read as one
    big-endian integer leave the same remainder as the sum of their 16-bit words, and
    that remainder is the end-around-carry sum, except that a non-zero sum folds to
    0xFFFF, never to 0.
    """
    if len(data) & 1:
        data += b"\x00"
    whole = int.from_bytes(data, "big")
    total = whole % 0xFFFF
    if total == 0 and whole:
        total = 0xFFFF
    return ~total & 0xFFFF


def xor16(data: bytes) -> int:
    """XOR of the input's 16-bit words, BMv2's ``xor16``."""
    if len(data) % 2:
        data += b"\x00"
    out = 0
    for i in range(0, len(data), 2):
        out ^= (data[i] << 8) | data[i + 1]
    return out


HASHES: dict[str, Callable[[bytes], int]] = {
    "crc16": crc16,
    "crc32": crc32,
    "crc16_custom": crc16,
    "crc32_custom": crc32,
    "crcCCITT": crc16_ccitt,
    "identity": identity,
    "csum16": csum16,
    "xor16": xor16,
}


def pack_fields(fields: Iterable[tuple[int, int]]) -> bytes:
    """Pack ``(value, bit_width)`` pairs MSB-first into bytes, zero-padding the last byte.

    This is how BMv2 builds a hash input from a field list.
    """
    acc, nbits = 0, 0
    for value, width in fields:
        acc = (acc << width) | (value & ((1 << width) - 1))
        nbits += width
    pad = (-nbits) % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big")


def v1model_hash(algo: str, fields: Iterable[tuple[int, int]], base: int, max_: int) -> int:
    """v1model ``hash(out, algo, base, data, max)``: ``base + (h % max)``, max 0 treated as 1."""
    h = HASHES[algo](pack_fields(fields))
    return base + (h % (max_ or 1))
