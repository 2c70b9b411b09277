"""csum16 summed in C (machine byte order) equals RFC 1071's big-endian word loop."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from emulator.target import hashes


def rfc1071(data: bytes) -> int:
    """The textbook checksum: big-endian 16-bit words, end-around carry, complement."""
    if len(data) % 2:
        data += b"\x00"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


@given(st.binary(max_size=200))
def test_csum16_equals_rfc1071(data: bytes) -> None:
    assert hashes.csum16(data) == rfc1071(data)


def test_csum16_known_header() -> None:
    """An IPv4 header with its checksum field zeroed (RFC 1071 example values)."""
    header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert hashes.csum16(header) == 0xB861
    assert hashes.csum16(b"\xff\xff" * 3) == 0 and hashes.csum16(b"") == 0xFFFF


def crc16_bytewise(data: bytes) -> int:
    """CRC-16/ARC one bit at a time (reflected polynomial 0xA001), the definition."""
    value = 0
    for byte in data:
        value ^= byte
        for _ in range(8):
            value = (value >> 1) ^ 0xA001 if value & 1 else value >> 1
    return value


@given(st.binary(max_size=200))
def test_crc16_two_bytes_a_step_equals_the_definition(data: bytes) -> None:
    assert hashes.crc16(data) == crc16_bytewise(data) == hashes.crc(hashes.CRC16_ARC, data)


def test_crc16_check_value() -> None:
    """The catalogue check value of CRC-16/ARC ("123456789"), odd and empty inputs."""
    assert hashes.crc16(b"123456789") == 0xBB3D
    assert hashes.crc16(b"") == 0 and hashes.crc16(b"\x01") == crc16_bytewise(b"\x01")
