"""Every corpus program (p4/corpus/*.p4) compiles; with the built-in target, its STF passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.p4c import compile_file

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
PROGRAMS = sorted(CORPUS.glob("*.p4"))

#: STF failures that are not the compiler's: program -> reason (see the p4c report)
KNOWN_STF_ISSUES: dict[str, str] = {}
#: target options a program's STF needs (as simple_switch command-line options)
TARGET_OPTIONS: dict[str, dict[str, int]] = {"priority_queues.p4": {"priority_queues": 8}}


def _ids(p: Path) -> str:
    return p.name


@pytest.mark.parametrize("path", PROGRAMS, ids=_ids)
def test_corpus_program_compiles(path: Path) -> None:
    doc = compile_file(path)
    assert doc["__meta__"]["version"][0] == 2
    assert [p["name"] for p in doc["pipelines"]] == ["ingress", "egress"]
    assert doc["parsers"][0]["init_state"] == "start"
    names = {h["name"] for h in doc["headers"]}
    for d in doc["deparsers"]:
        assert set(d["order"]) <= names
    action_ids = {a["id"] for a in doc["actions"]}
    for pipe in doc["pipelines"]:
        tables = {t["name"] for t in pipe["tables"]}
        nodes = tables | {c["name"] for c in pipe["conditionals"]}
        assert pipe["init_table"] is None or pipe["init_table"] in nodes
        for t in pipe["tables"]:
            assert set(t["action_ids"]) <= action_ids
            assert all(n is None or n in nodes for n in t["next_tables"].values())
        for c in pipe["conditionals"]:
            assert c["true_next"] is None or c["true_next"] in nodes
            assert c["false_next"] is None or c["false_next"] in nodes
    json.loads(json.dumps(doc))


def _target_ready() -> bool:
    try:
        from emulator.target.stf import run_stf  # noqa: F401
        from emulator.target.switch import Switch  # noqa: F401
    except ImportError:
        return False
    return True


def _stf_params() -> list[object]:
    out = []
    for p in PROGRAMS:
        if not p.with_suffix(".stf").exists():
            continue
        marks = (
            [pytest.mark.xfail(reason=KNOWN_STF_ISSUES[p.name], strict=False)]
            if p.name in KNOWN_STF_ISSUES
            else []
        )
        out.append(pytest.param(p, id=p.name, marks=marks))
    return out


@pytest.mark.skipif(not _target_ready(), reason="built-in target (emulator.target) not available")
@pytest.mark.parametrize("path", _stf_params())
def test_corpus_stf_on_builtin_target(path: Path) -> None:
    from emulator.target.stf import run_stf

    result = run_stf(
        compile_file(path), path.with_suffix(".stf"), **TARGET_OPTIONS.get(path.name, {})
    )
    assert result.passed, str(result)


OWN_STF = sorted((Path(__file__).resolve().parent / "programs").glob("*.stf"))


@pytest.mark.skipif(not _target_ready(), reason="built-in target (emulator.target) not available")
@pytest.mark.parametrize("stf", OWN_STF, ids=_ids)
def test_own_programs_behave_on_builtin_target(stf: Path) -> None:
    """Features beyond the corpus (value switch, functions, expression keys, sub-controls)."""
    from emulator.target.stf import run_stf

    result = run_stf(compile_file(stf.with_suffix(".p4")), stf)
    assert result.passed, str(result)


P4C_JSON = sorted((CORPUS / "p4c_json").glob("*.p4"))


@pytest.mark.parametrize("path", P4C_JSON, ids=_ids)
def test_p4c_json_forms_front_end(path: Path) -> None:
    """fabemu compiles the program and passes its STF, or stops with one positioned error."""
    from emulator.p4c import CompileError
    from emulator.target.stf import run_stf

    try:
        doc = compile_file(path)
    except CompileError as exc:
        first = str(exc).splitlines()[0]
        assert first.startswith(f"{path}:"), first
        line, col = first[len(str(path)) + 1 :].split(":")[:2]
        assert int(line) > 0 and int(col) > 0, first
        return
    assert run_stf(doc, path.with_suffix(".stf")).passed
