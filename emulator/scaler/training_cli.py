"""``fabemu scale-training``: a training_step scenario's job extrapolated to 24K-100K GPUs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from emulator.errors import UserError
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
        help="comma-separated GPU counts (default: the Llama 3 24K cluster and 33 zones)",
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


def run(args: argparse.Namespace) -> int:
    """Print one table per GPU count: axis and step seconds per configuration."""
    from emulator.scenario.load import load_scenario, parse_set

    sc = load_scenario(args.scenario, parse_set(args.set))
    job = sc.workload.job
    if job is None:
        raise UserError(f"{args.scenario}: workload.kind must be training_step (with a job)")
    try:
        sizes = [int(s) for s in str(args.gpus).split(",") if s]
    except ValueError:
        raise UserError(f"--gpus: want comma-separated integers, got {args.gpus!r}") from None
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
    for gpus in sizes:
        fabric = meta_fabric(gpus)
        con.print(fabric.describe())
        rows = extrapolate(fabric, job.tp, job.cp, job.pp, model, params, args.seed)
        doc["results"][str(gpus)] = rows  # type: ignore[index]
        dp = gpus // (job.tp * job.cp * job.pp)
        title = f"step seconds, TP{job.tp} CP{job.cp} PP{job.pp} DP{dp} on {gpus:,} GPUs"
        con.print(rows_table(title, rows))
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1))
        con.print(f"written: {args.json}")
    return 0
