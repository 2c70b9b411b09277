"""``fabemu scale --calibrate``: fit on emulator RunResults (or calibration points), print.

Emulator RunResult files (or directories of them) get the rate-aware fit of
:mod:`emulator.scaler.calibration.emufit`; plain calibration-point JSON keeps the older fit of
:mod:`emulator.scaler.calibration.points`.  Either way the extrapolation uses the fitted
efficiency and penalty; the emulator's latency is only carried over in its
rate-proportional part (``alpha_bits / nic rate``) on top of the production software alpha.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from emulator.errors import UserError
from emulator.scaler import report
from emulator.scaler.calibration.emufit import fit_runs
from emulator.scaler.calibration.emufit import holdout as emu_holdout
from emulator.scaler.calibration.emulated import PATHS, expand_paths, is_run_result, read_runs
from emulator.scaler.calibration.points import fit, holdout, load_points
from emulator.scaler.model.timing import ModelParams


def _is_runs(paths: list[Path]) -> bool:
    kinds = set()
    for p in expand_paths(paths):
        try:
            doc = json.loads(Path(p).read_text())
        except (OSError, ValueError):  # not JSON, not UTF-8, too deep
            return False  # let the reader raise the precise error
        kinds.add(is_run_result(doc))
    if len(kinds) > 1:
        raise UserError("--calibrate: mix of RunResult and calibration-point files")
    return kinds == {True}


def residual_table(title: str, rows: list[dict[str, Any]]) -> Table:
    """Measured vs predicted time per run."""
    table = Table(title=title)
    for col in ("run", "measured", "predicted", "rel. error"):
        table.add_column(col, justify="left" if col == "run" else "right")
    for r in rows:
        table.add_row(
            str(r["run"]),
            f"{r['measured_s']:.4f} s",
            f"{r['predicted_s']:.4f} s",
            f"{r['rel_error']:+.1%}",
        )
    return table


def _fit_table(title: str, fitd: dict[str, Any]) -> Table:
    table = Table(title=title)
    for col in ("parameter", "value", "std. error"):
        table.add_column(col, justify="left" if col == "parameter" else "right")
    for key, value in fitd["stderr"].items():
        table.add_row(key, f"{fitd[key]:.5g}", f"{value:.2g}")
    table.add_row(
        "|rel. error| median / max",
        f"{fitd['median_abs_rel_error']:.1%}",
        f"{fitd['max_abs_rel_error']:.1%}",
    )
    return table


def calibrate(
    paths: list[Path], holdout_ranks: int | None, con: Console, nic_bps: float = 400e9
) -> tuple[ModelParams, dict[str, Any]]:
    """Fit, print, and return the parameters for the extrapolation and the report section."""
    base = ModelParams()
    if not _is_runs(paths):
        points = load_points(paths)
        fitted = fit(points)
        doc: dict[str, Any] = fitted.as_dict()
        con.print(report.dict_table("Calibration fit (calibration points)", doc))
        if holdout_ranks is not None:
            sizes = sorted({int(p.fabric["gpus"]) for p in points})
            limit = holdout_ranks if holdout_ranks > 0 else (sizes[-2] if len(sizes) > 1 else 0)
            doc["holdout"] = holdout(points, limit)
            con.print(
                report.dict_table(
                    "Held-out runs",
                    {
                        "mean |rel. error|": doc["holdout"]["mape"],
                        "max |rel. error|": doc["holdout"]["max_abs_rel_error"],
                    },
                )
            )
        # alpha measured there is not production's: transfer only the dimensionless terms
        return replace(
            base, efficiency=fitted.params.efficiency, penalty=fitted.params.penalty
        ), doc
    runs = read_runs(paths)
    emu = fit_runs(runs)
    doc = emu.as_dict()
    con.print(_fit_table(f"Calibration fit on {len(runs)} emulator runs (measured paths)", doc))
    con.print(residual_table("Residuals", doc["residuals"]))
    for label in doc["excluded"]:
        con.print(f"excluded (outside the model): {label}")
    if holdout_ranks is not None:
        ho = emu_holdout(runs, holdout_ranks)
        doc["holdout"] = ho
        con.print(_fit_table(f"Fit on ranks {ho['train_ranks']}", ho["fit"]))
        for src in PATHS:
            part = ho[src]
            con.print(
                residual_table(
                    f"Held-out ranks {ho['test_ranks']}, B from {src} paths: |rel. error| "
                    f"median {part['median_abs_rel_error']:.1%}, max {part['max_abs_rel_error']:.1%}",
                    part["rows"],
                )
            )
    params = emu.params.production(nic_bps, base)
    doc["production_alpha_s"] = params.alpha_s
    con.print(
        f"extrapolation: alpha {params.alpha_s * 1e6:.2f} us (software {base.alpha_s * 1e6:.0f} us"
        f" + {emu.params.alpha_bits:.4g} bits / {nic_bps / 1e9:.0f} Gb/s), "
        f"efficiency {params.efficiency:.3f}, penalty {params.penalty:.3f}"
    )
    return params, doc
