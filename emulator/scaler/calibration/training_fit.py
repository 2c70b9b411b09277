"""Calibrate the scaler's transfer efficiency on emulated training steps.

Every fabric stage of a ``training_step`` run (``result.json``: ``training.stages``) is a
measured time; the scaler predicts it from the same plan (re-built from the saved scenario
and topology, so the same groups, bytes and hosts) as the sum over the stage's phases of::

    alpha + 8 b_k / (nic_rate * efficiency) * B_k

``B_k`` the phase's bottleneck slowdown from :func:`emulator.scaler.model.routing.link_loads`
on the emulated fabric's shape. Linear in ``(alpha, 1/efficiency)``: least squares.
Efficiency is dimensionless and carries over to full scale; the emulated alpha (1 KiB frames
serialised at 10 Mb/s, CTS round trips) does not, so extrapolations keep the default alpha.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from emulator.errors import UserError
from emulator.measure.results import RunResult
from emulator.scaler.calibration.fitting import fit_terms
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import link_loads
from emulator.scaler.model.timing import ModelParams
from emulator.traffic.training import plan_step
from emulator.traffic.workloads import workload_from_dict


@dataclass(frozen=True)
class StagePoint:
    """One measured fabric stage and its model features (phases, sum of 8 b B / nic)."""

    run: str
    stage: str
    measured_s: float
    phases: int
    wire_s: float  # at efficiency 1


@dataclass(frozen=True)
class TrainingFit:
    """Fitted alpha (emulated seconds) and efficiency, with per-stage residuals."""

    alpha_s: float
    efficiency: float
    points: tuple[StagePoint, ...]

    def predict(self, p: StagePoint) -> float:
        """Model seconds of a stage under the fit."""
        return p.phases * self.alpha_s + p.wire_s / self.efficiency

    def residuals(self) -> list[dict[str, Any]]:
        """Measured vs predicted per stage (relative error)."""
        return [
            {
                "run": p.run,
                "stage": p.stage,
                "measured_ms": p.measured_s * 1e3,
                "model_ms": self.predict(p) * 1e3,
                "rel_err": self.predict(p) / p.measured_s - 1,
            }
            for p in self.points
        ]

    def params(self, base: ModelParams | None = None) -> ModelParams:
        """``base`` with the fitted efficiency (alpha stays: it does not scale)."""
        return dataclasses.replace(base or ModelParams(), efficiency=self.efficiency)


def fabric_of(spec: Any) -> ClosFabric:
    """The scaler's fabric for an emulated topology spec (one GPU per host)."""
    return ClosFabric(
        name=spec.name,
        kind="roce",
        gpus=spec.hosts,
        gpus_per_host=1,
        gpus_per_rack=spec.gpus_per_rack,
        uplinks_per_leaf=spec.uplinks_per_leaf,
        spines=spec.spines,
        racks_per_zone=spec.racks,
        aggs=spec.spine_uplinks if spec.zones > 1 else 0,
        nic_bps=float(spec.host_link.rate_bps),
        fabric_link_bps=float(spec.fabric_link.rate_bps),
    )


def _phase_features(
    fabric: ClosFabric, workloads: Sequence[Mapping[str, Any]], mode: str, qps: int
) -> tuple[int, float]:
    index = {f"h{i}": i for i in range(fabric.gpus)}
    phases, wire = 0, 0.0
    for m in workloads:
        w = workload_from_dict(m)
        for k in range(max(len(p) for p in w.schedule)):
            sends = [
                (index[w.hosts[r]], index[w.hosts[t.peer]], t.nbytes)
                for r, ph in enumerate(w.schedule)
                if k < len(ph)
                for t in ph[k].sends
            ]
            if not sends:
                continue
            src, dst, nb = (np.array(x) for x in zip(*sends))
            b = link_loads(fabric, mode, src, dst, qps=qps, slot=k).slowdown()
            phases += 1
            wire += 8.0 * float(nb.max()) / fabric.nic_bps * b
    return phases, wire


def stage_points(result: RunResult, name: str) -> list[StagePoint]:
    """The fabric stages of one training-step run as calibration points."""
    from emulator.scenario.schema import Scenario
    from emulator.scenario.training_run import build_job
    from emulator.topology import resolve
    from emulator.topology.io import spec_from_dict

    tr = result.training
    if not tr or not tr.get("complete"):
        raise UserError(f"{name}: not a finished training_step run")
    spec = spec_from_dict(result.meta.topology)
    topo = resolve(spec)  # type: ignore[arg-type]
    sc = Scenario.model_validate(result.meta.settings)
    job = build_job(sc, topo, name)
    if [g.host for g in job.gpu_of] != tr["rank_hosts"]:
        raise UserError(
            f"{name}: the re-built job differs from the run's (another fabemu version?)"
        )
    fabric = fabric_of(spec)
    measured = {s["name"]: s["fabric_ns"] / 1e9 for s in tr["stages"] if s["fabric_ns"]}
    out = []
    for st in plan_step(job):
        if st.name in measured and st.workloads:
            phases, wire = _phase_features(fabric, st.workloads, sc.switch.lb, sc.workload.num_qps)
            out.append(StagePoint(name, st.name, measured[st.name], phases, wire))
    return out


def fit_stages(points: Sequence[StagePoint]) -> TrainingFit:
    """Weighted least squares (relative errors) of (alpha, 1/efficiency), through the
    calibration's one pipeline (``fitting.fit_terms``)."""
    if len(points) < 2:
        raise UserError(f"calibration needs at least 2 fabric stages, got {len(points)}")
    X = np.array([[p.phases, p.wire_s] for p in points])
    y = np.array([p.measured_s for p in points])
    # a negative alpha: refit through the origin (the wire term alone)
    fitted = fit_terms(X, y, 1.0 / y, [0, 1], [lambda t: 0 if t[0] < 0 else None])
    alpha, inv_eff = float(fitted.theta[0]), float(fitted.theta[1])
    if inv_eff <= 0:
        raise UserError("calibration: the fitted 1/efficiency is not positive")
    return TrainingFit(alpha, 1.0 / inv_eff, tuple(points))


def fit_results(paths: Sequence[Path]) -> TrainingFit:
    """Fit on ``result.json`` files (or folders holding them, searched recursively)."""
    files: list[Path] = []
    for p in paths:
        files += sorted(p.rglob("result.json")) if p.is_dir() else [p]
    points: list[StagePoint] = []
    for f in files:
        try:
            result = RunResult.load(f)
        except (OSError, ValueError) as exc:
            raise UserError(f"{f}: cannot read a run result: {exc}") from None
        if result.training:
            points += stage_points(result, str(f.parent.name))
    return fit_stages(points)
