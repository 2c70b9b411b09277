"""The scenario CLI commands: validate, list, run/compare argument handling and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.cmd_compare import variants
from emulator.cli.main import main
from emulator.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_shipped_scenarios_validate(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.startswith("ok")


def test_validate_reports_every_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n")
    assert main(["validate", str(SCENARIOS[0]), str(bad)]) == 2
    out = capsys.readouterr().out
    assert "ok " in out and f"INVALID {bad}: topology: required key is missing" in out


def test_run_bad_scenario_exits_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntopology: t.yaml\nworkload: {kind: incast}\n")
    assert main(["run", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "workload: incast needs 'senders'" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing started


def test_run_unknown_host_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = ROOT / "scenarios" / "fat_flow_collision.yaml"
    code = main(["run", str(sc), "--set", "workload.pairs=[[h0, h99]]", "--out", str(tmp_path)])
    assert code == 2
    assert "hosts not in topology two_rack_4spine: h99" in capsys.readouterr().err


def test_bmv2_target_needs_bmv2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no simple_switch here
    sc = ROOT / "scenarios" / "fat_flow_collision.yaml"
    assert main(["run", str(sc), "--target", "bmv2", "--out", str(tmp_path / "o")]) == 2
    assert "target bmv2 needs simple_switch, p4c-bm2-ss" in capsys.readouterr().err


def test_list(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "fat_flow_collision" in out and "two_rack_4spine" in out


def test_vary_combinations() -> None:
    assert variants(["lb=ecmp,eecmp", "qps=1,16"]) == [
        {"lb": "ecmp", "qps": "1"},
        {"lb": "ecmp", "qps": "16"},
        {"lb": "eecmp", "qps": "1"},
        {"lb": "eecmp", "qps": "16"},
    ]
    with pytest.raises(UserError, match="--vary expects KEY=V1,V2"):
        variants(["lb"])


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    from emulator.cli.main import COMMANDS

    for name in COMMANDS:
        with pytest.raises(SystemExit) as info:
            main([name, "--help"])
        assert info.value.code == 0, name
    assert "usage: fabemu" in capsys.readouterr().out


def test_gc_is_tuned_only_when_main_is_the_process(capsys: pytest.CaptureFixture[str]) -> None:
    """``fabemu`` as its own process freezes the imports' objects and raises the first GC
    threshold (emulator.cli.main.tune_gc), and freezes the rest when the command returns;
    a caller's main([...]) leaves its process alone."""
    import gc
    import os
    import subprocess
    import sys

    before = gc.get_threshold()
    assert main(["list"]) == 0
    assert gc.get_threshold() == before
    capsys.readouterr()
    probe = (
        "import gc, sys\nfrom emulator.cli.main import main\nsys.argv = ['fabemu', 'list']\n"
        "main()\nprint(gc.get_threshold()[0], gc.get_freeze_count() > 0, len(gc.get_objects()))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    threshold, frozen, left = out.stdout.split()[-3:]
    assert (threshold, frozen) == ("7000", "True")
    assert int(left) < 100  # frozen again when the command returned: exit walks nothing


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--no-report", "--no-report is for one run"),
        ("--fault-free-twin", "--fault-free-twin is for one run: over --seeds, give the scenario"),
    ],
)
def test_one_run_options_are_refused_over_seeds(
    flag: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = ROOT / "scenarios" / "spine_uplink_failure.yaml"
    out = tmp_path / "out"
    assert main(["run", str(sc), "--seeds", "2", flag, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()  # nothing started
