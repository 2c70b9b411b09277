"""``/`` and ``%`` as p4c-bm2-ss compiles them: constants fold; a run-time value divides
only by a constant power of 2 (1 included); ``0 / x`` and ``0 % x`` are 0; anything else is
refused at the expression's ``file:line:col``, as p4c refuses it ("could not evaluate
expression at compilation time")."""

from __future__ import annotations

import json

import pytest

from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, assigned_to, ingress_program

INLINE = str(PROGRAMS / "inline.p4")
TTL = {"type": "field", "value": ["ipv4", "ttl"]}


def _ttl_value(body: str, decls: str = "") -> dict:
    return assigned_to(body, TTL, decls)


@pytest.mark.parametrize(
    ("expr", "col", "message"),
    [
        ("hdr.ipv4.ttl % 8w7", 24, "'%' could not be evaluated at compilation time"),
        ("hdr.ipv4.ttl / 7", 24, "'/' could not be evaluated at compilation time"),
        ("8w8 % hdr.ipv4.ttl", 24, "'%' could not be evaluated at compilation time"),
        ("hdr.ipv4.ttl % hdr.ipv4.protocol", 24, "'%' could not be evaluated"),
        ("(bit<8>)hdr.ipv4.totalLen / 8w6", 24, "'/' could not be evaluated"),
        ("8w1 + hdr.ipv4.ttl % 3", 30, "'%' could not be evaluated"),
        ("hdr.ipv4.ttl % 0", 24, "modulo by zero: the divisor is 0 as bit<8>"),
        ("hdr.ipv4.ttl / 256", 24, "division by zero: the divisor is 0 as bit<8>"),
    ],
)
def test_refused_with_the_expressions_position(expr: str, col: int, message: str) -> None:
    with pytest.raises(CompileError) as err:
        compile_source(ingress_program(f"        hdr.ipv4.ttl = {expr};"), INLINE)
    assert (err.value.pos.line, err.value.pos.col) == (7, col), str(err.value)
    assert err.value.message.startswith(message)
    if "evaluated" in message:
        assert "only by a constant power of 2" in err.value.message


def test_refused_in_a_condition_and_in_a_parser_too() -> None:
    with pytest.raises(CompileError, match="'%' could not be evaluated") as err:
        compile_source(ingress_program("        if (hdr.ipv4.ttl % 8w3 == 0) { }"), INLINE)
    assert (err.value.pos.line, err.value.pos.col) == (7, 13)
    text = ingress_program("").replace("SIMPLE_PARSER", PARSER, 1)
    with pytest.raises(CompileError, match="'/' could not be evaluated") as err:
        compile_source(text, INLINE)
    assert (err.value.pos.line, err.value.pos.col) == (5, 45)


PARSER = """parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ipv4); meta.color = hdr.ipv4.ttl / 8w10; transition accept;
    }
}
"""


@pytest.mark.parametrize(
    ("expr", "op", "divisor"),
    [
        ("hdr.ipv4.ttl % 8", "%", "0x08"),
        ("hdr.ipv4.ttl / 8w4", "/", "0x04"),
        ("hdr.ipv4.ttl % 1", "%", "0x01"),
        ("hdr.ipv4.ttl / 128", "/", "0x80"),
        ("hdr.ipv4.ttl % (8w3 + 8w5)", "%", "0x08"),
        ("hdr.ipv4.ttl / C", "/", "0x10"),
    ],
)
def test_a_power_of_2_divisor_compiles(expr: str, op: str, divisor: str) -> None:
    src = _ttl_value(f"        hdr.ipv4.ttl = {expr};", "    const bit<8> C = 16;")
    inner = src["value"]["value"]
    assert inner["op"] == op and inner["left"] == TTL
    assert inner["right"] == {"type": "hexstr", "value": divisor}


@pytest.mark.parametrize(
    ("expr", "value"),
    [("8w17 % 8w5", "0x02"), ("17 / 5", "0x03"), ("8w0 % hdr.ipv4.ttl", "0x00")],
)
def test_constants_and_a_zero_dividend_fold(expr: str, value: str) -> None:
    src = _ttl_value(f"        hdr.ipv4.ttl = {expr};")
    assert src == {"type": "hexstr", "value": value}, json.dumps(src)
