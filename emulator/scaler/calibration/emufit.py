"""Fit the scaler's timing model to emulator runs, and predict held-out runs.

Per network step of ``b`` bytes with bottleneck ``B`` on links of rate ``R`` (the run's
host link rate, read from ``meta.topology``)::

    t_step = alpha0 + alpha_bits / R + 8 b / (R * efficiency) * B * (1 + penalty * (B - 1))

``alpha_bits / R`` is the part of a step's latency that is serialisation (store-and-forward
of MTU frames over the hops, the CTS handshake): it shrinks with the link rate.  ``alpha0``
is rate-independent (link delays, software).  Both are identifiable only from runs at two or
more link rates; with one rate the fit sets ``alpha0 = 0`` (at 10 Mb/s a 1 KiB frame takes
0.8 ms against 1 us of delay per link, so the rate-proportional part dominates).
Production alpha = the scaler's default software latency (8 us, not measurable here) plus
``alpha_bits / 400 Gb/s``; efficiency and penalty are dimensionless and carry over as is.
The time is linear in ``(alpha0, alpha_bits, 1/efficiency, penalty/efficiency)``: weighted
least squares (relative errors weighted equally); a negative ``alpha0`` is dropped.  The
penalty may come out negative: collisions then cost less than fluid max-min sharing says,
because the flows sharing a link do not all send at the same moments (ring steps drift).
Runs with retransmissions or drops are outside the model (go-back-N timeouts, losses) and
are left out of fits and hold-outs, and listed as excluded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from emulator.errors import UserError
from emulator.scaler.calibration.emulated import PATHS, EmulatedRun, phases, slowdowns
from emulator.scaler.calibration.fitting import fit_terms
from emulator.scaler.model.timing import ModelParams

TERMS = ("alpha0_s", "alpha_bits", "inv_eff", "pen_over_eff")


@dataclass(frozen=True)
class EmuParams:
    """Fitted timing parameters (see the module docstring)."""

    alpha0_s: float
    alpha_bits: float
    efficiency: float
    penalty: float

    def production(self, nic_bps: float, base: ModelParams | None = None) -> ModelParams:
        """Scaler parameters for a production fabric: the software alpha stays ``base``'s."""
        base = base or ModelParams()
        return replace(
            base,
            alpha_s=base.alpha_s + self.alpha_bits / nic_bps,
            efficiency=self.efficiency,
            penalty=self.penalty,
        )


@dataclass(frozen=True)
class EmuFit:
    """A fit: parameters, standard errors and per-run residuals."""

    params: EmuParams
    stderr: dict[str, float]
    paths: str
    runs: tuple[EmulatedRun, ...]
    predicted_s: tuple[float, ...]
    excluded: tuple[str, ...] = ()

    @property
    def rel_errors(self) -> np.ndarray:
        """(predicted - measured) / measured per run."""
        meas = np.array([r.time_s for r in self.runs])
        return (np.array(self.predicted_s) - meas) / meas

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (parameters, standard errors, residual summary and rows)."""
        e = self.rel_errors
        return {
            "alpha0_s": self.params.alpha0_s,
            "alpha_bits": self.params.alpha_bits,
            "efficiency": self.params.efficiency,
            "penalty": self.params.penalty,
            "stderr": self.stderr,
            "paths": self.paths,
            "runs": len(self.runs),
            "excluded": list(self.excluded),
            "median_abs_rel_error": float(np.median(np.abs(e))),
            "max_abs_rel_error": float(np.max(np.abs(e))),
            "residuals": residual_rows(self.runs, self.predicted_s),
        }


def excluded_label(run: EmulatedRun) -> str:
    """Why a run is left out."""
    return f"{run.label()}: {run.retransmissions} retransmissions, {run.drops} drops"


def residual_rows(
    runs: tuple[EmulatedRun, ...] | list[EmulatedRun], predicted: tuple[float, ...] | list[float]
) -> list[dict[str, object]]:
    """One row per run: label, measured and predicted time, relative error."""
    return [
        {
            "run": r.label(),
            "measured_s": r.time_s,
            "predicted_s": p,
            "rel_error": (p - r.time_s) / r.time_s,
        }
        for r, p in zip(runs, predicted, strict=True)
    ]


def _features(run: EmulatedRun, bs: list[float]) -> np.ndarray:
    x = np.zeros(4)
    for ph, b in zip(phases(run), bs, strict=True):
        wire = 8.0 * ph.bytes_per_conn / run.host_bps * b
        x += ph.steps * np.array([1.0, 1.0 / run.host_bps, wire, wire * (b - 1.0)])
    return x


def predict_time(run: EmulatedRun, params: EmuParams, bs: list[float]) -> float:
    """Model time of a run given the bottleneck of each phase."""
    theta = np.array(
        [
            params.alpha0_s,
            params.alpha_bits,
            1 / params.efficiency,
            params.penalty / params.efficiency,
        ]
    )
    return float(_features(run, bs) @ theta)


def usable(runs: list[EmulatedRun]) -> tuple[list[EmulatedRun], list[EmulatedRun]]:
    """Runs inside the model's domain (no retransmission, no drop), and the others."""
    keep = [r for r in runs if r.retransmissions == 0 and r.drops == 0]
    return keep, [r for r in runs if r.retransmissions or r.drops]


def fit_runs(runs: list[EmulatedRun], paths: str = "measured", seed: int = 0) -> EmuFit:
    """Weighted least-squares fit of the timing parameters to measured runs."""
    runs, dropped = usable(runs)
    if len(runs) < 4:
        raise UserError(f"calibration needs at least 4 usable emulator runs, got {len(runs)}")
    bss = [slowdowns(r, paths, seed) for r in runs]
    X = np.array([_features(r, b) for r, b in zip(runs, bss, strict=True)])
    y = np.array([r.time_s for r in runs])
    w = 1.0 / y
    cols = [0, 1, 2, 3]
    if len({r.host_bps for r in runs}) < 2:
        cols.remove(0)  # one link rate: alpha0 and alpha_bits are collinear
    if not np.any(X[:, 3] > 1e-12):
        cols.remove(3)  # no collision anywhere: the penalty is unidentifiable
    # A negative alpha0: no rate-independent latency to speak of.
    fitted = fit_terms(X, y, w, cols, [lambda t: 0 if t[0] < 0 else None])
    theta, se = fitted.theta, fitted.stderr
    if theta[2] <= 0:
        raise UserError("calibration failed: fitted bandwidth term is not positive")
    eff = 1.0 / theta[2]
    params = EmuParams(float(theta[0]), float(theta[1]), float(eff), float(theta[3] * eff))
    stderr = {
        "alpha0_s": float(se[0]),
        "alpha_bits": float(se[1]),
        "efficiency": float(se[2] * eff**2),  # delta method for 1/theta2
        "penalty": float(math.hypot(se[3] * eff, theta[3] * se[2] * eff**2)),
    }
    pred = tuple(float(x @ theta) for x in X)
    return EmuFit(
        params, stderr, paths, tuple(runs), pred, tuple(excluded_label(r) for r in dropped)
    )


def split_by_size(
    runs: list[EmulatedRun], train_max_ranks: int | None
) -> tuple[list[EmulatedRun], list[EmulatedRun]]:
    """Train on jobs of at most ``train_max_ranks`` ranks (default: all but the largest)."""
    sizes = sorted({r.ranks for r in runs})
    if train_max_ranks is None or train_max_ranks <= 0:
        if len(sizes) < 2:
            raise UserError("--holdout needs runs of at least two job sizes")
        train_max_ranks = sizes[-2]
    train = [r for r in runs if r.ranks <= train_max_ranks]
    test = [r for r in runs if r.ranks > train_max_ranks]
    if not test:
        raise UserError(f"no held-out runs larger than {train_max_ranks} ranks")
    return train, test


def holdout(
    runs: list[EmulatedRun], train_max_ranks: int | None = None, seed: int = 0
) -> dict[str, Any]:
    """Fit on the small jobs (measured paths); predict the large ones with each path source.

    ``measured`` uses the held-out run's real paths (the timing model's error alone);
    ``replay`` the P4 hash on the run's QP keys (a prediction made without running it);
    ``model`` the scaler's own seeded-QPN hash (what an extrapolation assumes).
    """
    runs, excluded = usable(runs)
    train, test = split_by_size(runs, train_max_ranks)
    fitted = fit_runs(train, "measured", seed)
    out: dict[str, Any] = {
        "train_ranks": sorted({r.ranks for r in train}),
        "test_ranks": sorted({r.ranks for r in test}),
        "fit": fitted.as_dict(),
        "excluded": [excluded_label(r) for r in excluded],
    }
    for paths in PATHS:
        pred = [predict_time(r, fitted.params, slowdowns(r, paths, seed)) for r in test]
        rows = residual_rows(test, pred)
        e = np.abs([float(row["rel_error"]) for row in rows])  # type: ignore[arg-type]
        out[paths] = {
            "rows": rows,
            "median_abs_rel_error": float(np.median(e)),
            "max_abs_rel_error": float(np.max(e)),
        }
    return out
