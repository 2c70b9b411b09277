"""``fabemu scale-training``: a training_step scenario's job extrapolated to 24K-100K GPUs."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from rich.console import Console

from emulator.errors import UserError
from emulator.scaler.cli import parse_gpus
from emulator.scaler.model.fabric import EXTENSION_100K_GPUS, LLAMA3_GPUS, meta_fabric
from emulator.scaler.model.timing import ModelParams
from emulator.scaler.model.training_step import extrapolate
from emulator.scaler.report import rows_table
from emulator.traffic.training import ModelShape

HELP = "extrapolate a training_step scenario's step time to 24K/100K GPUs, each optimisation on/off"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SCENARIO, --gpus, --seed, --json."""
    parser.add_argument("scenario", type=Path, help="a scenario with workload kind training_step")
    parser.add_argument(
        "--gpus",
        default=f"{LLAMA3_GPUS},{EXTENSION_100K_GPUS}",
        help="comma-separated GPU counts, e.g. 24K,100K (default: the Llama 3 24K cluster and 33 zones)",
    )
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a key")
    parser.add_argument("--seed", type=int, default=0, help="seed of random placement and hashing")
    parser.add_argument("--json", type=Path, help="write the figures to this JSON file")
    parser.add_argument(
        "--calibrate",
        type=Path,
        nargs="+",
        metavar="RESULT",
        help="fit the transfer efficiency on training_step result.json files (or folders)",
    )


def check_writable_file(path: Path) -> None:
    """Refuse, before any work, a file path whose folder is missing or read-only, or that
    names a folder."""
    folder = path.parent
    if path.is_dir():
        raise UserError(f"--json {path}: a folder is there, not a file")
    if not folder.is_dir():
        raise UserError(f"--json {path}: no folder {folder} to write it in")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"--json {path}: cannot write there (permission denied)")


def run(args: argparse.Namespace) -> int:
    """Print one table per GPU count: axis and step seconds per configuration."""
    from emulator.scenario.load import load_scenario, parse_set

    sc = load_scenario(args.scenario, parse_set(args.set))
    job = sc.workload.job
    if job is None:
        raise UserError(f"{args.scenario}: workload.kind must be training_step (with a job)")
    sizes = [parse_gpus(s) for s in str(args.gpus).split(",") if s.strip()]
    if not sizes:
        raise UserError(f"--gpus {args.gpus!r}: want comma-separated GPU counts (e.g. 24K,100K)")
    fabrics = [meta_fabric(gpus) for gpus in sizes]  # refuses sizes it cannot build
    if args.seed < 0:
        raise UserError("--seed must be >= 0")
    if args.json:
        check_writable_file(args.json)
    con = Console()
    model = ModelShape(**job.model.model_dump())
    doc: dict[str, object] = {"job": job.model_dump(mode="json"), "results": {}}
    params = ModelParams()
    if args.calibrate:
        from emulator.scaler.calibration.training_fit import fit_results

        fit = fit_results(args.calibrate)
        params = fit.params(params)
        errs = sorted(abs(r["rel_err"]) for r in fit.residuals())
        con.print(
            f"calibrated on {len(fit.points)} emulated stages: efficiency {fit.efficiency:.3f} "
            f"(emulated alpha {fit.alpha_s * 1e3:.3g} ms, not carried over); "
            f"median |error| {errs[len(errs) // 2]:.0%}, max {errs[-1]:.0%}"
        )
        doc["calibration"] = {"efficiency": fit.efficiency, "residuals": fit.residuals()}
    for gpus, fabric in zip(sizes, fabrics, strict=True):
        con.print(fabric.describe())
        rows = extrapolate(fabric, job.tp, job.cp, job.pp, model, params, args.seed)
        doc["results"][str(gpus)] = rows  # type: ignore[index]
        dp = gpus // (job.tp * job.cp * job.pp)
        title = f"step seconds, TP{job.tp} CP{job.cp} PP{job.pp} DP{dp} on {gpus:,} GPUs"
        con.print(rows_table(title, rows))
    if args.json:
        try:
            args.json.write_text(json.dumps(doc, indent=1))
        except OSError as exc:
            raise UserError(f"--json {args.json}: cannot write: {exc.strerror}") from None
        con.print(f"written: {args.json}")
    return 0
