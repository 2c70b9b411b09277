"""Property tests for the PFC codec: round trip, and the decoder never raises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from emulator.vocab.pfc import decode_pfc, encode_pfc

macs = st.binary(min_size=6, max_size=6)
quanta = st.lists(st.integers(0, 0xFFFF), min_size=8, max_size=8)


@given(src=macs, enable=st.integers(0, 0xFF), q=quanta)
def test_pfc_round_trip(src: bytes, enable: int, q: list[int]) -> None:
    frame = encode_pfc(src, enable, q)
    d = decode_pfc(frame)
    assert d is not None
    assert (d.src_mac, d.class_enable, list(d.quanta)) == (src, enable, q)
    assert encode_pfc(d.src_mac, d.class_enable, d.quanta, d.dst_mac) == frame


@given(junk=st.binary(max_size=80))
def test_decoder_never_raises(junk: bytes) -> None:
    d = decode_pfc(junk)
    assert d is None or (junk[12:16] == b"\x88\x08\x01\x01" and 0 <= d.class_enable <= 0xFF)
