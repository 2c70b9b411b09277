"""Side effects in expressions and actions: ``t.apply().hit``/``.miss`` hoisted into a branch on the table, with
``&&``/``||`` short circuits kept; unsupported places give one located error."""

from __future__ import annotations

import pytest

from emulator.p4c import CompileError, compile_source

from .p4c_helpers import PROGRAMS, by_name, compile_ingress, ingress_program, table

TABLES = """
    action a() { }
    table t { key = { hdr.ipv4.ttl: exact; } actions = { a; NoAction; } }
    table u { key = { hdr.ipv4.ttl: exact; } actions = { a; NoAction; } }"""


def test_hit_into_a_local_branches_on_the_table() -> None:
    doc = compile_ingress(
        "        bool b = t.apply().hit;\n        if (b) { mark_to_drop(std); }", TABLES
    )
    nxt = table(doc, "MyIngress.t")["next_tables"]
    assert set(nxt) == {"__HIT__", "__MISS__"} and nxt["__HIT__"] != nxt["__MISS__"]


def test_right_of_and_is_applied_only_when_the_left_holds() -> None:
    doc = compile_ingress(
        "        if (hdr.ipv4.ttl == 8w1 && u.apply().miss) { mark_to_drop(std); }", TABLES
    )
    conds = doc["pipelines"][0]["conditionals"]
    # the guard on the left operand's temporary comes before u: u is reached only through it
    guard = next(c for c in conds if c["true_next"] == "MyIngress.u")
    assert guard["false_next"] != "MyIngress.u"
    assert set(table(doc, "MyIngress.u")["next_tables"]) == {"__HIT__", "__MISS__"}


@pytest.mark.parametrize(
    ("body", "message", "col"),
    [
        (
            "        hdr.ipv4.ttl = 8w1 + (hdr.ipv4.isValid() ? (t.apply().hit ? 8w1 : 8w2) : 8w3);",
            "a table apply or a call with side effects inside an arm of a nested '?:' is not supported",
            31,
        ),
        (
            "        bool b = t.apply().action_run == a;",
            "'action_run' can only be used in a switch statement",
            18,
        ),
    ],
)
def test_unsupported_places_are_located_errors(body: str, message: str, col: int) -> None:
    with pytest.raises(CompileError) as err:
        compile_ingress(body, TABLES)
    first = str(err.value).splitlines()[0]
    assert message in first and f":10:{col}:" in first, first


FUNCTION = "bool touch(inout bit<8> c) { c = c + 8w1; return true; }\n"


def test_call_with_side_effects_right_of_and_runs_in_a_branch() -> None:
    """``a && f(x)``: f's primitives are reached only through a branch on ``a`` (they used to
    run whatever ``a`` was)."""
    body = "        if (hdr.ipv4.ttl == 8w1 && touch(hdr.ipv4.protocol)) { mark_to_drop(std); }"
    text = ingress_program(body).replace("SIMPLE_PARSER", FUNCTION + "SIMPLE_PARSER", 1)
    doc = compile_source(text, str(PROGRAMS / "inline.p4"))
    pipe = doc["pipelines"][0]
    first = table(doc, pipe["init_table"])  # tmp = (ttl == 1)
    guard = next(c for c in pipe["conditionals"] if c["name"] == first["base_default_next"])
    callee = table(doc, guard["true_next"])
    prims = by_name(doc["actions"], callee["actions"][0])["primitives"]
    protocol = {"type": "field", "value": ["ipv4", "protocol"]}
    assert any(p["parameters"][0] == protocol for p in prims)
    assert guard["false_next"] != guard["true_next"]


def test_exit_under_a_condition_in_an_action_is_refused_as_by_p4c() -> None:
    decls = "    action a(bool b) { if (b) { exit; } hdr.ipv4.ttl = 8w1; }"
    with pytest.raises(CompileError, match="exit under a condition in an action") as err:
        compile_ingress("        a(true);", decls)
    assert ":5:33:" in str(err.value).splitlines()[0]


def test_statements_after_exit_in_an_action_are_dropped() -> None:
    decls = "    action a() { hdr.ipv4.ttl = 8w1; exit; hdr.ipv4.ttl = 8w2; }"
    doc = compile_ingress("        a();", decls)
    ops = [[p["op"] for p in act["primitives"]] for act in doc["actions"]]
    assert ["assign", "exit"] in ops and all(o[-1:] != ["assign"] or "exit" not in o for o in ops)


def test_exit_in_an_action_with_inout_parameters_writes_them_back_first() -> None:
    """The copy-out of an inout argument comes before the action's exit (as p4c writes it)."""
    decls = "    action a(inout bit<8> v) { v = 8w1; exit; }"
    doc = compile_ingress("        a(hdr.ipv4.ttl);", decls)
    ops = [
        (p["op"], p["parameters"][0] if p["parameters"] else None)
        for act in doc["actions"]
        for p in act["primitives"]
    ]
    ttl = ("assign", {"type": "field", "value": ["ipv4", "ttl"]})
    assert ttl in ops and ("exit", None) in ops
    assert ops.index(ttl) < ops.index(("exit", None))


def test_inout_arguments_are_copied_in_and_back() -> None:
    """``a(x, x)`` with two inout parameters: both see the old x; q's copy-out comes last."""
    decls = "    action a(inout bit<8> p, inout bit<8> q) { p = p + 8w1; q = 8w7; }"
    doc = compile_ingress("        a(hdr.ipv4.ttl, hdr.ipv4.ttl);", decls)
    prims = [p for act in doc["actions"] for p in act["primitives"] if p["op"] == "assign"]
    ttl = {"type": "field", "value": ["ipv4", "ttl"]}
    writes = [p for p in prims if p["parameters"][0] == ttl]
    assert len(writes) == 2  # the two copy-outs, p's first
    assert writes[-1]["parameters"][1]["value"][1] == "q"
