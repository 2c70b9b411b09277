"""A run that fails or is interrupted still writes its partial results, marked incomplete."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from emulator.cli.main import main
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.spec import RunPlan
from emulator.runtime import base
from emulator.scenario.runner import run_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "fat_flow_collision.yaml"


class BrokenRuntime:
    """A runtime that starts, then fails (or is interrupted) half-way through the run."""

    name = "broken"

    def __init__(self, config: RunPlan, exc: BaseException) -> None:
        self.plan, self.exc, self.stopped = config, exc, False

    def start(self) -> None:
        pass

    def add_workload(self, workload: Any) -> None:
        self.workload = workload

    def run(self, until_ns: int) -> bool:
        raise self.exc

    def result(self, meta: RunMeta) -> RunResult:
        return RunResult(meta=meta, events=["t=0 partial"])

    def stop(self) -> None:
        self.stopped = True


@pytest.mark.parametrize(
    ("exc", "reason"),
    [(RuntimeError("switch rtsw0 crashed"), "RuntimeError: switch rtsw0 crashed"),
     (KeyboardInterrupt(), "interrupted")],
)  # fmt: skip
def test_partial_result_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException, reason: str
) -> None:
    made: list[BrokenRuntime] = []

    def fake_make_runtime(name: str, config: RunPlan) -> BrokenRuntime:
        made.append(BrokenRuntime(config, exc))
        return made[-1]

    monkeypatch.setattr(base, "make_runtime", fake_make_runtime)
    outcome = run_scenario(SCENARIO, {}, runtime="virtual", out=tmp_path)
    assert made and made[0].stopped  # torn down although it failed
    saved = RunResult.load(tmp_path / "result.json")
    assert saved.meta.complete is False
    assert saved.meta.incomplete_reason == reason
    assert saved.events == ["t=0 partial"]  # what the runtime had is kept
    assert (tmp_path / "run.log").exists() and (tmp_path / "report.html").exists()
    assert "INCOMPLETE" in (tmp_path / "report.html").read_text()
    assert outcome.exit_code == 1 and not outcome.passed


def test_cli_exit_code_1_when_expectations_fail(tmp_path: Path) -> None:
    args = ["run", str(SCENARIO), "--out", str(tmp_path), "--set", "workload.size_bytes=65536"]
    assert main([*args, "--set", "expect={drops: {eq: 0}}"]) == 0
    assert main([*args, "--set", "expect={drops: {min: 1}}"]) == 1


def test_a_user_error_during_the_run_is_recorded_in_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A P4 program that does not compile: exit 2 with the positioned error, and the
    results folder says so too (run.log, result.json marked incomplete), not just the
    scenario it was given."""
    p4 = SCENARIO.parents[1] / "p4"
    shutil.copytree(p4 / "include", tmp_path / "include")
    program = tmp_path / "bad.p4"
    text = (p4 / "roce_fabric.p4").read_text()
    program.write_text(text.replace("apply {", "apply { undefined_thing = 1;", 1))
    out = tmp_path / "out"
    args = ["run", str(SCENARIO), "--out", str(out), "--set", f"switch.program={program}"]
    assert main(args) == 2
    assert "error: 'undefined_thing' is not declared" in capsys.readouterr().err
    saved = RunResult.load(out / "result.json")
    assert saved.meta.complete is False
    assert saved.meta.incomplete_reason is not None
    assert saved.meta.incomplete_reason.startswith("error: ")
    assert "bad.p4:" in saved.meta.incomplete_reason
    assert "ERROR" in (out / "run.log").read_text() and (out / "scenario.yaml").exists()
