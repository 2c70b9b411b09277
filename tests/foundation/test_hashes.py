"""BMv2 hash algorithms: standard check values and properties."""

from __future__ import annotations

import binascii

from hypothesis import given
from hypothesis import strategies as st

from emulator.target import hashes


def _bitwise_crc16_arc(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def test_check_values() -> None:
    assert hashes.crc16(b"123456789") == 0xBB3D
    assert hashes.crc32(b"123456789") == 0xCBF43926
    assert hashes.crc16_ccitt(b"123456789") == 0x29B1
    assert hashes.identity(b"\x01\x02") == 0x0102
    # RFC 1071 example words 0x0001 0xf203 0xf4f5 0xf6f7 -> sum 0xddf2, checksum 0x220d
    assert hashes.csum16(bytes.fromhex("0001f203f4f5f6f7")) == 0x220D
    assert hashes.xor16(bytes.fromhex("12345678")) == 0x1234 ^ 0x5678


@given(st.binary(max_size=64))
def test_crc32_matches_zlib(data: bytes) -> None:
    assert hashes.crc32(data) == binascii.crc32(data)


@given(st.binary(max_size=64))
def test_crc16_matches_bitwise_reference(data: bytes) -> None:
    assert hashes.crc16(data) == _bitwise_crc16_arc(data)


@given(st.lists(st.tuples(st.integers(0, 2**48), st.integers(1, 48)), max_size=8))
def test_pack_fields_is_msb_first_and_padded(fields: list[tuple[int, int]]) -> None:
    packed = hashes.pack_fields(fields)
    nbits = sum(w for _, w in fields)
    assert len(packed) == (nbits + 7) // 8
    acc = 0
    for value, width in fields:
        acc = (acc << width) | (value & ((1 << width) - 1))
    assert int.from_bytes(packed, "big") == acc << ((-nbits) % 8)


def test_v1model_hash_max_zero_is_one() -> None:
    assert hashes.v1model_hash("crc16", [(5, 8)], base=7, max_=0) == 7
    h = hashes.crc16(bytes([5]))
    assert hashes.v1model_hash("crc16", [(5, 8)], base=1, max_=4) == 1 + h % 4
