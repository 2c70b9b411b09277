"""Functions called in parser states: inlined when straight-line, refused with a position
otherwise (a parser op list has no jumps; p4c turns such functions into extra states)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.p4c import CompileError, compile_source

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
SOURCE = (CORPUS / "parser_functions.p4").read_text()
INC = "bit<8> inc(in bit<8> x) {\n    return x + 1;\n}\n"


def test_straight_line_functions_leave_no_jumps_in_parser_ops() -> None:
    doc = compile_source(SOURCE, str(CORPUS / "parser_functions.p4"))
    ops = [op for st in doc["parsers"][0]["parse_states"] for op in st["parser_ops"]]
    prims = [op["parameters"][0]["op"] for op in ops if op["op"] == "primitive"]
    assert not [p for p in prims if p.startswith("_")]
    assert any(op["op"] == "set" for op in ops)


@pytest.mark.parametrize(
    "body",
    [
        "bit<8> inc(in bit<8> x) {\n    if (x == 0) {\n        return 1;\n    }\n"
        "    return x + 1;\n}\n",
        "bit<8> inc(in bit<8> x) {\n    bit<8> y = x;\n    if (x == 0) {\n        y = 7;\n"
        "    }\n    return y + 1;\n}\n",
    ],
)
def test_function_with_control_flow_in_a_parser_state_is_refused_at_the_call(body: str) -> None:
    assert INC in SOURCE
    text = SOURCE.replace(INC, body)
    with pytest.raises(CompileError) as info:
        compile_source(text, "pf.p4")
    lines = text.split("\n")
    call = next(i for i, line in enumerate(lines) if "meta.m = inc(hdr.pf.k);" in line)
    assert info.value.pos.line == call + 1
    assert info.value.pos.col == lines[call].index("inc(") + 1
    assert "function inc has an if statement or an early return" in info.value.message
    assert "parser state" in info.value.message


def test_a_conditional_expression_in_a_function_called_in_a_parser_is_refused() -> None:
    """p4c-bm2-ss: "IfStatement: not supported in parser"; a ``?:`` in the state itself
    compiles on both."""
    body = "bit<8> inc(in bit<8> x) {\n    return x == 0 ? 8w1 : x + 1;\n}\n"
    text = SOURCE.replace(INC, body)
    with pytest.raises(CompileError, match=r"holds a conditional expression \(\?:\)") as info:
        compile_source(text, "pf.p4")
    assert info.value.pos.line == text.split("\n").index("    return x == 0 ? 8w1 : x + 1;") + 1
    direct = SOURCE.replace("meta.m = inc(hdr.pf.k);", "meta.m = hdr.pf.k == 0 ? 8w1 : 8w2;")
    compile_source(direct, "pf.p4")
