"""Fit the model's free parameters to measured runs, and predict held-out runs.

Input is a list of :class:`CalibrationPoint` records: one measured collective completion
time on a described fabric.  Until ``emulator.measure.results.RunResult`` exists the scaler
reads these minimal records (JSON, validated with pydantic); an adapter from RunResult is the
only thing to add later.  The model time is linear in ``theta = (alpha, 1/efficiency,
penalty/efficiency)`` once the link loads are known::

    y - t_nvlink = X @ theta        X row = sum over phases of features(B, steps, bytes)

so the fit is ordinary least squares (with ``penalty`` clamped to >= 0 by refitting without
it).  :func:`synthetic_points` makes labelled synthetic data from known parameters plus
seeded noise, to check that the fit recovers them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emulator.errors import UserError
from emulator.scaler.calibration.emulated import read_json
from emulator.scaler.calibration.fitting import fit_terms
from emulator.scaler.model.collectives import plan_collective
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.timing import (
    ModelParams,
    PhaseResult,
    evaluate,
    features,
    nvlink_time,
    summarise,
)


class CalibrationPoint(BaseModel):
    """One measured run: fabric, scenario and measured completion time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fabric: dict[str, float | int | str] = Field(description="ClosFabric keyword arguments")
    mode: str
    collective: str = "ring"
    message_bytes: float = Field(gt=0)
    placement: str = "packed"
    qps: int = Field(default=1, ge=1)
    channels: int = Field(default=1, ge=1)
    seed: int = 0
    measured_time_s: float = Field(gt=0)
    source: str = Field(default="emulator", description="'emulator' or 'synthetic'")

    def build_fabric(self) -> ClosFabric:
        """The described fabric."""
        return ClosFabric(**self.fabric)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FitReport:
    """Fitted parameters, their standard errors and the in-sample error."""

    params: ModelParams
    stderr: dict[str, float]
    points: int
    rel_rmse: float
    max_rel_error: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "alpha_s": self.params.alpha_s,
            "efficiency": self.params.efficiency,
            "penalty": self.params.penalty,
            "stderr": self.stderr,
            "points": self.points,
            "rel_rmse": self.rel_rmse,
            "max_rel_error": self.max_rel_error,
        }


def load_points(paths: list[Path]) -> list[CalibrationPoint]:
    """Read calibration points from JSON files (a record, a list, or ``{"points": [...]}``)."""
    points: list[CalibrationPoint] = []
    for path in paths:
        doc = read_json(path, "calibration file")
        records = doc.get("points", doc) if isinstance(doc, dict) else doc
        records = records if isinstance(records, list) else [records]
        for i, rec in enumerate(records):
            try:
                points.append(CalibrationPoint.model_validate(rec))
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(x) for x in err["loc"])
                raise UserError(f"{path}: points[{i}].{where}: {err['msg']}") from None
    return points


_COLLECTIVES = {("allreduce", "ring"): "ring", ("allreduce", "halving_doubling"): "hd"}


def point_from_collective_record(
    record: dict[str, Any],
    fabric: dict[str, Any],
    mode: str,
    placement: str = "packed",
    seed: int = 0,
) -> CalibrationPoint:
    """A calibration point from ``emulator.measure.flows.CollectiveRecord.as_dict()``.

    The emulator's endpoints are single-RNIC hosts, so ``fabric`` should say
    ``gpus_per_host=1`` (no NVLink stage); its ``num_qps`` data QPs per connection become the
    scaler's ``channels`` (QPs in every mode).  The run context (fabric, LB mode, placement,
    seed) is not in the record and is passed in.
    """
    coll, algo = str(record.get("collective")), str(record.get("algorithm"))
    if coll == "alltoall":
        name = "alltoall"
    elif (coll, algo) in _COLLECTIVES:
        name = _COLLECTIVES[(coll, algo)]
    else:
        raise UserError(f"collective record {record.get('name')!r}: {coll}/{algo} is not modelled")
    try:
        return CalibrationPoint(
            fabric={**fabric, "gpus": int(record["ranks"]) * int(fabric.get("gpus_per_host", 1))},
            mode=mode,
            collective=name,
            message_bytes=float(record["size_bytes"]),
            placement=placement,
            channels=int(record.get("num_qps", 1)),
            seed=seed,
            measured_time_s=float(record["time_ns"]) * 1e-9,
        )
    except (KeyError, ValidationError) as exc:
        raise UserError(
            f"collective record {record.get('name')!r}: bad or missing field {exc}"
        ) from None


def _route(point: CalibrationPoint) -> tuple[ClosFabric, object, tuple[PhaseResult, ...]]:
    try:
        fabric = point.build_fabric()
    except TypeError as exc:  # an unknown ClosFabric keyword
        raise UserError(f"calibration point fabric: {exc}") from None
    plan = plan_collective(
        fabric, point.collective, point.message_bytes, point.placement, seed=point.seed
    )
    res = evaluate(
        fabric, plan, point.mode, qps=point.qps, seed=point.seed, channels=point.channels
    )
    return fabric, plan, res.phases


def _design(
    points: list[CalibrationPoint], fixed: ModelParams
) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    rows, ys, routed = [], [], []
    for p in points:
        fabric, plan, phases = _route(p)
        x = sum(
            (features(ph.slowdown, ph.steps, ph.bytes_per_conn, fabric.nic_bps) for ph in phases),
            np.zeros(3),
        )
        rows.append(x)
        ys.append(p.measured_time_s - nvlink_time(fixed, plan, fabric))  # type: ignore[arg-type]
        routed.append((fabric, plan, phases))
    return np.array(rows), np.array(ys), routed


def fit(points: list[CalibrationPoint], fixed: ModelParams | None = None) -> FitReport:
    """Least-squares fit of alpha, efficiency and penalty (relative errors weighted equally)."""
    if len(points) < 3:
        raise UserError(f"calibration needs at least 3 measured points, got {len(points)}")
    fixed = fixed or ModelParams()
    X, y, routed = _design(points, fixed)
    w = 1.0 / np.array([p.measured_time_s for p in points])  # relative-error weighting
    # The penalty is unidentifiable without collisions, and clamped to >= 0.
    cols = [0, 1, 2] if np.any(X[:, 2]) else [0, 1]
    fitted = fit_terms(X, y, w, cols, [lambda t: 2 if t[2] < 0 else None])
    theta, se = fitted.theta, fitted.stderr
    if theta[1] <= 0:
        raise UserError(
            "calibration failed: fitted bandwidth term is not positive (check the runs)"
        )
    eff = 1.0 / theta[1]
    params = replace(
        fixed, alpha_s=float(theta[0]), efficiency=float(eff), penalty=float(theta[2] * eff)
    )
    stderr = {
        "alpha_s": float(se[0]),
        "efficiency": float(se[1] * eff**2),  # delta method for 1/theta1
        "penalty": float(math.hypot(se[2] * eff, theta[2] * se[1] * eff**2)),
    }
    errs = [
        _rel_err(fabric, plan, phases, params, p)
        for (fabric, plan, phases), p in zip(routed, points)
    ]
    return FitReport(
        params,
        stderr,
        len(points),
        float(np.sqrt(np.mean(np.square(errs)))),
        float(np.max(np.abs(errs))),
    )


def _rel_err(fabric, plan, phases, params, point: CalibrationPoint) -> float:  # type: ignore[no-untyped-def]
    pred = summarise(fabric, plan, point.mode, params, phases).time_s
    return (pred - point.measured_time_s) / point.measured_time_s


def predict(point: CalibrationPoint, params: ModelParams) -> float:
    """Model completion time for the scenario of ``point``."""
    fabric, plan, phases = _route(point)
    return summarise(fabric, plan, point.mode, params, phases).time_s  # type: ignore[arg-type]


def holdout(points: list[CalibrationPoint], train_max_gpus: int) -> dict[str, object]:
    """Fit on runs with at most ``train_max_gpus`` GPUs; report the error on the larger ones."""
    train = [p for p in points if int(p.fabric["gpus"]) <= train_max_gpus]
    test = [p for p in points if int(p.fabric["gpus"]) > train_max_gpus]
    if not test:
        raise UserError(f"no held-out runs larger than {train_max_gpus} GPUs")
    report = fit(train)
    rows = []
    for p in test:
        pred = predict(p, report.params)
        rows.append(
            {
                "gpus": int(p.fabric["gpus"]),
                "mode": p.mode,
                "measured_s": p.measured_time_s,
                "predicted_s": pred,
                "rel_error": (pred - p.measured_time_s) / p.measured_time_s,
            }
        )
    errs = np.array([r["rel_error"] for r in rows], dtype=float)
    return {
        "fit": report.as_dict(),
        "heldout": rows,
        "mape": float(np.mean(np.abs(errs))),
        "max_abs_rel_error": float(np.max(np.abs(errs))),
    }


def synthetic_points(
    true: ModelParams,
    scenarios: list[dict[str, object]],
    noise: float = 0.02,
    seed: int = 0,
) -> list[CalibrationPoint]:
    """SYNTHETIC calibration data: the model under ``true`` times (1 + N(0, noise)), seeded.

    Each scenario is a :class:`CalibrationPoint` field dict without ``measured_time_s``.
    """
    rng = np.random.default_rng([seed, 0xCA1])
    out = []
    for sc in scenarios:
        probe = CalibrationPoint.model_validate(
            {**sc, "measured_time_s": 1.0, "source": "synthetic"}
        )
        t = predict(probe, true) * (1.0 + noise * float(rng.standard_normal()))
        out.append(probe.model_copy(update={"measured_time_s": t}))
    return out
