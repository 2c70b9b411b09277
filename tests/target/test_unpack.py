"""Header fields read by struct units (emulator/target/unpack.py) equal the big-integer
reading: the header's bytes as one number, each field its bits, most significant first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from emulator.target import unpack


@st.composite
def header(draw: st.DrawFn) -> tuple[list[int], bytes, int]:
    """Field widths (1-72 bits, padded to whole bytes), the header's bytes, an offset."""
    widths = draw(st.lists(st.integers(1, 72), min_size=1, max_size=14))
    if sum(widths) % 8:
        widths.append(8 - sum(widths) % 8)
    offset = draw(st.integers(0, 5))
    size = offset + sum(widths) // 8
    data = draw(st.binary(min_size=size, max_size=size + 8))
    return widths, data, offset


def reference(widths: list[int], data: bytes, offset: int) -> list[int]:
    total = sum(widths)
    x = int.from_bytes(data[offset : offset + total // 8], "big")
    out = []
    for width in widths:
        total -= width
        out.append((x >> total) & ((1 << width) - 1))
    return out


@given(header())
def test_units_equal_the_big_integer(case: tuple[list[int], bytes, int]) -> None:
    widths, data, offset = case
    unpacker, fields = unpack.plan(widths)
    ns = {"v": unpacker(data, offset)}
    got = []
    for first, value in fields:
        if first:
            exec(first, ns)  # generated from widths only: "x = <v pieces>"
        got.append(eval(value, ns))  # the module's arithmetic on v, x
    assert got == reference(widths, data, offset)


def test_not_whole_bytes_is_refused() -> None:
    try:
        unpack.plan([4, 8])
    except ValueError:
        return
    raise AssertionError("a header of 12 bits was accepted")


@given(st.data())
def test_pack_equals_the_big_integer(data: st.DataObject) -> None:
    """Fields within their widths, packed by units, are the big-integer bytes (what the
    deparser emitted before), and reading them back gives the fields."""
    widths, _, _ = data.draw(header())
    values = [data.draw(st.integers(0, (1 << w) - 1)) for w in widths]
    packer, args = unpack.pack(widths, [f"f[{i}]" for i in range(len(widths))])
    out = eval(f"packer({', '.join(args)})", {"packer": packer, "f": values})
    big, total = 0, 0
    for value, width in zip(values, widths):
        big, total = (big << width) | value, total + width
    assert out == big.to_bytes(total // 8, "big")
    assert reference(widths, out, 0) == values
