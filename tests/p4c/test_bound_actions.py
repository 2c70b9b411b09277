"""An action listed in several tables with its out/inout parameters bound to different
fields: one BMv2 action per binding (as p4c emits), one P4Info action per declaration; bound
arguments that overlap are copied in before the action and written back after it."""

from __future__ import annotations

import json
from pathlib import Path

from emulator.p4c import CompileError, compile_source
from emulator.p4c.compiler import compile_with_p4info
from emulator.target.stf import run_stf

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
PROGRAM = CORPUS / "bound_action_args.p4"


def _table(doc: dict, name: str) -> dict:
    return next(t for p in doc["pipelines"] for t in p["tables"] if t["name"] == name)


def test_each_binding_is_an_action_of_its_own() -> None:
    doc, text = compile_with_p4info(PROGRAM)
    puts = [a for a in doc["actions"] if a["name"] == "MyIngress.put"]
    assert len(puts) == 3  # bound to hdr.bind.a, .b and .c
    written = set()
    for a in puts:
        assert [r["name"] for r in a["runtime_data"]] == ["v"]
        (prim,) = a["primitives"]
        written.add(prim["parameters"][0]["value"][1])  # the field each one assigns
    assert written == {"a", "b", "c"}
    ids = {t: _table(doc, f"MyIngress.{t}")["action_ids"] for t in ("t_a", "t_b", "t_c")}
    assert len({i for v in ids.values() for i in v if i in {a["id"] for a in puts}}) == 3
    # the default entry with a bound argument points at its table's own binding
    t_c = _table(doc, "MyIngress.t_c")
    assert t_c["default_entry"]["action_id"] in t_c["action_ids"]
    assert t_c["default_entry"]["action_data"] == ["0x01"]
    # P4Info: one action per declaration
    assert text.count('name: "MyIngress.put"') == 1


def test_the_corpus_stf_passes() -> None:
    assert run_stf(PROGRAM, CORPUS / "bound_action_args.stf").passed


def test_a_default_bound_unlike_the_actions_list_is_refused() -> None:
    src = PROGRAM.read_text().replace(
        "default_action = bump(hdr.bind.c, 8w1);", "default_action = bump(hdr.bind.d, 8w1);"
    )
    try:
        compile_source(src, str(PROGRAM), include_dirs=[CORPUS])
    except CompileError as exc:
        assert "bound differently in the actions list of table MyIngress.t_c" in str(exc)
        assert ":61:" in str(exc)  # the default_action's line
    else:
        raise AssertionError("compiled")


ALIASED = CORPUS / "aliased_action_args.p4"
FIELD_A = {"type": "field", "value": ["al", "a"]}


def _action(doc: dict, name: str) -> dict:
    (act,) = [a for a in doc["actions"] if a["name"] == name]
    return act


def _assigns(act: dict) -> list[tuple[dict, dict]]:
    return [tuple(p["parameters"]) for p in act["primitives"] if p["op"] == "assign"]


def test_aliased_arguments_are_copied_in_first_and_written_back_last() -> None:
    doc = compile_source(ALIASED.read_text(), str(ALIASED), include_dirs=[CORPUS])
    writes = _assigns(_action(doc, "MyIngress.set_add"))
    tmp = writes[0][0]  # dst's temporary, copied in from hdr.al.a
    assert tmp["value"][0] == "scalars" and writes[0][1] == FIELD_A
    assert writes[-1] == (FIELD_A, tmp)  # copied out at the end
    assert all(dst == tmp for dst, _ in writes[:-1])  # the body writes only the copy
    assert json.dumps(FIELD_A) in json.dumps(writes[-2][1])  # dst + v: v reads the field
    # two inouts bound to one field: both copied out, y (the second) last
    two = _assigns(_action(doc, "MyIngress.two"))
    outs = [src for dst, src in two if dst == {"type": "field", "value": ["al", "b"]}]
    assert [o["value"][0] for o in outs] == ["scalars", "scalars"]
    assert [o["value"][1][0] for o in outs] == ["x", "y"]  # x's copy, then y's
    # the exiting action writes back before its exit
    ops = [p["op"] for p in _action(doc, "MyIngress.set_add_exit")["primitives"]]
    assert ops[-1] == "exit" and _assigns(_action(doc, "MyIngress.set_add_exit"))[-1][0] == FIELD_A


def test_arguments_that_do_not_alias_stay_bound_directly() -> None:
    src = ALIASED.read_text().replace(
        "set_add(hdr.al.a, hdr.al.a);", "set_add(hdr.al.e, hdr.al.a);"
    )
    doc = compile_source(src, str(ALIASED), include_dirs=[CORPUS])
    writes = _assigns(_action(doc, "MyIngress.set_add"))
    assert [dst for dst, _ in writes] == [FIELD_A, FIELD_A]  # dst = d; dst = dst + v
    assert not any(f[0] == "scalars" for f in (w[0]["value"] for w in writes))


def test_the_aliased_corpus_stf_passes() -> None:
    assert run_stf(ALIASED, CORPUS / "aliased_action_args.stf").passed
