"""Vectorised (numpy) CRC hashes and field packing, bit-exact with :mod:`emulator.target.hashes`.

The scaler hashes hundreds of thousands of flow keys per scenario; the scalar
:func:`emulator.target.hashes.crc16` would take minutes.  This module packs arrays of
field values MSB-first into byte rows exactly like :func:`~emulator.target.hashes.pack_fields`
and runs a table-driven CRC over all rows at once (one numpy pass per byte column)::

    fields [(src_ip,32),(dst_ip,32),(proto,8),(sport,16),(dport,16)]  (arrays of n values)
        --pack_fields_np-->  uint8[n, 13]  --crc_rows-->  uint32[n]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from emulator.target.hashes import CRC16_ARC, CRC32_ISO_HDLC, CrcParams, reflect
from emulator.target.hashes import _table as byte_table  # one table builder for both

FieldArrays = Sequence[tuple[np.ndarray | int, int]]


@cache
def _table(params: CrcParams) -> np.ndarray:
    """The target's byte-wise CRC lookup table as a read-only uint64 array."""
    out = np.array(byte_table(params), dtype=np.uint64)
    out.setflags(write=False)
    return out


def crc_rows(params: CrcParams, data: np.ndarray) -> np.ndarray:
    """CRC of every row of ``data`` (uint8, shape ``(n, length)``); returns uint64 ``(n,)``."""
    data = np.asarray(data, dtype=np.uint8)
    if data.ndim != 2:
        raise ValueError(f"crc_rows wants a 2-D uint8 array, got shape {data.shape}")
    width = params.width
    dt: Any = np.uint32 if width <= 32 else np.uint64
    mask = dt((1 << width) - 1)
    table = _table(params).astype(dt)
    cols = np.ascontiguousarray(data.T)
    n = data.shape[0]
    eight = dt(8)
    if params.refin:
        value: Any = np.full(n, reflect(params.init, width), dtype=dt)
        for col in cols:
            value = (value >> eight) ^ table[(value.astype(np.uint8) ^ col)]
        if not params.refout:
            value = _reflect_array(value, width)
    else:
        value = np.full(n, params.init, dtype=dt)
        shift = dt(width - 8)
        for col in cols:
            value = ((value << eight) & mask) ^ table[((value >> shift).astype(np.uint8) ^ col)]
        if params.refout:
            value = _reflect_array(value, width)
    return ((value ^ dt(params.xorout)) & mask).astype(np.uint64)


def _reflect_array(value: Any, width: int) -> Any:
    out = np.zeros_like(value)
    one = value.dtype.type(1)
    for _ in range(width):
        out = (out << one) | (value & one)
        value = value >> one
    return out


def crc16_rows(data: np.ndarray) -> np.ndarray:
    """CRC-16/ARC (BMv2 ``crc16``) of every row."""
    return crc_rows(CRC16_ARC, data)


def crc32_rows(data: np.ndarray) -> np.ndarray:
    """CRC-32/ISO-HDLC (BMv2 ``crc32``) of every row."""
    return crc_rows(CRC32_ISO_HDLC, data)


def pack_fields_np(fields: FieldArrays) -> np.ndarray:
    """Pack ``(values, bit_width)`` pairs MSB-first into uint8 rows, zero-padding the last byte.

    The row-wise twin of :func:`emulator.target.hashes.pack_fields`.  Values are masked to
    their width (widths up to 64 bits); scalars broadcast against arrays.  The result has
    shape ``(n, bytes)`` but is stored column-major, which is what :func:`crc_rows` reads.
    """
    if not fields:
        raise ValueError("pack_fields_np needs at least one field")
    for _, width in fields:
        if not 1 <= width <= 64:
            raise ValueError(f"field width {width} not in 1..64")
    sizes = [np.size(v) for v, _ in fields if np.ndim(v)]
    n = sizes[0] if sizes else 1
    total = sum(w for _, w in fields)
    nbytes = (total + 7) // 8
    cols = np.zeros((nbytes, n), dtype=np.uint8)  # built column-major: one row per byte
    if all(w % 8 == 0 for _, w in fields):
        pos = 0
        for value, width in fields:
            nb = width // 8
            col = _as_u64(value, width, n)
            big = col.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - nb :]
            cols[pos : pos + nb, :] = big.T
            pos += nb
        return cols.T
    pos = 0
    for value, width in fields:
        col = _as_u64(value, width, n)
        for i in range(width):
            bit = ((col >> np.uint64(width - 1 - i)) & np.uint64(1)).astype(np.uint8)
            cols[pos // 8] |= bit << np.uint8(7 - pos % 8)
            pos += 1
    return cols.T


def _as_u64(values: np.ndarray | int, width: int, n: int) -> np.ndarray:
    mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    arr = np.asarray(values, dtype=np.uint64) & mask
    return arr if arr.shape == (n,) else np.broadcast_to(arr, (n,)).copy()
