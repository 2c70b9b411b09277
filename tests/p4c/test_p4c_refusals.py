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
        (  # p4c: [--Werror=shadow] declaration of 'hdr' shadows a parameter 'hdr'
            "",
            "        if (std.ingress_port == 1) {\n            bit<8> hdr = 1;\n        }",
            "bit<8> hdr",
            "declaration of 'hdr' shadows a parameter 'hdr'",
        ),
        (  # the same for a constant in an action body, shadowing the control's parameter
            "    action a() { const bit<8> meta = 2; }",
            "        a();",
            "const bit<8> meta",
            "declaration of 'meta' shadows a parameter 'meta'",
        ),
        (  # ... and for a block inside an action, shadowing the action's own parameter
            "    action a(bit<8> v) { { bit<8> v = 2; hdr.ipv4.ttl = v; } }",
            "        a(1);",
            "bit<8> v = 2",
            "declaration of 'v' shadows a parameter 'v'",
        ),
        (  # p4c-bm2-ss: clone3: unknown extern function (deprecated in v1model.p4)
            "",
            "        clone3(CloneType.I2E, 5, std);",
            "clone3",
            "clone3: unknown extern function; use clone_preserving_field_list",
        ),
        (  # p4c: '?:' ... Cannot unify type 'bool' with type 'bit<8>' (it reads a ?: in
            # the else branch as (c1 ? a : c2) ? b : d)
            "",
            "        meta.color = hdr.ipv4.ttl == 1 ? 8w1 : hdr.ipv4.ttl == 2 ? 8w2 : 8w3;",
            "hdr.ipv4.ttl == 1",
            "type mismatch in '?:': bit<8> and bool",
        ),
        (  # p4c: x: action parameters must be bit<> or int<> on this target
            "    action a(bool x) { }\n"
            "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { a; } }",
            "        t2.apply();",
            "bool x",
            "x: action parameters must be bit<> or int<> on this target",
        ),
        (  # p4c: 8w3: parameter x cannot be bound: it is set by the control plane
            "    action a(inout bit<8> d, bit<8> x) { d = x; }\n"
            "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { a(hdr.ipv4.ttl, 8w3); } }",
            "        t2.apply();",
            "8w3",
            "parameter 'x' of action a cannot be bound in the actions list: it is set by the "
            "control plane",
        ),
        (  # p4c: Entry entry must have a priority
            "    action a() { }\n"
            "    table t2 { key = { hdr.ipv4.ttl: ternary; } actions = { a; }\n"
            "        entries = { 0x23: a(); priority=3: 0x22: a(); } }",
            "        t2.apply();",
            "0x23: a();",
            "entry must have a priority: other entries of table MyIngress.t2 have one",
        ),
        (  # p4c: t Overflow in priority computation (2, then 1, then 0)
            "    action a() { }\n"
            "    table t2 { key = { hdr.ipv4.ttl: ternary; } actions = { a; }\n"
            "        entries = { priority=2: 0x22: a(); 0x23: a(); 0x24: a(); } }",
            "        t2.apply();",
            "0x24: a();",
            "table MyIngress.t2: the priority this entry takes (the one before it less 1) is "
            "below 1 (p4c: Overflow in priority computation)",
        ),
        (  # p4c-bm2-ss 1.2.4.8: '(int<16>)...' Cannot cast from 'bit<8>' to 'int<16>'
            "",
            "        int<8> s = 1;\n        meta.sel = (bit<16>)(s ++ hdr.ipv4.ttl);",
            "hdr.ipv4.ttl);",
            "'++' of int<8> and bit<8>: cannot cast bit<8> to int<16> (give both one signedness)",
        ),
        (  # p4c: hdr.ipv4.ttl + 1: Complex key expression requires a @name annotation
            "    action a() { }\n"
            "    table t2 { key = { hdr.ipv4.ttl + 1: exact; } actions = { a; } }",
            "        t2.apply();",
            "hdr.ipv4.ttl + 1: exact",
            "hdr.ipv4.ttl + 1: Complex key expression requires a @name annotation",
        ),
        (  # ... for the innermost part p4c cannot name: the cast inside the slice
            "    action a() { }\n"
            "    table t2 { key = { ((bit<16>)hdr.ipv4.ttl)[9:2]: exact; } actions = { a; } }",
            "        t2.apply();",
            "(bit<16>)hdr.ipv4.ttl)[9:2]",
            "(bit<16>)hdr.ipv4.ttl: Complex key expression requires a @name annotation",
        ),
        (  # p4c-bm2-ss: shift amount limited to 8 bits on this target
            "",
            "        hdr.ipv4.ttl = hdr.ipv4.ttl << hdr.ipv4.totalLen;",
            "hdr.ipv4.ttl << ",
            "hdr.ipv4.ttl << hdr.ipv4.totalLen: shift amount limited to 8 bits on this target",
        ),
        (  # p4c: -7 / 2: Division is not defined for negative numbers
            "    const int<8> s = -7;",
            "        meta.color = (bit<8>)(s / 2);",
            "s / 2",
            "-7 / 2: Division is not defined for negative numbers",
        ),
        (  # p4c: -7 % 2: Modulo is not defined for negative numbers
            "    const int<8> s = -7;",
            "        meta.color = (bit<8>)(s % 2);",
            "s % 2",
            "-7 % 2: Modulo is not defined for negative numbers",
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
    one typed arm of ?:, the deprecated-free mark_to_drop, a slice of a bit<8> local, a
    shift by a bit<8> amount (or of 0 by any), keys p4c can name (slices, ``&``, constant stack indices,
    ``isValid()``) and a complex key with ``@name``."""
    body = (
        "        meta.keep = (bit<8>)true;\n"
        "        hdr.ipv4.flags = (bit<3>)(bit<1>)(hdr.ipv4.ttl > 5);\n"
        "        hdr.ipv4.ttl = hdr.ipv4.ttl == 1 ? 8w3 : 4;\n"
        "        mark_to_drop(std);\n"
        "        bit<8> s = 0;\n        s[7:4] = 4w8;\n        meta.color = s;\n"
        "        hdr.ipv4.totalLen = hdr.ipv4.totalLen << hdr.ipv4.ttl;\n"
        "        hdr.ipv4.ttl = 8w0 >> hdr.ipv4.totalLen;\n"  # p4c folds 0 >> x first
        "        t2.apply();"
    )
    decls = (
        "    action a() { }\n"
        "    table t2 { key = { hdr.ipv4.ttl[7:4]: exact; hdr.ipv4.ttl & 0x0f: exact;\n"
        '        hdr.ipv4.isValid(): exact; hdr.ipv4.ttl + 1: exact @name("plus"); }\n'
        "        actions = { a; } }"
    )
    doc = compile_source(ingress_program(body, decls), INLINE)
    (t2,) = [t for t in doc["pipelines"][0]["tables"] if t["name"] == "MyIngress.t2"]
    assert [k["name"] for k in t2["key"]] == [
        "hdr.ipv4.ttl[7:4]",
        "hdr.ipv4.ttl & 0xf",
        "hdr.ipv4.$valid$",
        "plus",
    ]  # fmt: skip: the names p4c-bm2-ss gives (a constant keeps its base, not its zeros)


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


def test_table_property_named_like_a_parameter_refused() -> None:
    """p4c: [--Werror=shadow] declaration of 'key' shadows a parameter 'key'; a control
    parameter named ``key`` is fine while no table of the control declares a key."""
    rename = ("inout meta_t meta", "inout meta_t key")
    plain = ingress_program("        std.egress_spec = 1;").replace(*rename)
    assert compile_source(plain, INLINE)["actions"] is not None
    decls = "    action a() { }\n    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { a; } }"
    text = ingress_program("        t2.apply();", decls).replace(*rename)
    with pytest.raises(CompileError) as info:
        compile_source(text, INLINE)
    assert info.value.message == "t2: property 'key' shadows a parameter 'key'"
    assert text.split("\n")[info.value.pos.line - 1][info.value.pos.col - 1 :].startswith("key = {")


def test_shadowing_p4c_only_warns_about_still_compiles() -> None:
    """p4c warns, and compiles, when an action parameter has a control parameter's name,
    or a block variable an outer variable's."""
    decls = "    action a(bit<8> hdr) { std.egress_spec = (bit<9>)hdr; }"
    body = "        bit<8> x = 1;\n        if (x == 1) { bit<8> x = 2; a(x); }"
    assert compile_source(ingress_program(body, decls), INLINE)["actions"]


def test_forms_p4c_accepts_next_to_those_refusals() -> None:
    """A parenthesised ?: in the else branch, a nested one in the then branch, a directly
    called action with a bool parameter, one key's mask in parentheses in an entry."""
    decls = (
        "    action b(bool x) { if (x) { meta.color = 1; } }\n"
        "    action a() { }\n"
        "    table t2 { key = { hdr.ipv4.ttl: ternary; } actions = { a; }\n"
        "        const entries = { (0x20 &&& 0xf0): a(); 0x30 &&& 0xf0: a(); } }"
    )
    body = (
        "        meta.color = hdr.ipv4.ttl == 1 ? 8w1 : (hdr.ipv4.ttl == 2 ? 8w2 : 8w3);\n"
        "        meta.sel = hdr.ipv4.ttl == 1 ? (hdr.ipv4.ttl == 2 ? 16w2 : 16w3) : 16w4;\n"
        "        b(true);\n        t2.apply();"
    )
    doc = compile_source(ingress_program(body, decls), INLINE)
    (t2,) = [t for p in doc["pipelines"] for t in p["tables"] if t["name"] == "MyIngress.t2"]
    keys = [e["match_key"][0] for e in t2["entries"]]
    assert keys == [
        {"match_type": "ternary", "key": "0x20", "mask": "0xf0"},
        {"match_type": "ternary", "key": "0x30", "mask": "0xf0"},
    ]


NESTED = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> k; }
struct headers_t { h_t h; }
struct inner_t { @field_list(2) bit<8> x; bit<8> y; }
struct meta_t { bit<8> a; inner_t in1; @field_list(2) inner_t in2; }
parser P(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata_t s) {
    state start { p.extract(h.h); transition accept; } }
control V(inout headers_t h, inout meta_t m) { apply { } }
control I(inout headers_t h, inout meta_t m, inout standard_metadata_t s) {
    apply { resubmit_preserving_field_list(2); } }
control E(inout headers_t h, inout meta_t m, inout standard_metadata_t s) { apply { } }
control C(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out p, in headers_t h) { apply { p.emit(h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_field_lists_reach_into_nested_structs() -> None:
    """``@field_list(N)`` on a field of a struct inside the metadata: p4c puts that field
    in field list N (a resubmit or recirculation then keeps it)."""
    doc = compile_source(NESTED, INLINE)
    (fl,) = [f for f in doc["field_lists"] if f["name"] == "field_list2"]
    names = [e["value"][1].removeprefix("userMetadata.") for e in fl["elements"]]
    assert names == ["in1.x", "in2.x", "in2.y"]  # in2.x once, as p4c-bm2-ss lists it


def test_selector_without_selector_keys_compiles() -> None:
    """p4c only warns: the selector hashes nothing (simple_switch then picks a group's first
    member, as the built-in target does; checked on both)."""
    decls = (
        "    action a(bit<8> v) { meta.color = v; }\n"
        "    table t2 { key = { hdr.ipv4.ttl: exact; } actions = { a; }\n"
        "        implementation = action_selector(HashAlgorithm.identity, 32w8, 32w4); }"
    )
    doc = compile_source(ingress_program("        t2.apply();", decls), INLINE)
    (prof,) = doc["pipelines"][0]["action_profiles"]
    assert prof["name"] == "action_profile_0"
    assert prof["selector"] == {"algo": "identity", "input": []}


@pytest.mark.parametrize(
    "body,order",
    [
        ("t1.apply(); t2.apply(); t3.apply();", ["t1", "t2", "t3"]),
        ("t3.apply(); t1.apply(); t2.apply();", ["t3", "t1", "t2"]),
        ("if (!t2.apply().hit) { t1.apply(); } else { t3.apply(); }", ["t2", "t3", "t1"]),
        (
            "switch (t3.apply().action_run) { a: { t2.apply(); } default: { t1.apply(); } }",
            ["t3", "t2", "t1"],
        ),
    ],
)
def test_inline_profiles_are_numbered_in_apply_order(body: str, order: list[str]) -> None:
    """``implementation = action_profile(..)`` written in a table is ``action_profile_N``,
    N counted in apply order, a hit branch before a miss branch, as p4c-bm2-ss names them
    (checked on it): CLI scripts name profiles so."""
    decls = "    action a(bit<8> v) { meta.color = v; }\n" + "".join(
        f"    table t{i} {{ key = {{ hdr.ipv4.ttl: exact; }} actions = {{ a; NoAction; }}\n"
        f"        implementation = action_profile(32w4); }}\n"
        for i in (1, 2, 3)
    )
    doc = compile_source(ingress_program("        " + body, decls), INLINE)
    names = {t["name"]: t.get("action_profile") for t in doc["pipelines"][0]["tables"]}
    assert [names[f"MyIngress.{t}"] for t in order] == [f"action_profile_{i}" for i in range(3)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("meta.color = (bit<8>)F.A;", "cannot cast enum F to bit<8> (the enum's type is bit<4>)"),
        ("E e = (E)hdr.ipv4.ttl[3:0];", "cannot cast bit<4> to enum E (the enum's type is bit<8>)"),
    ],
)
def test_serializable_enums_cast_only_to_and_from_their_type(body: str, message: str) -> None:
    """p4c: "Cannot unify 'bit<8>' with 'F'" (and the other way round); the enum's own
    type casts both ways."""
    enums = "enum bit<4> F { A = 1 }\nenum bit<8> E { B = 2 }\ncontrol MyIngress"
    ok = "        meta.color = (bit<8>)(E)hdr.ipv4.ttl;\n        bit<4> f = (bit<4>)F.A;"
    assert compile_source(ingress_program(ok).replace("control MyIngress", enums, 1), INLINE)
    text = ingress_program("        " + body).replace("control MyIngress", enums, 1)
    with pytest.raises(CompileError) as info:
        compile_source(text, INLINE)
    assert info.value.message == message
