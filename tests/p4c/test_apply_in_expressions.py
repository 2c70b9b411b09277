"""``t.apply().hit``/``.miss`` inside expressions: hoisted into a branch on the table, with
``&&``/``||`` short circuits kept; unsupported places give one located error."""

from __future__ import annotations

import pytest

from emulator.p4c import CompileError

from .p4c_helpers import compile_ingress, table

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
            "        hdr.ipv4.ttl = hdr.ipv4.isValid() ? (t.apply().hit ? 8w1 : 8w2) : 8w3;",
            "a table applied inside an arm of '?:' is not supported",
            24,
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
