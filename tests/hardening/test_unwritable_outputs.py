"""An output path that cannot be written is a user error (exit 2, one line), no traceback,
and nothing is run first."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIP = str(ROOT / "scenarios" / "fat_flow_collision.yaml")
FAULTS = str(ROOT / "scenarios" / "spine_uplink_failure.yaml")

#: each command with {bad} where its output path goes
COMMANDS = [
    ["run", FLAGSHIP, "--out", "{bad}"],
    ["run", FLAGSHIP, "--seeds", "2", "--out", "{bad}"],
    ["compare", FAULTS, "--out", "{bad}"],
    ["p4c", str(ROOT / "p4/roce_fabric.p4"), "-o", "{bad}/x.json"],
    ["topo", "show", "two_rack_2spine", "-o", "{bad}/x.yaml"],
    ["topo", "show", "two_rack_2spine", "-o", "{bad}/x.png"],
    ["control", str(ROOT / "topologies/two_rack_2spine.yaml"), "--out", "{bad}"],
    ["scale", "--gpus", "1024", "--out", "{bad}"],
    ["scale-training", str(ROOT / "scenarios/training_step.yaml"), "--json", "{bad}/x.json"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]).replace(str(ROOT), ""))
def test_an_unwritable_output_is_a_user_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bad = str(blocker / "out")  # under a regular file: no folder can be made there
    assert main([a.replace("{bad}", bad) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and bad in err, err
    assert err.count("\n") == 1  # one line


def test_report_to_an_unwritable_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["run", FLAGSHIP, "--set", "duration_ms=20", "--no-report", "--out", str(run)]) in (
        0,
        1,
    )
    capsys.readouterr()
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["report", str(run), "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err
    assert "cannot make the results folder" in err and "Traceback" not in err
    assert main(["report", str(run), "--out", str(blocker)]) == 2  # a file, not a folder
    assert "a file is there" in capsys.readouterr().err
