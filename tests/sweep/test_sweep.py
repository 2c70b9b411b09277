"""Sweeps: identical results serially, on the local pool and on Ray; crashes are
reported without losing the other runs; Ctrl-C stops the workers and keeps what finished."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from emulator.errors import UserError
from emulator.sweep import LocalPoolExecutor, RunRequest, SerialExecutor, make_executor
from emulator.sweep.progress import run_all
from emulator.sweep.request import execute

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "scenarios" / "fat_flow_collision.yaml")
VOLATILE = ("wall_s", "started_at")


def sweep(out: Path) -> list[RunRequest]:
    """2 variants x 2 seeds, shortened."""
    return [
        RunRequest(
            f"lb={lb},seed={seed}",
            SCENARIO,
            str(out / f"{lb}-{seed}"),
            {"switch.lb": lb, "seed": seed, "duration_ms": 120},
        )
        for lb in ("ecmp", "eecmp")
        for seed in (1, 2)
    ]


def results(reqs: list[RunRequest]) -> dict[str, Any]:
    out = {}
    for r in reqs:
        data = json.loads((Path(r.out) / "result.json").read_text())
        for key in VOLATILE:
            data["meta"].pop(key, None)
        out[r.label] = data
    return out


def test_serial_pool_and_ray_give_identical_results(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from emulator.sweep.ray_executor import RayExecutor

    serial, pool, cluster = (sweep(tmp_path / n) for n in ("serial", "pool", "ray"))
    cluster = [replace(r, slim=True) for r in cluster]  # as a --seeds sweep asks
    assert all(d.ok for d in run_all(SerialExecutor(), serial))
    assert all(d.ok for d in run_all(LocalPoolExecutor(2), pool))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        done = run_all(RayExecutor(), cluster)
    finally:
        ray.shutdown()
    assert all(d.ok for d in done), [d.error for d in done]
    assert all(d.outcome is not None and d.outcome.result.links == [] for d in done)
    reference = results(serial)
    assert results(pool) == reference
    assert results(cluster) == reference
    assert reference["lb=ecmp,seed=1"] != reference["lb=ecmp,seed=2"]  # seeds matter


def crashy(req: RunRequest) -> Any:
    """A run body that dies hard for label 'boom', else runs for real."""
    if req.label == "boom":
        os.kill(os.getpid(), signal.SIGKILL)
    return execute(req)


def test_a_crashed_run_is_reported_and_the_others_kept(tmp_path: Path) -> None:
    reqs = sweep(tmp_path)[:2]
    reqs.insert(1, RunRequest("boom", SCENARIO, str(tmp_path / "boom")))
    done = run_all(LocalPoolExecutor(2, fn=crashy), reqs)
    assert [d.request.label for d in done] == [r.label for r in reqs]
    assert not done[1].ok and "signal 9" in str(done[1].error)
    assert done[0].ok and done[2].ok
    assert (Path(reqs[2].out) / "result.json").exists()


def sleepy(req: RunRequest) -> Any:
    """Fast for 'fast', else sleeps (bounded) until interrupted."""
    if req.label == "fast":
        return execute(req)
    time.sleep(60)
    raise AssertionError("not interrupted")


def test_ctrl_c_stops_workers_and_keeps_finished(tmp_path: Path) -> None:
    fast = sweep(tmp_path)[0]
    fast = RunRequest("fast", fast.scenario, fast.out, fast.overrides)
    slow = [RunRequest(f"slow{i}", SCENARIO, str(tmp_path / f"s{i}")) for i in range(2)]
    pool = LocalPoolExecutor(3, fn=sleepy)
    seen: list[Any] = []
    real_run = pool.run

    def run_and_interrupt(requests: Any) -> Any:
        for d in real_run(requests):
            seen.append(d)
            if d.request.label == "fast":  # like the user pressing Ctrl-C now
                threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
            yield d

    pool.run = run_and_interrupt  # type: ignore[method-assign]
    t0 = time.monotonic()
    done = run_all(pool, [fast, *slow])
    assert time.monotonic() - t0 < 40
    assert done[0].ok
    assert [d.error for d in done[1:]] == ["interrupted", "interrupted"]
    assert pool.last_processes and not any(p.is_alive() for p in pool.last_processes)


def test_cluster_ray_without_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(UserError, match=r"pip install 'fabemu\[cluster\]'"):
        make_executor("ray")


def test_cluster_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_executor(None, 1), SerialExecutor)
    assert isinstance(make_executor("local", 3), LocalPoolExecutor)
    with pytest.raises(UserError, match="--cluster"):
        make_executor("slurm")
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(UserError, match="RAY_ADDRESS"):
        make_executor("ray")


def test_slim_outcomes_keep_what_a_distribution_reads(tmp_path: Path) -> None:
    """A ``slim`` request's outcome, through the pool as a seed sweep gets it: the same
    metrics, verdicts and meta as the whole outcome, no time series (result.json on disk
    keeps them), and a small fraction of the bytes a driver receives and keeps."""
    import pickle

    whole, slim = sweep(tmp_path / "whole")[:1], sweep(tmp_path / "slim")[:1]
    slim = [replace(r, slim=True) for r in slim]
    (w,) = run_all(LocalPoolExecutor(1), whole)
    (s,) = run_all(LocalPoolExecutor(1), slim)
    assert w.outcome is not None and s.outcome is not None
    full, thin = w.outcome, s.outcome
    assert full.result.links and full.result.queues
    assert thin.result.links == thin.result.queues == thin.result.events == []
    assert thin.metrics == full.metrics and thin.verdicts == full.verdicts
    assert thin.passed == full.passed and thin.result.totals == full.result.totals
    meta = {k: v for k, v in thin.result.meta.model_dump().items() if k not in VOLATILE}
    assert meta == {k: v for k, v in full.result.meta.model_dump().items() if k not in VOLATILE}
    assert results(slim) == results(whole)  # the saved result.json is whole
    assert len(pickle.dumps(thin)) < len(pickle.dumps(full)) / 5  # 120 ms runs: ~9x
    assert full.slim().result.flows == full.result.flows and full.result.links  # a copy


def test_only_sweeps_over_seeds_ask_for_slim_outcomes(tmp_path: Path) -> None:
    import argparse

    from emulator.cli.distribution import sweep_requests

    args = argparse.Namespace(
        scenario=Path(SCENARIO), runtime=None, target=None, wall_limit=None, seeds=None
    )
    plain = sweep_requests(args, [("a", {})], {}, tmp_path)
    seeded = sweep_requests(
        argparse.Namespace(**{**vars(args), "seeds": "1-2"}), [("a", {})], {}, tmp_path
    )
    assert [r.slim for r in plain] == [False] and [r.report for r in plain] == [True]
    assert [r.slim for r in seeded] == [True, True] and not any(r.report for r in seeded)
