"""Action data of signed parameters, and actions p4c drops before its back end: what
``benchmarks/fuzz_statements.py`` found refused here and accepted by p4c-bm2-ss 1.2.4.8."""

from __future__ import annotations

import pytest

from emulator.p4c import CompileError
from emulator.target.switch import Switch

from .p4c_helpers import compile_ingress, table

SIGNED = """
    action put(int<8> s) { hdr.ipv4.ttl = (bit<8>)s; }
    table t {
        key = { hdr.ipv4.protocol: exact; }
        actions = { put; }
        const entries = { 8w1 : put(-8s3); 8w2 : put(8s5); 8w3 : put(-128); }
        default_action = put(-8s1);
    }"""


def test_signed_action_data_in_entries_and_the_default_action() -> None:
    """An ``int<8>`` parameter takes ``int<8>`` constants (refused as a bit<8> mismatch
    before); the data is the two's complement, as p4c writes it."""
    doc = compile_ingress("        t.apply();", SIGNED)
    t = table(doc, "MyIngress.t")
    data = [e["action_entry"]["action_data"] for e in t["entries"]]
    assert data == [["0xfd"], ["0x05"], ["0x80"]]
    assert t["default_entry"]["action_data"] == ["0xff"]


def test_an_unsigned_constant_for_a_signed_parameter_is_refused() -> None:
    with pytest.raises(CompileError, match="int<8>"):
        compile_ingress("        t.apply();", SIGNED.replace("put(8s5)", "put(8w5)"))


EXITS = """
    action maybe_exit() { if (hdr.ipv4.ttl == 1) { exit; } hdr.ipv4.ttl = 9; }"""


def test_an_unused_action_with_a_conditional_exit_is_left_out() -> None:
    """p4c drops the unused action before its back end refuses the conditional ``exit``."""
    doc = compile_ingress("        hdr.ipv4.ttl = 7;", EXITS)
    assert not [a for a in doc["actions"] if "maybe_exit" in a["name"]]
    assert Switch(doc)  # loads


@pytest.mark.parametrize(
    "body",
    ["        maybe_exit();", "        t.apply();"],
    ids=["called", "in a table"],
)
def test_a_used_action_with_a_conditional_exit_is_refused(body: str) -> None:
    decls = EXITS + "\n    table t { key = { hdr.ipv4.ttl: exact; } actions = { maybe_exit; } }"
    with pytest.raises(CompileError, match="exit under a condition in an action") as err:
        compile_ingress(body, decls)
    assert ":6:" in str(err.value)  # the exit's line (decls start on line 5)


@pytest.mark.parametrize("literal", ["true", "false"])
def test_an_exit_under_a_literal_condition_is_no_condition(literal: str) -> None:
    """p4c folds ``if (true)``/``if (false)`` before it looks for a conditional exit."""
    decls = f"    action a() {{ if ({literal}) {{ exit; }} hdr.ipv4.ttl = 9; }}"
    doc = compile_ingress("        a();", decls)
    assert ("exit" in [p["op"] for act in doc["actions"] for p in act["primitives"]]) == (
        literal == "true"
    )
