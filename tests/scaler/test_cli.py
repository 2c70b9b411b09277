"""``fabemu scale`` end to end on small fabrics: tables, JSON report, plots, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.cli.main import main
from emulator.scaler.cli import parse_gpus, parse_size


def test_scale_writes_report_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    code = main(
        [
            "scale",
            "--gpus",
            "1024",
            "--collective",
            "hd",
            "--sweep",
            "3",
            "--step",
            "--maxmin",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    doc = json.loads((out / "report.json").read_text())
    assert {r["mode"] for r in doc["results"]} == {
        "ecmp",
        "eecmp",
        "pinning",
        "ib_static",
        "ib_adaptive",
    }
    assert sorted({r["gpus"] for r in doc["sweep"]}) == [256, 512, 1024]
    assert set(doc["training_step"]) >= {"roce/ecmp", "ib/ib_adaptive"}
    ecmp = next(r for r in doc["results"] if r["mode"] == "ecmp")
    assert 0 < ecmp["maxmin_min_gbps"] <= ecmp["maxmin_mean_gbps"] <= 400
    assert (out / "scale_vs_gpus.png").stat().st_size > 10_000
    assert (out / "uplink_flows.png").exists()
    text = capsys.readouterr().out
    assert "eecmp" in text and "ib_adaptive" in text


def test_same_seed_same_report(tmp_path: Path) -> None:
    args = ["scale", "--gpus", "512", "--fabric", "roce", "--placement", "spread", "--sweep", "1"]
    main([*args, "--seed", "3", "--out", str(tmp_path / "a")])
    main([*args, "--seed", "3", "--out", str(tmp_path / "b")])
    main([*args, "--seed", "4", "--out", str(tmp_path / "c")])
    a, b, c = ((tmp_path / d / "report.json").read_text() for d in "abc")
    assert a == b
    assert json.loads(a)["results"] != json.loads(c)["results"]


def test_calibrate_and_validate_options(tmp_path: Path) -> None:
    from emulator.scaler.calibration.points import synthetic_points
    from emulator.scaler.model.timing import ModelParams

    fabric = {
        "name": "emu",
        "kind": "roce",
        "gpus": 64,
        "uplinks_per_leaf": 4,
        "spines": 4,
        "racks_per_zone": 4,
    }
    sc = [
        {"fabric": {**fabric, "gpus": g}, "mode": m, "message_bytes": s}
        for g in (32, 64)
        for m in ("ecmp", "pinning")
        for s in (2**16, 2**24)
    ]
    pts = synthetic_points(ModelParams(efficiency=0.6), sc, noise=0.0)
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([p.model_dump() for p in pts]))
    out = tmp_path / "o"
    assert (
        main(
            [
                "scale",
                "--gpus",
                "256",
                "--sweep",
                "1",
                "--calibrate",
                str(path),
                "--validate",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads((out / "report.json").read_text())
    assert doc["params"]["efficiency"] == pytest.approx(0.6, rel=1e-6)
    assert len(doc["validation"]) == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gpus", "lots"], "--gpus"),
        (["--gpus", "12"], "multiple of 8|whole number"),
        (["--mode", "spray"], "unknown mode"),
        (["--fabric", "ib", "--mode", "ecmp"], "no mode"),
        (["--message-size", "1XB"], "--message-size"),
        (["--qps", "0"], "--qps"),
        (["--gpus", "100000000000"], "exceeds the address plan"),
        (["--holdout", "4"], "--holdout needs --calibrate"),
        (["--reliability", "--checkpoint-s", "nan"], "checkpoint time must be a finite"),
        (["--reliability", "--checkpoint-s", "-1"], "checkpoint time must be a finite"),
        (["--reliability", "--restart-s", "inf"], "restart time must be a finite"),
        (["--step", "--gpus", "16"], "pp=16 does not divide the 2 hosts.*multiple of 128"),
    ],
)
def test_bad_input_exits_2_with_message(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before anything is printed or written: no half table, no report folder."""
    out = tmp_path / "out"
    assert main(["scale", *argv, "--sweep", "1", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "fabemu scale: error:" in captured.err
    import re

    assert re.search(message, captured.err)
    assert captured.out == ""
    assert not out.exists()


def test_parsers() -> None:
    assert parse_size("1GiB") == 2**30
    assert parse_size("64MB") == 64e6
    assert parse_size("512") == 512
    assert parse_gpus("24K") == 24_576
    assert parse_gpus("100000") == 100_000
