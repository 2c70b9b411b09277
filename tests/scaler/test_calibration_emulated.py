"""Calibration of the scaler on REAL emulator runs (virtual-time RunResult fixtures).

The fixtures in ``calib_runs/`` are slim RunResult files (no link/queue series) of tiny
virtual-time AllReduce runs; regenerate them (about a minute) with::

    .venv/bin/python -m tests.scaler.test_calibration_emulated --regenerate

Tolerance of the held-out check: the 32-rank runs are predicted from a fit on 8- and
16-rank runs within 15% (measured with these fixtures: 1.1% and 8.0%; see docs/scaler.md,
"Calibration against the emulator", for the full sweep).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.cli.main import main
from emulator.errors import UserError
from emulator.scaler.calibration.emufit import EmuParams, fit_runs, holdout, predict_time
from emulator.scaler.calibration.emulated import parse_rate, phases, read_runs, slowdowns
from emulator.scaler.calibration.emurun import Case

FIXTURES = Path(__file__).parent / "calib_runs"
HOLDOUT_TOLERANCE = 0.15
KIB = 1024

CASES = [
    Case("calib_4x2", 8, algo, lb, q, size)
    for algo in ("ring", "halving_doubling")
    for lb, q in (("ecmp", 1), ("eecmp", 4))
    for size in (64 * KIB, 256 * KIB)
]
CASES += [
    Case("calib_4x4_20mbps", 16, algo, lb, q, 128 * KIB)
    for algo in ("ring", "halving_doubling")
    for lb, q in (("ecmp", 1), ("eecmp", 4))
]
CASES += [
    Case("ai_zone_small", 32, "ring", "eecmp", 4, 256 * KIB),
    Case("ai_zone_small", 32, "halving_doubling", "ecmp", 1, 256 * KIB),
]


@pytest.fixture(scope="module")
def runs() -> list:  # type: ignore[type-arg]
    if not FIXTURES.is_dir():
        pytest.fail(f"missing fixtures {FIXTURES}: run this module with --regenerate")
    return read_runs([FIXTURES])


def _one(runs: list, **want: object):  # type: ignore[no-untyped-def,type-arg]
    found = [r for r in runs if all(getattr(r, k) == v for k, v in want.items())]
    assert len(found) == 1, want
    return found[0]


def test_reader_extracts_run_context(runs: list) -> None:  # type: ignore[type-arg]
    assert len(runs) == len(CASES)
    r = _one(runs, topology="calib_4x2", algorithm="ring", lb="eecmp", size_bytes=256 * KIB)
    assert (r.racks, r.gpus_per_rack, r.spines, r.uplinks_per_leaf) == (4, 2, 2, 2)
    assert r.host_bps == r.fabric_bps == 10e6
    assert r.num_qps == 4 and r.placement == "spread" and r.ranks == 8
    assert r.hosts == (0, 2, 4, 6, 1, 3, 5, 7)  # round robin over racks
    doc = json.loads(Path(r.source).read_text())
    assert r.time_s == pytest.approx(doc["collectives"][0]["time_ns"] * 1e-9)
    # every rank's connection to its ring successor: 4 data QPs, all cross-rack, 2(n-1)/n S
    assert len(r.qps) == 8 * 4
    assert all(0 <= q.uplink < 2 for q in r.qps)
    per_conn: dict[tuple[int, int], int] = {}
    for q in r.qps:
        per_conn[(q.src, q.dst)] = per_conn.get((q.src, q.dst), 0) + q.bytes
    assert set(per_conn) == {(r.hosts[i], r.hosts[(i + 1) % 8]) for i in range(8)}
    assert set(per_conn.values()) == {2 * 7 * 256 * KIB // 8}
    fast = _one(runs, topology="calib_4x4_20mbps", algorithm="ring", lb="ecmp")
    assert fast.host_bps == 20e6 and fast.ranks == 16


def test_phases_follow_the_emulator_algorithms(runs: list) -> None:  # type: ignore[type-arg]
    ring = _one(runs, topology="calib_4x2", algorithm="ring", lb="ecmp", size_bytes=64 * KIB)
    (ph,) = phases(ring)
    assert ph.steps == 14 and ph.bytes_per_conn == 64 * KIB / 8
    hd = _one(
        runs, topology="calib_4x2", algorithm="halving_doubling", lb="ecmp", size_bytes=64 * KIB
    )
    hph = phases(hd)
    assert [p.bytes_per_conn for p in hph] == [32 * KIB, 16 * KIB, 8 * KIB]
    h = hd.hosts
    assert (h[0], h[4]) in hph[0].pairs and (h[0], h[1]) in hph[2].pairs


def test_measured_slowdown_counts_connections_per_uplink(runs: list) -> None:  # type: ignore[type-arg]
    for r in runs:
        bs = slowdowns(r, "measured")
        assert all(1.0 <= b <= r.gpus_per_rack for b in bs)
        if r.algorithm == "ring" and r.num_qps == 1:
            # one QP per connection: B = the most connections any RTSW uplink carries
            counts: dict[tuple[int, int], int] = {}
            for q in r.qps:
                key = (q.src // r.gpus_per_rack, q.uplink)
                counts[key] = counts.get(key, 0) + 1
            assert bs == [max(counts.values())]


def test_p4_hash_replay_reproduces_the_measured_uplinks(runs: list) -> None:  # type: ignore[type-arg]
    hashed = [q for r in runs for q in r.qps if q.uplink >= 0]
    assert len(hashed) > 300
    assert all(q.replayed == q.uplink for q in hashed)
    for r in runs:
        assert slowdowns(r, "replay") == slowdowns(r, "measured")


def test_fit_on_emulator_runs_converges(runs: list) -> None:  # type: ignore[type-arg]
    fitted = fit_runs(runs)
    p = fitted.params
    assert 0.6 < p.efficiency <= 1.0
    assert p.alpha_bits > 0
    assert fitted.stderr["efficiency"] < 0.1
    assert float(np.median(np.abs(fitted.rel_errors))) < 0.08


def test_holdout_predicts_the_32_rank_runs(runs: list) -> None:  # type: ignore[type-arg]
    ho = holdout(runs)
    assert ho["train_ranks"] == [8, 16] and ho["test_ranks"] == [32]
    measured = ho["measured"]
    assert isinstance(measured, dict)
    assert len(measured["rows"]) == 2
    assert measured["max_abs_rel_error"] < HOLDOUT_TOLERANCE


@settings(max_examples=25, deadline=None)
@given(
    alpha_bits=st.floats(1e3, 1e5),
    eff=st.floats(0.5, 1.0),
    pen=st.floats(0.0, 0.5),
)
def test_fit_recovers_parameters_on_the_runs_shapes(
    runs: list,  # type: ignore[type-arg]
    alpha_bits: float,
    eff: float,
    pen: float,
) -> None:
    true = EmuParams(2e-4, alpha_bits, eff, pen)
    fake = [
        r.__class__(**{**r.__dict__, "time_s": predict_time(r, true, slowdowns(r))}) for r in runs
    ]
    got = fit_runs(fake).params
    assert got.efficiency == pytest.approx(eff, rel=1e-6)
    assert got.alpha_bits == pytest.approx(alpha_bits, rel=1e-4)
    assert got.alpha0_s == pytest.approx(2e-4, rel=1e-4, abs=1e-9)
    assert got.penalty == pytest.approx(pen, abs=1e-6)


@pytest.mark.parametrize("text,bps", [("10Mbps", 10e6), ("400Gbps", 400e9), (2.5e6, 2.5e6)])
def test_parse_rate(text: object, bps: float) -> None:
    assert parse_rate(text, "x") == bps


def test_cli_calibrates_and_holds_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    code = main(
        [
            "scale",
            "--gpus",
            "256",
            "--fabric",
            "roce",
            "--mode",
            "ecmp,eecmp",
            "--sweep",
            "1",
            "--calibrate",
            str(FIXTURES),
            "--holdout",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    doc = json.loads((out / "report.json").read_text())
    cal = doc["calibration"]
    assert cal["runs"] == len(CASES) and cal["holdout"]["test_ranks"] == [32]
    assert doc["params"]["efficiency"] == pytest.approx(cal["efficiency"])
    assert doc["params"]["alpha_s"] == pytest.approx(8e-6 + cal["alpha_bits"] / 400e9)
    text = capsys.readouterr().out
    assert "Held-out ranks [32]" in text and "alpha_bits" in text


def test_bad_inputs_are_user_errors(tmp_path: Path) -> None:
    junk = tmp_path / "x.json"
    junk.write_text('{"meta": {"scenario": 1}, "collectives": []}')
    with pytest.raises(UserError, match="not a RunResult"):
        read_runs([junk])
    src = next(FIXTURES.glob("*.result.json"))
    doc = json.loads(src.read_text())
    doc["meta"]["complete"] = False
    bad = tmp_path / "inc.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError, match="incomplete"):
        read_runs([bad])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match=r"no result\.json"):
        read_runs([empty])


def _regenerate() -> None:
    from emulator.scaler.calibration.emurun import run_case

    if FIXTURES.exists():
        shutil.rmtree(FIXTURES)
    for case in CASES:
        print("running", case.name, flush=True)
        run_case(case, FIXTURES)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="regenerate the calibration fixtures")
    ap.add_argument("--regenerate", action="store_true")
    if ap.parse_args().regenerate:
        _regenerate()
