"""Writes to ``in`` parameters are refused at the written expression, as p4c refuses them
("cannot be the target of an assignment"); the write analysis behind table-action copies."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.p4c import CompileError, compile_source
from emulator.p4c.diagnostics import Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.writes import may_write, overlap, path_of, read_paths

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
SOURCE = (CORPUS / "parser_functions.p4").read_text()


@pytest.mark.parametrize(
    ("old", "new", "written", "root"),
    [
        # the deparser's headers are `in`
        ("pkt.emit(hdr.pf);", "hdr.pf.r1 = 1; pkt.emit(hdr.pf);", "hdr.pf.r1", "hdr"),
        ("pkt.emit(hdr.pf);", "hdr.pf.setInvalid(); pkt.emit(hdr.pf);", "hdr.pf", "hdr"),
        ("pkt.emit(hdr.pf);", "hdr.pf = {1, 2, 3, 4, 5, 6}; pkt.emit(hdr.pf);", "hdr.pf", "hdr"),
        # a function's in parameter
        (
            "bit<8> inc(in bit<8> x) {\n    return",
            "bit<8> inc(in bit<8> x) {\n    x = 1; return",
            "x",
            "x",
        ),
        # an action's in parameter and its directionless one (control-plane data)
        (
            "    apply {\n        std.egress_spec = 1;",
            "    action a(in bit<8> v) { v = 2; hdr.pf.r1 = v; }\n"
            "    table t { actions = { a(hdr.pf.k); } default_action = a(hdr.pf.k); }\n"
            "    apply {\n        t.apply();\n        std.egress_spec = 1;",
            "v",
            "v",
        ),
        (
            "    apply {\n        std.egress_spec = 1;",
            "    action d(bit<8> v) { v[3:0] = 2; hdr.pf.r1 = v; }\n"
            "    table t { actions = { d; } default_action = d(1); }\n"
            "    apply {\n        t.apply();\n        std.egress_spec = 1;",
            "v[3:0]",
            "v",
        ),
        # an in parameter passed on as another call's inout/out argument
        (
            "bit<8> twice_inc(in bit<8> x) {\n    return inc(inc(x));",
            "bit<8> twice_inc(in bit<8> x) {\n    bump(x, 1);\n    return x;",
            "x",
            "x",
        ),
        (
            "    apply {\n        std.egress_spec = 1;",
            "    register<bit<8>>(4) regs;\n"
            "    action a(in bit<8> v) { regs.read(v, 0); hdr.pf.r1 = v; }\n"
            "    table t { actions = { a(hdr.pf.k); } default_action = a(hdr.pf.k); }\n"
            "    apply {\n        t.apply();\n        std.egress_spec = 1;",
            "v",
            "v",
        ),
        (
            "    apply {\n        std.egress_spec = 1;",
            "    action d(bit<8> v) { random(v, 0, 7); hdr.pf.r1 = v; }\n"
            "    table t { actions = { d; } default_action = d(1); }\n"
            "    apply {\n        t.apply();\n        std.egress_spec = 1;",
            "v",
            "v",
        ),
    ],
)
def test_writes_to_in_parameters_are_refused_at_the_target(
    old: str, new: str, written: str, root: str
) -> None:
    assert old in SOURCE
    text = SOURCE.replace(old, new, 1)
    with pytest.raises(CompileError) as info:
        compile_source(text, "ro.p4")
    assert info.value.message == (
        f"{written} cannot be written: parameter '{root}' is read-only (not out or inout)"
    )
    line = text.split("\n")[info.value.pos.line - 1]
    assert line[info.value.pos.col - 1 :].startswith(written)
    assert line[info.value.pos.col - 1 :].startswith(new.split("\n")[-1].strip()) or (
        written in new
    )


def test_a_local_shadowing_an_in_parameter_may_be_written() -> None:
    old = "bit<8> inc(in bit<8> x) {\n    return x + 1;"
    new = "bit<8> inc(in bit<8> x) {\n    bit<8> y = x;\n    y = y + 1;\n    return y;"
    doc = compile_source(SOURCE.replace(old, new, 1), "ok.p4")
    assert doc["parsers"]


P = Pos("w.p4", 1, 1)


def _name(*parts: str) -> A.Expr:
    e: A.Expr = A.Name(P, parts[0])
    for p in parts[1:]:
        e = A.Member(P, e, p)
    return e


def test_paths_name_storage_with_any_index_as_one_element() -> None:
    stack = A.Index(P, _name("hdr", "s"), A.IntLit(P, 1))
    assert path_of(A.Member(P, stack, "v")) == ("hdr", "s", "[]", "v")
    assert path_of(_name("hdr", "s", "next", "v")) == ("hdr", "s", "[]", "v")
    assert path_of(A.Slice(P, _name("m", "f"), A.IntLit(P, 3), A.IntLit(P, 0))) == ("m", "f")
    assert path_of(A.Binary(P, "+", _name("a"), _name("b"))) is None
    run_time = A.Member(P, A.Index(P, _name("hdr", "s"), _name("meta", "i")), "v")
    assert read_paths(run_time) == [("hdr", "s", "[]", "v"), ("meta", "i")]
    assert read_paths(A.Binary(P, "+", _name("h", "a"), _name("h", "b"))) == [
        ("h", "a"),
        ("h", "b"),
    ]


paths = st.lists(st.sampled_from(["hdr", "w", "f", "g", "[]"]), min_size=1, max_size=4).map(tuple)


@given(paths, paths)
def test_overlap_is_symmetric_and_prefixes_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> None:
    assert overlap(a, b) == overlap(b, a)
    assert overlap(a, a + b)
    if a[0] != b[0] and "[]" not in (a[0], b[0]):
        assert not overlap(a, b)


def test_may_write_follows_called_actions_and_skips_parameters() -> None:
    inner = A.ActionDecl(
        P, "w6", (), A.Block(P, (A.Assign(P, _name("hdr", "w", "f6"), A.IntLit(P, 9)),))
    )
    call = A.CallStmt(P, A.Call(P, A.Name(P, "w6"), (), ()))
    own = A.Assign(P, _name("x"), A.IntLit(P, 1))
    pop = A.CallStmt(P, A.Call(P, A.Member(P, _name("hdr", "s"), "pop_front"), (), ()))
    body = A.Block(P, (call, own, pop))
    found = may_write(body, {"x"}, lambda n: inner if n == "w6" else None)
    assert sorted(found) == [("hdr", "s"), ("hdr", "w", "f6")]
