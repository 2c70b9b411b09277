"""Programs p4c-bm2-ss 1.2.4.8 refuses are refused here too, at ``file:line:col`` (each was
accepted before; found by differential probes against the real compiler)."""

from __future__ import annotations

import pytest

from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, ingress_program

INLINE = str(PROGRAMS / "inline.p4")


@pytest.mark.parametrize(
    ("decls", "body", "fragment", "message"),
    [
        (  # p4c: Cannot cast from 'bool' to 'bit<8>'
            "",
            "        meta.color = (bit<8>)(hdr.ipv4.ttl > 5);",
            "(bit<8>)",
            "cannot cast bool to bit<8> (only to bit<1>)",
        ),
        (  # p4c: Shifts with negative amounts are not permitted
            "",
            "        hdr.ipv4.ttl = hdr.ipv4.ttl << -1;",
            "-1",
            "shifts with negative amounts are not permitted",
        ),
        (  # p4c: Expected 1 argument for mark_to_drop
            "",
            "        mark_to_drop();",
            "mark_to_drop",
            "mark_to_drop expects 1 argument, mark_to_drop(standard_metadata)",
        ),
        (  # p4c: Width must be specified for at least one of 3 or 4
            "",
            "        hdr.ipv4.ttl = hdr.ipv4.ttl == 1 ? 3 : 4;",
            "hdr.ipv4.ttl == 1",
            "untyped constants in both arms of '?:'; give one a width",
        ),
        (  # p4c: multiple LPM keys in table ... not supported
            "    action a() { }\n"
            "    table t2 { key = { hdr.ipv4.srcAddr: lpm; hdr.ipv4.dstAddr: lpm; } "
            "actions = { a; } }",
            "        t2.apply();",
            "hdr.ipv4.dstAddr: lpm",
            "table MyIngress.t2 has several lpm keys (BMv2: one)",
        ),
        (  # p4c: Action marked with defaultonly used in table
            "    action a() { }\n"
            "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { a; @defaultonly NoAction; }"
            " const entries = { 1: NoAction(); } }",
            "        t2.apply();",
            "NoAction()",
            "action NoAction is @defaultonly: it cannot be used in entries of table MyIngress.t2",
        ),
        (  # p4c: Action marked with tableonly used as default action
            "    action a(bit<8> v) { hdr.ipv4.ttl = v; }\n"
            "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { @tableonly a; NoAction; }"
            " default_action = a(3); }",
            "        t2.apply();",
            "default_action",
            "action MyIngress.a is @tableonly: it cannot be used as the default action of "
            "table MyIngress.t2",
        ),
        (  # p4c: Cannot cast from 'bit<4>' to 'int<8>'
            "",
            "        int<8> s = 0;\n        s[7:4] = 4w8;",
            "s[7:4]",
            "slice assignment needs a bit<W> field or variable",
        ),
        (  # p4c: 'lastIndex' for stacks can only be used in a parser
            "",
            "        meta.r = hdr.vlan.lastIndex;",
            "hdr.vlan.lastIndex",
            "'lastIndex' of a header stack can only be used in a parser",
        ),
        (  # p4c: 'last', and 'next' for stacks can only be used in a parser
            "",
            "        hdr.vlan.last.tci = 1;",
            "hdr.vlan.last",
            "'last' of a header stack can only be used in a parser",
        ),
        (  # p4c: Cannot cast from 'bit<8>' to 'int<16>'
            "",
            "        meta.sel = (bit<16>)(int<16>)hdr.ipv4.ttl;",
            "(int<16>)",
            "cannot cast bit<8> to int<16> (change the width and the sign in two casts)",
        ),
        (  # p4c: table ... has multiple successors
            "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { NoAction; } }",
            "        if (hdr.ipv4.ttl == 1) {\n            t2.apply();\n            meta.color = 1;\n"
            "        } else {\n            t2.apply();\n        }",
            "t2.apply();\n        }",
            "table MyIngress.t2 is applied more than once, going on differently (BMv2: one "
            "successor per table)",
        ),
    ],
)
def test_refused_as_p4c_refuses(decls: str, body: str, fragment: str, message: str) -> None:
    text = ingress_program(body, decls)
    with pytest.raises(CompileError) as info:
        compile_source(text, INLINE)
    err = info.value
    assert err.message == message
    rest = "\n".join(text.split("\n")[err.pos.line - 1 :])[err.pos.col - 1 :]
    assert rest.startswith(fragment), (rest[:40], err.pos)


def test_accepted_neighbours_still_compile() -> None:
    """What p4c accepts next to each refusal: (bit<1>) of a bool, a constant bool cast,
    one typed arm of ?:, the deprecated-free mark_to_drop, a slice of a bit<8> local."""
    body = (
        "        meta.keep = (bit<8>)true;\n"
        "        hdr.ipv4.flags = (bit<3>)(bit<1>)(hdr.ipv4.ttl > 5);\n"
        "        hdr.ipv4.ttl = hdr.ipv4.ttl == 1 ? 8w3 : 4;\n"
        "        mark_to_drop(std);\n"
        "        bit<8> s = 0;\n        s[7:4] = 4w8;\n        meta.color = s;"
    )
    assert compile_source(ingress_program(body), INLINE)["actions"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("bump(hdr.ipv4.ttl, 1, 2, 3);", "action bump expects 3 arguments, got 4"),
        ("bump(by = 2);", "action bump: missing argument 'dst'"),
        ("bump(dst = hdr.ipv4.ttl, 2);", "action bump: arguments are all named or all positional"),
        ("bump(dst = hdr.ipv4.ttl, step = 2);", "action bump has no parameter 'step'"),
    ],
)
def test_call_arguments_with_defaults_refused_clearly(call: str, message: str) -> None:
    decls = "    action bump(inout bit<8> dst, bit<8> by = 1, bit<8> twice = 0) { dst = dst + by; }"
    with pytest.raises(CompileError) as info:
        compile_source(ingress_program("        " + call, decls), INLINE)
    assert info.value.message == message
