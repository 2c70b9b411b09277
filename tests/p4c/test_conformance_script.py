"""``benchmarks/conformance_p4c_samples.py`` on a tiny sample directory (bmv2 marker: it runs
the real p4c-bm2-ss and simple_switch beside fabemu)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.benchmark_scripts import load

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "p4" / "corpus"


def _script():
    return load("conformance_p4c_samples")


@pytest.mark.bmv2
def test_counts_passes_and_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(CORPUS / "include", tmp_path / "include")
    for name in ("expressions", "registers"):
        shutil.copy(CORPUS / f"{name}.p4", tmp_path)
        shutil.copy(CORPUS / f"{name}.stf", tmp_path)
    broken = (CORPUS / "registers.stf").read_text().replace("expect 1 ", "expect 2 ", 1)
    (tmp_path / "registers.stf").write_text(broken)  # no tool passes this one
    assert _script().main(["--samples", str(tmp_path), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "real tools: fail 1, pass 1" in out
    assert "fabemu front end + target: passes 1/1 (100.0%)" in out
    assert "p4c JSON on target: agrees with the real tools on 2/2 (100.0%)" in out


def test_refuses_a_missing_directory(tmp_path: Path) -> None:
    assert _script().main(["--samples", str(tmp_path / "nope")]) == 2


def test_segments_split_at_commands_after_packets() -> None:
    steps = [("cli", "a"), ("cli", "b"), ("packet", (0, b"1")), ("packet", (1, b"2")),
             ("cli", "c"), ("packet", (0, b"3")), ("cli", "d")]  # fmt: skip
    assert _script().segments(steps) == [
        (["a", "b"], [(0, b"1"), (1, b"2")]),
        (["c"], [(0, b"3")]),
        (["d"], []),
    ]
    assert _script().segments([("packet", (0, b"1"))]) == [([], [(0, b"1")])]


def test_stateful_programs_are_those_with_registers_counters_or_meters() -> None:
    mod = _script()
    assert not mod.stateful({"register_arrays": [], "actions": []})
    assert mod.stateful({"counter_arrays": [{"name": "c"}]})
    assert mod.stateful({"register_arrays": [{"name": "r"}]})


def test_expect_ports_are_attached_on_the_real_switch(tmp_path: Path) -> None:
    stf = tmp_path / "t.stf"
    stf.write_text("packet 0 00\nexpect 21 00 $\nexpect 3\n# expect 9 00\nexpect x 00\n")
    assert _script().expect_ports(stf) == {21, 3}
