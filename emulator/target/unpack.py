"""How generated parser code reads a header's fields: one ``struct`` unpack, small ints.

Reading a whole header as one big integer (``int.from_bytes``) and shifting it is costly
for wide headers (IPv4: 160 bits): every shift makes a new big integer. Instead the header
is cut into byte-aligned units (runs of fields that start and end on a byte boundary),
each unit read as 8/4/2/1-byte unsigned big-endian integers by one precompiled
``struct.Struct.unpack_from``; a field is its unit, or the unit shifted and masked.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

_CODES = ((8, "Q"), (4, "I"), (2, "H"), (1, "B"))


def plan(widths: list[int]) -> tuple[Callable[..., tuple[int, ...]], list[tuple[str, str]]]:
    """(unpacker ``(buffer, offset) -> tuple v``, for each field: (a line to run first or
    "", the source of its value)) for a header of fields ``widths`` bits wide (whole bytes
    in all). A unit of several pieces read by several fields is computed once into ``x``."""
    fmt, out = "!", []
    n_ints = 0
    unit: list[int] = []
    for width in widths:
        unit.append(width)
        if sum(unit) % 8 == 0:
            parts = _parts(sum(unit) // 8)
            fmt += "".join(code for _, code in parts)
            value = _combine(parts, n_ints)
            n_ints += len(parts)
            first = ""
            if len(unit) > 1 and len(parts) > 1:  # a compound unit read by several fields
                first, value = f"x = {value}", "x"
            exprs = _fields(unit, value)
            out += [(first, exprs[0]), *(("", e) for e in exprs[1:])]
            unit = []
    if unit:
        raise ValueError("fields do not end on a byte boundary")
    return struct.Struct(fmt).unpack_from, out


def _parts(nbytes: int) -> list[tuple[int, str]]:
    """Greedy 8/4/2/1-byte pieces covering ``nbytes``."""
    out = []
    for size, code in _CODES:
        while nbytes >= size:
            out.append((size, code))
            nbytes -= size
    return out


def _combine(parts: list[tuple[int, str]], first: int) -> str:
    """Source of the unit's value from its pieces ``v[first]``... (most significant first)."""
    total = sum(size for size, _ in parts) * 8
    terms = []
    for i, (size, _) in enumerate(parts):
        total -= size * 8
        terms.append(f"(v[{first + i}] << {total})" if total else f"v[{first + i}]")
    return terms[0] if len(terms) == 1 else "(" + " | ".join(terms) + ")"


def _fields(widths: list[int], value: str) -> list[str]:
    """Source of each field of one unit: ``value`` shifted and masked."""
    shift, out = sum(widths), []
    for i, width in enumerate(widths):
        shift -= width
        if width == 0:
            out.append("0")
            continue
        part = f"({value} >> {shift})" if shift else value
        out.append(part if i == 0 else f"{part} & {(1 << width) - 1}")  # top bits: no mask
    return out


def pack(widths: list[int], sources: list[str]) -> tuple[Callable[..., bytes], list[str]]:
    """(packer ``(*pieces) -> bytes``, the source of each piece) writing fields ``widths``
    bits wide whose values are ``sources``, most significant first: the inverse of
    :func:`plan` (field values are within their widths, as every slot write keeps them)."""
    fmt, args = "!", []
    unit: list[tuple[int, str]] = []
    for width, source in zip(widths, sources, strict=True):
        unit.append((width, source))
        nbits = sum(w for w, _ in unit)
        if nbits % 8:
            continue
        parts = _parts(nbits // 8)
        fmt += "".join(code for _, code in parts)
        shift, terms = nbits, []
        for w, src in unit:
            shift -= w
            terms.append(f"({src} << {shift})" if shift else src)
        value = terms[0] if len(terms) == 1 else "(" + " | ".join(terms) + ")"
        rest = nbits
        for i, (size, _) in enumerate(parts):
            rest -= size * 8
            piece = f"({value} >> {rest})" if rest else value
            args.append(piece if i == 0 else f"{piece} & {(1 << (size * 8)) - 1}")
        unit = []
    if unit:
        raise ValueError("fields do not end on a byte boundary")
    return struct.Struct(fmt).pack, args
