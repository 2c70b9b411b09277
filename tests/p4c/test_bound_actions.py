"""An action listed in several tables with its out/inout parameters bound to different
fields: one BMv2 action per binding (as p4c emits), one P4Info action per declaration."""

from __future__ import annotations

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
