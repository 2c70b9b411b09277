"""Negative tests: bad programs give ``file:line:col: error: message`` + source line + caret."""

from __future__ import annotations

import pytest

from emulator.errors import UserError
from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, ingress_program

INLINE = str(PROGRAMS / "inline.p4")


def error_of(body: str, decls: str = "") -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(ingress_program(body, decls), INLINE)
    return info.value


@pytest.mark.parametrize(
    ("body", "col", "message"),
    [
        (
            "        hdr.ipv4.ttl = hdr.ipv4.ttl + 16w1;",
            24,
            "width mismatch in '+': bit<8> and bit<16>",
        ),
        (
            "        hdr.ipv4.ttl = hdr.ipv4.totalLen;",
            24,
            "width mismatch: assigned value of type bit<16> used where bit<8> is expected",
        ),
        ("        hdr.ipv4.nosuch = 8w1;", 9, "header ipv4_t has no field 'nosuch'"),
        ("        meta.nosuch = 8w1;", 9, "struct meta_t has no field 'nosuch'"),
        ("        undeclared = 8w1;", 9, "'undeclared' is not declared"),
        ("        mark_to_drop(std, std);", 9, "mark_to_drop expects 1 arguments, got 2"),
        ("        if (hdr.ipv4.ttl) { }", 13, "condition must be bool, found bit<8>"),
        ("        hdr.ipv4.ttl = 8w300;", 24, "value 300 does not fit in bit<8>"),
        (
            "        int<1> x = 0;",
            9,
            "int<1> is not supported on this target: simple_switch cannot hold a 1-bit signed "
            "field (it stops at load: nbits > 1); use bit<1> or int<2>",
        ),
        (
            "        hdr.ipv4.ttl = hdr.ipv4.ttl[8:1];",
            24,
            "slice [8:1] out of range for 8-bit value",
        ),
        ("        hdr.vlan[2].setValid();", 18, "index 2 out of bounds for stack of size 2"),
        (
            "        hdr.ipv4.ttl = hdr.ipv4.ttl +;",
            38,
            "syntax error: expected an expression, found ';'",
        ),
        ("        hdr.ipv4.ttl = 8w1", 5, "syntax error: expected ';', found '}'"),
        ("        meta.flag = !hdr.ipv4.ttl;", 21, "'!' needs a bool operand, found bit<8>"),
        ("        no_such_extern(1);", 9, "'no_such_extern' is not declared"),
        (
            "        hdr.ipv4.ttl = 0xff >> hdr.ipv4.ttl;",
            24,
            "width of left operand of shift needs to be specified (an untyped constant "
            "shifted by a run-time amount)",
        ),
    ],
)
def test_error_position_and_message(body: str, col: int, message: str) -> None:
    err = error_of(body)
    line = 8 if message.startswith("syntax error: expected ';'") else 7
    assert (err.pos.line, err.pos.col) == (line, col), str(err)
    assert err.message == message
    text = str(err)
    assert text.startswith(f"{INLINE}:{line}:{col}: error: {message}")
    src, caret = text.splitlines()[1:3]
    assert caret == " " * (col - 1) + "^"
    assert src.strip() and isinstance(err, UserError)


def test_action_wrong_arity_in_table_default() -> None:
    decls = """
    action set(bit<8> v) { hdr.ipv4.ttl = v; }
    table t { key = { hdr.ipv4.ttl: exact; } actions = { set; } default_action = set(); }"""
    err = error_of("t.apply();", decls)
    assert err.message == "action 'MyIngress.set' expects 1 arguments, got 0"
    assert err.pos.line == 7


def test_unsupported_match_kind_and_table_applied_twice() -> None:
    decls = """
    table t { key = { hdr.ipv4.ttl: fuzzy; } actions = { NoAction; } }"""
    assert error_of("t.apply();", decls).message == "unknown match kind 'fuzzy'"
    decls2 = """
    table t { key = { hdr.ipv4.ttl: exact; } actions = { NoAction; } }"""
    err = error_of("t.apply(); t.apply();", decls2)
    assert "applied more than once" in err.message


def test_unsupported_architecture_is_reported() -> None:
    src = "#include <core.p4>\npackage P();\nP() main;\n"
    with pytest.raises(CompileError) as info:
        compile_source(src, "arch.p4")
    assert info.value.message == "only the v1model V1Switch architecture is supported, not 'P'"
    assert (info.value.pos.line, info.value.pos.col) == (3, 1)


def test_missing_include_and_bad_character() -> None:
    with pytest.raises(CompileError, match=r"cannot find include file nothere\.p4"):
        compile_source('#include "nothere.p4"\n', "inc.p4")
    with pytest.raises(CompileError) as info:
        compile_source("const bit<8> x = 8w1;\n  $\n", "chr.p4")
    assert (info.value.pos.line, info.value.pos.col) == (2, 3)


def test_error_in_included_file_points_into_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "inc.p4").write_text("header h_t {\n    bit<8> a\n}\n")
    main = tmp_path / "main.p4"
    main.write_text('#include <core.p4>\n#include "inc.p4"\n')
    from emulator.p4c import compile_file

    with pytest.raises(CompileError) as info:
        compile_file(main)
    assert info.value.pos.file.endswith("inc.p4")
    assert (info.value.pos.line, info.value.pos.col) == (3, 1)


def test_garbage_input_never_crashes() -> None:
    for text in [
        "}}}",
        "header {",
        "control C(",
        "parser P() { state start { transition select( } }",
        "\x00",
        "const int x = 1/0;",
    ]:
        with pytest.raises(CompileError):
            compile_source(text, "garbage.p4")


def test_unsupported_features_have_positions() -> None:
    base = (PROGRAMS / "parser_features.p4").read_text()
    text = base.replace(
        "        pkt.advance(32);\n",
        "        switch (hdr.ethernet.etherType) { default: { } }\n        pkt.advance(32);\n",
    )
    with pytest.raises(CompileError) as info:
        compile_source(text, str(PROGRAMS / "unsup.p4"))
    line = text.split("\n").index("        switch (hdr.ethernet.etherType) { default: { } }") + 1
    assert info.value.message == "switch statements in parser states are not supported (use select)"
    assert info.value.pos.line == line
    err = error_of("        switch (meta.flag) { default: { } }")
    assert err.message == "switch needs table.apply().action_run or a bit<W>/enum value, found bool"
    assert (err.pos.line, err.pos.col) == (7, 17)


def test_mutated_programs_give_compile_errors_not_tracebacks() -> None:
    """Seeded token mutations of valid programs: success or CompileError, nothing else."""
    import random
    import re

    rng = random.Random(1234)
    errors = 0
    sources = [(p, p.read_text()) for p in sorted(PROGRAMS.glob("*.p4")) if p.name != "common.p4"]
    for _ in range(80):
        path, text = rng.choice(sources)
        toks = re.findall(r"\s+|\w+|[^\w\s]", text)
        for _ in range(rng.randint(1, 3)):
            i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
            op = rng.random()
            if op < 0.4:
                toks[i] = toks[j]
            elif op < 0.7:
                del toks[i]
            else:
                toks.insert(i, toks[j])
        try:
            doc = compile_source("".join(toks), str(path))
        except CompileError as exc:
            errors += 1
            assert exc.pos.line >= 0 and str(exc).count(": error: ") >= 1
        else:
            assert [p["name"] for p in doc["pipelines"]] == ["ingress", "egress"]
    assert errors >= 20  # most mutations break the program


def _v1switch(header: str, verify: str = "inout headers_t h, inout meta_t m") -> str:
    """A minimal program: ``header h_t`` with the given fields (line 3), ``V(verify)`` as
    the VerifyChecksum block (line 9)."""
    return f"""#include <core.p4>
#include <v1model.p4>
header h_t {{ {header} }}
struct meta_t {{ bit<3> small; }}
struct headers_t {{ h_t h; }}
parser P(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata_t s) {{
    state start {{ p.extract(h.h); transition accept; }}
}}
control V({verify}) {{ apply {{ }} }}
control C(inout headers_t h, inout meta_t m) {{ apply {{ }} }}
control I(inout headers_t h, inout meta_t m, inout standard_metadata_t s) {{ apply {{ }} }}
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t s) {{ apply {{ }} }}
control D(packet_out p, in headers_t h) {{ apply {{ p.emit(h.h); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_a_header_of_a_fractional_byte_is_refused_at_its_declaration() -> None:
    """As p4c-bm2-ss (BMv2 parses and emits whole bytes); a struct is padded instead."""
    with pytest.raises(CompileError) as info:
        compile_source(_v1switch("bit<8> a; bit<1> flag;"), INLINE)
    text = str(info.value)
    assert "inline.p4:3:1:" in text
    assert "header h_t: its fields total 9 bits" in text and "multiple of 8 bits" in text
    doc = compile_source(_v1switch("bit<8> a; bit<1> flag; bit<7> pad;"), INLINE)
    assert any(t["name"] == "h_t" for t in doc["header_types"])  # meta_t's 3 bits: padded


def test_a_block_whose_directions_differ_from_v1switch_is_refused() -> None:
    """``control V(in H h, inout M m)`` as V1Switch's VerifyChecksum (``inout H hdr``), as
    older v1model programs wrote it: p4c refuses it, so does fabemu, at the parameter."""
    with pytest.raises(CompileError) as info:
        compile_source(_v1switch("bit<8> a;", "in headers_t h, inout meta_t m"), INLINE)
    text = str(info.value)
    assert "inline.p4:9:11:" in text
    assert "V: parameter 'h' is 'in' where V1Switch's 'vr' is a control VerifyChecksum(" in text
    assert compile_source(_v1switch("bit<8> a;"), INLINE)
    with pytest.raises(CompileError, match="V has 1 parameters; V1Switch's 'vr' is a control"):
        compile_source(_v1switch("bit<8> a;", "inout headers_t h"), INLINE)
