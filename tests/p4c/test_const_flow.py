"""``/`` and ``%`` see the values of local variables, as p4c-bm2-ss's constant propagation
lets them (``lowering/const_flow.py``); the cases were checked against p4c-bm2-ss 1.2.4.8
(accepted or refused there alike)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, assigned_to, ingress_program

INLINE = str(PROGRAMS / "inline.p4")
TTL = {"type": "field", "value": ["ipv4", "ttl"]}


def _ttl_source(body: str, decls: str = "") -> dict:
    return assigned_to(body, TTL, decls)


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("bit<8> x = 10;\n        hdr.ipv4.ttl = x % 7;", "0x03"),
        ("bit<8> x;\n        x = 10;\n        x = x + 1;\n        hdr.ipv4.ttl = x % 7;", "0x04"),
        ("bit<8> x = 10;\n        bit<8> y = x + 4;\n        hdr.ipv4.ttl = y / 5;", "0x02"),
        ("bit<8> x = hdr.ipv4.protocol;\n        x = 10;\n        hdr.ipv4.ttl = x / 3;", "0x03"),
        ("bit<8> x = 10;\n        hdr.ipv4.ttl = 100 % x;", "0x00"),
        (  # an if that leaves x alone keeps it known
            "bit<8> x = 10;\n        if (hdr.ipv4.ttl == 1) { hdr.ipv4.protocol = 1; }\n"
            "        hdr.ipv4.ttl = x % 7;",
            "0x03",
        ),
        (  # the value at the assignment, not after a later one
            "bit<8> a = 5;\n        bit<8> x = a;\n        a = 7;\n        hdr.ipv4.ttl = x % 3;",
            "0x02",
        ),
        (  # an inner block's x shadows the outer one
            "bit<8> x = 9;\n        { bit<8> x = 20; hdr.ipv4.protocol = x; }\n"
            "        hdr.ipv4.ttl = x % 7;",
            "0x02",
        ),
        ("bit<8> x = C + 1;\n        hdr.ipv4.ttl = x % 7;", "0x04"),  # a control constant
    ],
)
def test_known_locals_fold(body: str, value: str) -> None:
    src = _ttl_source("        " + body, "    const bit<8> C = 10;")
    assert src == {"type": "hexstr", "value": value}


def test_a_known_divisor_is_still_refused_unless_a_power_of_2() -> None:
    """p4c: ``h % x`` with x = 10 becomes ``h % 10``, refused; x = 8 compiles to a mask."""
    src = _ttl_source("        bit<8> x = 8;\n        hdr.ipv4.ttl = hdr.ipv4.ttl % x;")
    assert src["value"]["value"]["right"] == {"type": "hexstr", "value": "0x08"}
    with pytest.raises(CompileError, match="only by a constant power of 2"):
        _ttl_source("        bit<8> x = 10;\n        hdr.ipv4.ttl = hdr.ipv4.ttl % x;")


@pytest.mark.parametrize(
    "body",
    [
        # assigned in a branch: unknown after the if, even to the same value (p4c: refused)
        "bit<8> x = 10;\n        if (hdr.ipv4.ttl == 1) { x = 11; }\n        hdr.ipv4.ttl = x % 7;",
        "bit<8> x = 10;\n        if (hdr.ipv4.ttl == 1) { x = 10; }\n        hdr.ipv4.ttl = x % 7;",
        # written by a call, through a slice, or never initialised
        "bit<8> x = 10;\n        bump(x);\n        hdr.ipv4.ttl = x % 7;",
        "bit<8> x = 10;\n        x[3:0] = 1;\n        hdr.ipv4.ttl = x % 7;",
        "bit<8> x;\n        hdr.ipv4.ttl = x % 7;",
        "bit<8> x = hdr.ipv4.protocol;\n        hdr.ipv4.ttl = x % 7;",
        # a control-level variable (actions may write it)
        "hdr.ipv4.ttl = cv % 7;",
    ],
)
def test_unknown_values_still_refused(body: str) -> None:
    decls = (
        "    bit<8> cv = 10;\n    action bump(inout bit<8> v) { v = v + 1; }\n"
        "    action set_ttl(bit<8> v) { hdr.ipv4.ttl = v % 7; }"
    )
    with pytest.raises(CompileError, match="'%' could not be evaluated"):
        compile_source(ingress_program("        " + body, decls), INLINE)


def test_unused_actions_and_constant_arguments() -> None:
    """p4c inlines ``set_ttl(10)`` (10 % 7 folds) and drops the action itself before its back
    end would refuse ``v % 7``; a table using the action is still refused."""
    decls = "    action set_ttl(bit<8> v) { hdr.ipv4.ttl = v % 7; }"
    assert _ttl_source("        set_ttl(10);", decls) == {"type": "hexstr", "value": "0x03"}
    doc = compile_source(ingress_program("", decls), INLINE)
    assert "MyIngress.set_ttl" not in [a["name"] for a in doc["actions"]]
    table = decls + "\n    table t { key = { hdr.ipv4.ttl: exact; } actions = { set_ttl; } }"
    with pytest.raises(CompileError, match="'%' could not be evaluated"):
        compile_source(ingress_program("        t.apply();", table), INLINE)


OPS = st.sampled_from(["+", "-", "*", "&", "|", "^"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 2), OPS, st.integers(0, 255)),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 2),
    st.integers(1, 255),
)
def test_straight_line_locals_fold_like_python(steps, which, divisor) -> None:
    """Random straight-line updates of three bit<8> locals, then ``v % d``: the folded
    constant is what the statements compute (mod 2^8)."""
    values = [1, 2, 3]
    lines = [f"bit<8> v{i} = {v};" for i, v in enumerate(values)]
    for dst, src, op, k in steps:
        lines.append(f"v{dst} = v{src} {op} {k};")
        a = values[src]
        values[dst] = {"+": a + k, "-": a - k, "*": a * k, "&": a & k, "|": a | k, "^": a ^ k}[
            op
        ] % 256
    lines.append(f"hdr.ipv4.ttl = v{which} % {divisor};")
    src = _ttl_source("\n".join("        " + ln for ln in lines))
    assert int(src["value"], 16) == values[which] % divisor
