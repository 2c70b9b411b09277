"""Calls that exit and sub-control arguments: statements after a call of an exiting action
never reach BMv2, conditional exits through calls are refused with a position, and
``c.apply(...)`` arguments are copied in and out when they alias."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, all_primitives, compile_ingress, ingress_program

TTL = {"type": "field", "value": ["ipv4", "ttl"]}


def _ops_after_exit(doc: dict[str, Any]) -> list[str]:
    """Primitives that follow an ``exit`` in the same action (BMv2 would run them)."""
    out = []
    for act in doc["actions"]:
        ops = [p["op"] for p in act["primitives"]]
        if "exit" in ops:
            out += ops[ops.index("exit") + 1 :]
    return out


def _writes(doc: dict[str, Any], value: int) -> bool:
    """Whether some primitive assigns the constant ``value`` to ipv4.ttl."""
    for p in all_primitives(doc):
        if p["op"] == "assign" and p["parameters"][0] == TTL:
            src = p["parameters"][1]
            if src.get("type") == "hexstr" and int(src["value"], 16) == value:
                return True
    return False


def test_statements_after_a_call_of_an_exiting_action_are_dropped() -> None:
    decls = "    action stop() { hdr.ipv4.ttl = 8w1; exit; }"
    doc = compile_ingress("        stop();\n        hdr.ipv4.ttl = 8w9;", decls)
    assert _writes(doc, 1) and not _writes(doc, 9)
    assert _ops_after_exit(doc) == []


def test_an_action_calling_an_exiting_action_stops_there() -> None:
    decls = (
        "    action stop() { exit; }\n"
        "    action a() { hdr.ipv4.ttl = 8w2; stop(); hdr.ipv4.ttl = 8w9; }"
    )
    doc = compile_ingress("        a();\n        hdr.ipv4.ttl = 8w8;", decls)
    assert _writes(doc, 2) and not _writes(doc, 9) and not _writes(doc, 8)
    assert _ops_after_exit(doc) == []


def test_an_exit_after_an_if_in_the_called_action_is_unconditional() -> None:
    decls = "    action a() { if (hdr.ipv4.ttl == 8w1) { hdr.ipv4.ttl = 8w2; } exit; }"
    doc = compile_ingress("        a();\n        hdr.ipv4.ttl = 8w9;", decls)
    assert _writes(doc, 2) and not _writes(doc, 9)


def test_a_conditional_call_of_an_exiting_action_in_an_action_is_refused() -> None:
    decls = (
        "    action stop() { exit; }\n"
        "    action a() { if (hdr.ipv4.ttl == 8w1) { stop(); } hdr.ipv4.ttl = 8w9; }"
    )
    with pytest.raises(CompileError, match="exit under a condition in an action") as err:
        compile_ingress("        a();", decls)
    assert ":6:18:" in str(err.value).splitlines()[0]


CONTROLS = """control Two(inout bit<8> a, inout bit<8> b) {
    apply { a = a + 8w1; b = b + 8w2; }
}
"""


def _with_controls(body: str, decls: str = "", controls: str = CONTROLS) -> dict[str, Any]:
    text = ingress_program(body, decls).replace("SIMPLE_PARSER", controls + "SIMPLE_PARSER", 1)
    return compile_source(text, str(PROGRAMS / "inline.p4"))


def test_aliased_sub_control_arguments_are_copied_back_left_to_right() -> None:
    doc = _with_controls("        two.apply(hdr.ipv4.ttl, hdr.ipv4.ttl);", "    Two() two;")
    writes = [p for p in all_primitives(doc) if p["op"] == "assign" and p["parameters"][0] == TTL]
    assert len(writes) == 2  # the copy-outs; b's (ttl + 2) last
    assert all(w["parameters"][1]["type"] == "field" for w in writes)
    assert writes[-1]["parameters"][1]["value"][1].startswith("b")


def test_sub_control_arguments_that_do_not_alias_are_bound_directly() -> None:
    doc = _with_controls("        two.apply(hdr.ipv4.ttl, hdr.ipv4.protocol);", "    Two() two;")
    targets = [p["parameters"][0] for p in all_primitives(doc) if p["op"] == "assign"]
    assert targets == [TTL, {"type": "field", "value": ["ipv4", "protocol"]}]


def test_a_table_action_that_exits_in_an_aliased_sub_control_is_refused() -> None:
    controls = """control Ex(inout bit<8> a, inout bit<8> b) {
    action stop() { exit; }
    table t { key = { a: exact; } actions = { stop; } }
    apply { t.apply(); }
}
"""
    with pytest.raises(CompileError, match="has an action that exits") as err:
        _with_controls("        ex.apply(hdr.ipv4.ttl, hdr.ipv4.ttl);", "    Ex() ex;", controls)
    assert ":12:9:" in str(err.value).splitlines()[0]


def test_a_control_applied_by_type_name_gets_an_instance_of_that_name() -> None:
    controls = """control Count(inout bit<8> x) {
    counter(32w4, CounterType.packets) hits;
    apply { hits.count(32w1); x = x + 8w1; }
}
control bump_t(inout bit<8> x);
control Via(inout bit<8> x)(bump_t c) {
    apply { c.apply(x); }
}
control Outer(inout bit<8> x) {
    Count() k;
    Via(k) v;
    apply { v.apply(x); }
}
"""
    doc = _with_controls("        Outer.apply(hdr.ipv4.ttl);", "", controls)
    assert [c["name"] for c in doc["counter_arrays"]] == ["MyIngress.Outer.k.hits"]


def test_missing_constructor_arguments_are_a_located_error() -> None:
    controls = """control bump_t(inout bit<8> x);
control Via(inout bit<8> x)(bump_t c) {
    apply { c.apply(x); }
}
"""
    with pytest.raises(CompileError, match="expects 1 constructor arguments, got 0") as err:
        _with_controls("        v.apply(hdr.ipv4.ttl);", "    Via() v;", controls)
    assert ":11:9:" in str(err.value).splitlines()[0]
