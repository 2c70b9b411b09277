"""Calibration on SYNTHETIC data (known parameters + seeded noise): the fit recovers them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.errors import UserError
from emulator.scaler.calibration.points import fit, holdout, load_points, predict, synthetic_points
from emulator.scaler.model.timing import ModelParams

SMALL = {
    "name": "emu",
    "kind": "roce",
    "gpus_per_rack": 16,
    "uplinks_per_leaf": 4,
    "spines": 4,
    "racks_per_zone": 8,
    "nic_bps": 1e9,
    "fabric_link_bps": 1e9,
}
TRUE = ModelParams(alpha_s=40e-6, efficiency=0.7, penalty=0.3)


def scenarios() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for gpus in (64, 128, 256, 512):
        for mode in ("ecmp", "eecmp", "pinning"):
            for msg in (2**14, 2**18, 2**22):
                for placement in ("packed", "spread"):
                    out.append(
                        {
                            "fabric": {**SMALL, "gpus": gpus},
                            "mode": mode,
                            "message_bytes": msg,
                            "placement": placement,
                            "qps": 4,
                            "collective": "ring" if msg != 2**18 else "hd",
                        }
                    )
    return out


def test_synthetic_fit_recovers_known_parameters() -> None:
    points = synthetic_points(TRUE, scenarios(), noise=0.02, seed=11)
    assert all(p.source == "synthetic" for p in points)
    report = fit(points)
    assert report.params.alpha_s == pytest.approx(TRUE.alpha_s, rel=0.1)
    assert report.params.efficiency == pytest.approx(TRUE.efficiency, rel=0.05)
    assert report.params.penalty == pytest.approx(TRUE.penalty, abs=0.05)
    assert report.rel_rmse < 0.04  # noise is 2%


def test_noise_free_fit_is_exact() -> None:
    report = fit(synthetic_points(TRUE, scenarios()[:30], noise=0.0))
    assert report.params.efficiency == pytest.approx(TRUE.efficiency, rel=1e-6)
    assert report.params.penalty == pytest.approx(TRUE.penalty, rel=1e-5)
    assert report.max_rel_error < 1e-8


def test_holdout_predicts_larger_runs() -> None:
    points = synthetic_points(TRUE, scenarios(), noise=0.02, seed=12)
    result = holdout(points, train_max_gpus=128)
    assert {r["gpus"] for r in result["heldout"]} == {256, 512}  # type: ignore[union-attr]
    assert result["mape"] < 0.05


def test_points_round_trip_through_json(tmp_path: Path) -> None:
    points = synthetic_points(TRUE, scenarios()[:4], seed=1)
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"points": [p.model_dump() for p in points]}))
    loaded = load_points([path])
    assert loaded == points
    assert predict(loaded[0], TRUE) == pytest.approx(predict(points[0], TRUE))


def test_bad_files_give_precise_errors(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"points": [\n  {"mode": }]}')
    with pytest.raises(UserError, match=r"bad.json:2:\d+: invalid JSON"):
        load_points([bad_json])
    bad_key = tmp_path / "key.json"
    bad_key.write_text(
        json.dumps([{"fabric": {}, "mode": "ecmp", "message_bytes": -1, "measured_time_s": 1}])
    )
    with pytest.raises(UserError, match=r"key.json: points\[0\].message_bytes"):
        load_points([bad_key])
    with pytest.raises(UserError, match="cannot read"):
        load_points([tmp_path / "missing.json"])
    with pytest.raises(UserError, match="at least 3"):
        fit([])


def test_adapter_from_collective_record() -> None:
    from emulator.scaler.calibration.points import point_from_collective_record

    rec = {
        "name": "ar",
        "collective": "allreduce",
        "algorithm": "halving_doubling",
        "ranks": 16,
        "size_bytes": 1 << 20,
        "iterations": 2,
        "num_qps": 4,
        "time_ns": 2.5e6,
    }
    fabric = {**SMALL, "gpus_per_host": 1, "gpus_per_rack": 4}
    p = point_from_collective_record(rec, fabric, "eecmp", seed=3)
    assert (p.collective, p.channels, p.fabric["gpus"], p.measured_time_s) == ("hd", 4, 16, 2.5e-3)
    assert predict(p, TRUE) > 0  # the 1-GPU-per-host fabric plans and routes
    with pytest.raises(UserError, match="not modelled"):
        point_from_collective_record({**rec, "collective": "incast"}, fabric, "ecmp")
    with pytest.raises(UserError, match="missing"):
        point_from_collective_record({"collective": "alltoall"}, fabric, "ecmp")
