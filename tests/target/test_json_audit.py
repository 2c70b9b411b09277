"""``benchmarks/audit_bmv2_json.py``: the forms it finds in a JSON program and its verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_scripts import load

from .bmv2json import Program, assign, ex, fld, hexv, prim

ROOT = Path(__file__).resolve().parents[2]


def _script():
    return load("audit_bmv2_json")


def _program(*prims):
    p = Program(scalars=[("x", 8)])
    p.header("eth", [("etype", 16)])
    p.state("start", [prim("extract", {"type": "regular", "value": "eth"})], [], [])
    wrapped = {"type": "expression", "value": fld("eth", "etype")}
    a = p.action("act", [], [assign(fld("scalars", "x"), ex("&", wrapped, hexv(0xFF))), *prims])
    p.table(0, "t", [], [a], a)
    return p.doc


def test_forms_names_primitives_operators_operands_and_parser_ops() -> None:
    forms = _script().forms(_program())
    assert ("primitive", "assign") in forms
    assert ("expression-op", "&") in forms
    assert ("expression-op", "(wrapped operand)") in forms
    assert ("operand", "field") in forms and ("operand", "hexstr") in forms
    assert ("parser-op", "extract") in forms
    assert ("extract-target", "extract:regular") in forms


def test_a_form_only_in_refused_programs_is_reported_failing(capsys) -> None:
    mod = _script()
    good, bad = _program(), _program(prim("frobnicate", hexv(1)))
    table = mod.audit({"good.json": good, "bad.json": bad})
    assert table[("primitive", "assign")]["ok"]
    row = table[("primitive", "frobnicate")]
    assert not row["ok"] and row["programs"] == ["bad.json"]
    assert any("frobnicate" in e for e in row["errors"])
    mod.report(table, 2)
    assert "FAILS primitive" in capsys.readouterr().out


def test_main_reads_json_files_and_refuses_nothing_to_do(tmp_path: Path, capsys) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_program()))
    out = tmp_path / "audit.json"
    assert _script().main(["--json", str(path), "--out", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert any(r["category"] == "primitive" and r["form"] == "assign" for r in rows)
    assert _script().main([]) == 2
    assert _script().main(["--samples", str(tmp_path / "missing")]) == 2


@pytest.mark.bmv2
def test_p4c_json_of_the_json_forms_program_loads_everywhere(tmp_path: Path) -> None:
    """Every form p4c-bm2-ss emits for our json_forms.p4 is one the target loads."""
    src = ROOT / "p4" / "corpus" / "p4c_json"
    table = _script().audit(_script().compile_samples(src, tmp_path))
    assert table and all(row["ok"] for row in table.values())
