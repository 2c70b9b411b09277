"""csum16 (one big-integer remainder) equals RFC 1071's big-endian word loop."""

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
    # zero bytes sum to 0 (checksum 0xFFFF); an odd length is padded with a zero byte
    assert hashes.csum16(b"\x00" * 5) == 0xFFFF and hashes.csum16(b"\x80\x00\x80") == 0xFFFE
