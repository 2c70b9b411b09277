"""A training step on the fabric: its plan (pure) and one run of the shipped scenario."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from emulator.cli.main import main
from emulator.errors import UserError
from emulator.scaler.calibration.training_fit import StagePoint, fit_results, fit_stages
from emulator.scenario.load import load_scenario
from emulator.scenario.runner import RunOutcome, run_scenario
from emulator.scenario.training_run import build_job
from emulator.topology import load_clos, resolve
from emulator.traffic import collectives as col
from emulator.traffic.mapping import Degrees, gpus_of, map_ranks, place_job
from emulator.traffic.training import ModelShape, StepJob, plan_step, step_bytes
from emulator.traffic.workloads import workload_from_dict

SCENARIO = Path(__file__).parents[2] / "scenarios" / "training_step.yaml"
TOPO = resolve(load_clos("training_two_zone"))


def planned_cross_zone(overrides: dict[str, object]) -> int:
    sc = load_scenario(SCENARIO, overrides)
    return sum(s.cross_zone_bytes for s in plan_step(build_job(sc, TOPO, SCENARIO)))


def test_min_cut_placement_cuts_planned_cross_zone_traffic() -> None:
    for seed in range(1, 6):
        random = planned_cross_zone({"workload.job.placement": "random", "seed": seed})
        min_cut = planned_cross_zone({"workload.job.placement": "min_cut", "seed": seed})
        assert min_cut < random
        assert min_cut == 0  # 16 ranks fit one 16-GPU zone


def whole_cluster_job(algorithm: str) -> StepJob:
    d = Degrees(tp=2, pp=2, dp=8)
    gpu_of = map_ranks(place_job(gpus_of(TOPO.hosts), 32, 2, "min_cut"), d, "topology_aware")
    sizes = step_bytes(ModelShape(), d, TOPO.spec.rate_scale)
    return StepJob(d, tuple(gpu_of), 2, sizes, {"dp": algorithm})


def test_hierarchical_dp_sends_less_across_zones_than_ring() -> None:
    cross = {
        a: sum(s.cross_zone_bytes for s in plan_step(whole_cluster_job(a)))
        for a in ("ring", "hierarchical")
    }
    dp = whole_cluster_job("ring").sizes.dp
    groups = 2 * 2  # TP x PP DP groups, each 4 + 4 ranks over the two zones
    assert cross["ring"] == groups * 2 * 14 * dp // 8  # two ring links cross, 2(n-1) segments
    # 4 columns of 2 ranks (one per zone) per group, each rank sends its dp/4 across once
    assert cross["hierarchical"] == groups * 4 * 2 * (dp // 4)
    assert cross["hierarchical"] < cross["ring"]
    names = [s.name for s in plan_step(whole_cluster_job("hierarchical")) if s.axis == "dp"]
    assert names == ["dp_inner_rs", "dp_across", "dp_inner_ag"]


def test_reducescatter_then_allgather_is_an_allreduce() -> None:
    for algo in ("ring", "halving_doubling"):
        rs = col.allreduce_half(algo, 8, 8000, "reducescatter")
        ag = col.allreduce_half(algo, 8, 8000, "allgather")
        assert [a + b for a, b in zip(rs, ag)] == col.schedule(algo, 8, 8000)
    w = workload_from_dict(
        {"kind": "allgather", "groups": [["a", "b"], ["c", "d", "e"]], "size_bytes": 600}
    )
    assert w.hosts == ("a", "b", "c", "d", "e")
    assert w.rank_pairs() == [(0, 1), (2, 3), (2, 4), (3, 4)]


def test_tp_goes_over_nvlink_only_when_its_group_shares_a_server() -> None:
    sc = load_scenario(SCENARIO)
    aware = plan_step(build_job(sc, TOPO, SCENARIO))
    naive = plan_step(
        build_job(load_scenario(SCENARIO, {"workload.job.mapping": "naive"}), TOPO, SCENARIO)
    )
    tp_aware = [s for s in aware if s.axis == "tp"]
    tp_naive = [s for s in naive if s.axis == "tp"]
    assert all(s.local_ns > 0 and not s.workloads for s in tp_aware)
    assert all(s.workloads and s.local_ns == 0 for s in tp_naive)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunOutcome]:
    out = {}
    for placement in ("min_cut", "random"):
        out[placement] = run_scenario(
            SCENARIO,
            {"workload.job.placement": placement},
            out=tmp_path_factory.mktemp(placement),
            report=False,
        )
    return out


def test_step_time_decomposes_into_axis_times(runs: dict[str, RunOutcome]) -> None:
    for outcome in runs.values():
        m = outcome.metrics
        assert outcome.passed, outcome.verdicts
        axes = m["tp_ms"] + m["cp_ms"] + m["pp_ms"] + m["dp_ms"]
        assert m["step_ms"] == pytest.approx(axes, rel=1e-9)
        assert min(m["tp_ms"], m["pp_ms"], m["dp_ms"]) > 0 and m["cp_ms"] == 0
        assert outcome.result.training is not None
        stages = outcome.result.training["stages"]
        fabric = [s for s in stages if s["fabric_ns"]]
        span = fabric[-1]["run_end_ns"] - fabric[0]["run_start_ns"]  # measured on the run clock
        local_only = sum(s["duration_ns"] - s["fabric_ns"] for s in stages)
        assert m["step_ms"] == pytest.approx((span + local_only) / 1e6, rel=1e-6)


def test_min_cut_measures_less_cross_zone_traffic_than_random(runs: dict[str, RunOutcome]) -> None:
    cut = runs["min_cut"].metrics["cross_zone_bytes_per_step"]
    rnd = runs["random"].metrics["cross_zone_bytes_per_step"]
    planned = runs["random"].metrics["planned_cross_zone_bytes"]
    assert cut < rnd and cut == 0
    assert rnd >= planned > 0  # headers and ACKs ride on top of the payload


def test_bad_job_descriptions_exit_2_with_the_key_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["run", str(SCENARIO), "--set", "workload.job.dp=3", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "workload.job: tp*cp*pp*dp = 2*1*2*3 = 12 must equal ranks (16)" in err
    big = ["workload.job.ranks=64", "workload.job.dp=16"]
    code = main(
        ["run", str(SCENARIO), *[a for s in big for a in ("--set", s)], "--out", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and "workload.job.ranks: 64 ranks do not fit the 32 GPUs" in err
    with pytest.raises(UserError, match="halving_doubling needs a power-of-two dp"):
        load_scenario(
            SCENARIO,
            {
                "workload.job.dp": 3,
                "workload.job.ranks": 12,
                "workload.job.algorithms.dp": "halving_doubling",
            },
        )


def test_scaler_calibrates_on_the_emulated_stages(runs: dict[str, RunOutcome]) -> None:
    fit = fit_results([o.outdir for o in runs.values()])
    assert {p.stage for p in fit.points} >= {"pp_fwd0", "pp_bwd0", "dp"}
    assert 0.2 < fit.efficiency <= 1.5 and fit.alpha_s >= 0
    errs = sorted(abs(r["rel_err"]) for r in fit.residuals())
    assert errs[len(errs) // 2] < 0.5
    assert fit.params().efficiency == fit.efficiency


def test_fit_recovers_known_parameters() -> None:
    rng = np.random.default_rng(3)
    pts = [
        StagePoint("r", f"s{i}", 0.0, int(n), float(w))
        for i, (n, w) in enumerate(zip(rng.integers(1, 20, 12), rng.uniform(0.01, 1, 12)))
    ]
    pts = [dataclasses.replace(p, measured_s=p.phases * 2e-3 + p.wire_s / 0.7) for p in pts]
    fit = fit_stages(pts)
    assert fit.alpha_s == pytest.approx(2e-3) and fit.efficiency == pytest.approx(0.7)


def test_training_step_refuses_mininet_before_starting_anything(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import emulator.scenario.choice as choice

    monkeypatch.setattr(choice, "mininet_available", lambda: None)
    with pytest.raises(UserError, match="virtual runtime only \\(not mininet\\)"):
        run_scenario(SCENARIO, runtime="mininet", out=tmp_path)
    assert not (tmp_path / "result.json").exists()  # refused before the run started


def test_a_scenario_may_expect_the_step_metrics(runs: dict[str, RunOutcome]) -> None:
    """``expect:`` accepts the step's own metrics (they were refused as unknown) and judges
    them on the run's values."""
    from emulator.scenario.expect import evaluate

    m = runs["min_cut"].metrics
    bounds = {"step_ms": {"max": m["step_ms"]}, "exposed_comm_ms": {"min": m["step_ms"] + 1}}
    sc = load_scenario(SCENARIO, {"expect": bounds})
    met = {v.metric: v.met for v in evaluate(sc.expect, m)}
    assert met == {"step_ms": True, "exposed_comm_ms": False}
