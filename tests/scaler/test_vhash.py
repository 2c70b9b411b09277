"""The numpy CRC / packing twin is bit-exact with emulator.target.hashes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.scaler.model.vhash import crc16_rows, crc32_rows, crc_rows, pack_fields_np
from emulator.target import hashes

widths = st.integers(min_value=1, max_value=64)


@st.composite
def field_rows(draw: st.DrawFn) -> tuple[list[int], list[list[int]]]:
    """Field widths and a few rows of values that fit them."""
    ws = draw(st.lists(widths, min_size=1, max_size=8))
    nrows = draw(st.integers(min_value=1, max_value=5))
    rows = [
        [draw(st.integers(min_value=0, max_value=(1 << w) - 1)) for w in ws] for _ in range(nrows)
    ]
    return ws, rows


@settings(max_examples=200, deadline=None)
@given(field_rows())
def test_pack_and_crcs_match_scalar_reference(case: tuple[list[int], list[list[int]]]) -> None:
    ws, rows = case
    cols = [np.array([r[i] for r in rows], dtype=np.uint64) for i in range(len(ws))]
    packed = pack_fields_np(list(zip(cols, ws)))
    h16, h32 = crc16_rows(packed), crc32_rows(packed)
    ccitt = crc_rows(hashes.CRC16_CCITT, packed)
    for i, row in enumerate(rows):
        ref = hashes.pack_fields(list(zip(row, ws)))
        assert bytes(packed[i]) == ref
        assert int(h16[i]) == hashes.crc16(ref)
        assert int(h32[i]) == hashes.crc32(ref)
        assert int(ccitt[i]) == hashes.crc16_ccitt(ref)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2**32 - 1),
            st.integers(0, 2**32 - 1),
            st.integers(0xC000, 0xFFFF),
            st.integers(0, 2**24 - 1),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_roce_keys_13_and_16_bytes(flows: list[tuple[int, int, int, int]]) -> None:
    src, dst, sport, qpn = (np.array(c, dtype=np.uint64) for c in zip(*flows))
    five = [(src, 32), (dst, 32), (17, 8), (sport, 16), (4791, 16)]
    rows13 = pack_fields_np(five)
    rows16 = pack_fields_np([*five, (qpn, 24)])
    assert rows13.shape == (len(flows), 13) and rows16.shape == (len(flows), 16)
    for i, (s, d, sp, q) in enumerate(flows):
        f = [(s, 32), (d, 32), (17, 8), (sp, 16), (4791, 16)]
        assert int(crc16_rows(rows13)[i]) == hashes.crc16(hashes.pack_fields(f))
        assert int(crc32_rows(rows16)[i]) == hashes.crc32(hashes.pack_fields([*f, (q, 24)]))


def test_known_check_values() -> None:
    data = np.frombuffer(b"123456789", dtype=np.uint8)[None, :]
    assert int(crc16_rows(data)[0]) == 0xBB3D  # CRC-16/ARC check value
    assert int(crc32_rows(data)[0]) == 0xCBF43926  # CRC-32 check value


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError):
        pack_fields_np([])
    with pytest.raises(ValueError):
        pack_fields_np([(1, 65)])
    with pytest.raises(ValueError):
        crc16_rows(np.zeros(4, dtype=np.uint8))
