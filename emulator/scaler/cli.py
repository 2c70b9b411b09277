"""``fabemu scale``: predict collective performance at 24K+ GPUs for RoCE and InfiniBand.

Prints rich tables (one row per fabric/mode) and writes ``report.json`` plus PNG plots
(metrics vs GPU count for both fabrics and every mode) to ``--out``.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.scaler import report, sweep
from emulator.scaler.calibration.cli import calibrate
from emulator.scaler.model.collectives import COLLECTIVES, PLACEMENTS
from emulator.scaler.model.fabric import (
    EXTENSION_100K_GPUS,
    FABRIC_KINDS,
    ClosFabric,
    meta_fabric,
)
from emulator.scaler.model.layout import StepLayout, check_layout, step_comm_time
from emulator.scaler.model.reliability import LLAMA3_GPUS, check_times, reliability_rows
from emulator.scaler.model.routing import MODES, modes_for
from emulator.scaler.model.timing import ModelParams
from emulator.scaler.sweep import Scenario, sweep_sizes

MAX_QPS = 256  # QPs or channels per connection (E-ECMP used up to 16)
HELP = "analytic scaler: predict load balance and collective time at 24K-100K GPUs"

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_MULT = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_size(text: str) -> float:
    """Bytes from '1GiB', '64MiB', '512KB', '1e6'-free plain integers like '1048576'."""
    m = _SIZE.match(text)
    if not m:
        raise UserError(
            f"--message-size {text!r}: expected a number with an optional unit (e.g. 1GiB, 64MB)"
        )
    number, unit = float(m.group(1)), (m.group(2) or "").lower()
    if unit.endswith("b") and len(unit) > 1:
        unit = unit[:-1]
    mult = 2 ** (10 * "kmgt".index(unit[0]) + 10) if unit.endswith("i") else _MULT[unit]
    value = number * mult
    if value <= 0:
        raise UserError(f"--message-size {text!r}: must be > 0")
    return value


def parse_gpus(text: str) -> int:
    """A GPU count: '24576', '24K' (x1024) or '100000'."""
    t = text.strip().lower()
    try:
        value = int(t[:-1]) * 1024 if t.endswith("k") else int(t)
    except ValueError:
        raise UserError(f"--gpus {text!r}: expected an integer (e.g. 24576 or 24K)") from None
    if value < 8:
        raise UserError(f"--gpus {text!r}: need at least one 8-GPU host")
    return value


def parse_modes(text: str) -> tuple[str, ...]:
    """Comma-separated mode names, checked against the known ones."""
    names = tuple(m.strip().lower().replace("-", "_") for m in text.split(",") if m.strip())
    bad = [m for m in names if m not in MODES]
    if bad or not names:
        raise UserError(
            f"--mode {text!r}: unknown mode(s) {', '.join(bad) or '(none)'}; choose from {', '.join(MODES)}"
        )
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``fabemu scale``."""
    parser.add_argument(
        "--gpus", default="24576", help="GPU count (24576 = Llama 3 cluster; 24K ok)"
    )
    parser.add_argument("--fabric", default="both", choices=(*FABRIC_KINDS, "both"))
    parser.add_argument("--mode", default=",".join(MODES), help=f"comma list of {', '.join(MODES)}")
    parser.add_argument("--qps", type=int, default=16, help="QPs per connection for E-ECMP")
    parser.add_argument(
        "--channels", type=int, default=1, help="NCCL channels (QPs) per rail connection"
    )
    parser.add_argument("--collective", default="ring", choices=COLLECTIVES)
    parser.add_argument("--message-size", default="1GiB", help="bytes per GPU (e.g. 1GiB, 64MiB)")
    parser.add_argument("--placement", default="packed", choices=PLACEMENTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--sweep", type=int, default=6, help="GPU counts in the vs-size plots (1 = none)"
    )
    parser.add_argument(
        "--calibrate",
        type=Path,
        nargs="*",
        default=[],
        metavar="JSON",
        help="fit on emulator RunResult files/dirs (or calibration-point JSON)",
    )
    parser.add_argument(
        "--holdout",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="RANKS",
        help="with --calibrate: fit on jobs of <= RANKS ranks (default: all but the largest), "
        "predict the rest",
    )
    parser.add_argument("--validate", action="store_true", help="reproduce published figures")
    parser.add_argument(
        "--maxmin", action="store_true", help="also max-min fair rates per connection (slower)"
    )
    parser.add_argument(
        "--step", action="store_true", help="training-step communication (TP8/PP16/DP)"
    )
    parser.add_argument(
        "--reliability",
        action="store_true",
        help="interruptions/day and goodput at 16K/24K/100K GPUs (Llama 3 failure rates)",
    )
    parser.add_argument("--checkpoint-s", type=float, default=30.0, help="checkpoint write time")
    parser.add_argument("--restart-s", type=float, default=300.0, help="restart after a failure")
    parser.add_argument("--out", type=Path, default=Path("results/scale"), help="report directory")


def run(args: argparse.Namespace) -> int:
    """Entry point of ``fabemu scale``."""
    if not (1 <= args.qps <= MAX_QPS and 1 <= args.channels <= MAX_QPS):
        raise UserError(f"--qps and --channels must be 1..{MAX_QPS}")
    if args.sweep < 1:
        raise UserError("--sweep must be >= 1")
    if args.seed < 0:
        raise UserError("--seed must be >= 0")
    gpus = parse_gpus(args.gpus)
    fabrics = FABRIC_KINDS if args.fabric == "both" else (args.fabric,)
    sc = Scenario(
        gpus=gpus,
        fabrics=fabrics,
        modes=parse_modes(args.mode),
        qps=args.qps,
        channels=args.channels,
        collective=args.collective,
        message_bytes=parse_size(args.message_size),
        placement=args.placement,
        seed=args.seed,
        maxmin=args.maxmin,
    )
    built = _checked(args, sc)
    con = report.console()
    out = report.ensure_dir(args.out)
    params = ModelParams()
    doc: dict[str, object] = {"scenario": asdict(sc)}
    if args.calibrate:
        params, doc["calibration"] = calibrate(args.calibrate, args.holdout, con)
    doc["params"] = asdict(params)
    for fabric in built.values():
        con.print(fabric.describe())
    records = run_sweep_or_one(sc, params, [gpus])
    title = f"{sc.collective} {args.message_size} per GPU, {sc.placement} placement, {gpus:,} GPUs"
    con.print(report.records_table(records, title))
    doc["results"] = records
    if args.sweep > 1:
        sizes = sweep_sizes(gpus, args.sweep)
        swept = run_sweep_or_one(sc, params, sizes)
        doc["sweep"] = swept
        report.plot_sweep(swept, out / "scale_vs_gpus.png", title)
    report.plot_histograms(
        records, out / "uplink_flows.png", f"RTSW-uplink flows per link, {gpus:,} GPUs"
    )
    if args.step:
        steps: dict[str, Any] = {}
        for kind in fabrics:
            fabric = built[kind]
            for mode in (m for m in sc.modes if m in modes_for(kind)):
                steps[f"{kind}/{mode}"] = step_comm_time(
                    fabric, StepLayout(), mode, sc.placement, sc.qps, sc.seed, params
                )
        doc["training_step"] = steps
        con.print(
            report.rows_table(
                "Training-step communication (s): TP8 in host, PP16 across racks, DP across zones",
                steps,
            )
        )
    if args.reliability:
        rows = reliability_rows(
            [LLAMA3_GPUS, gpus, EXTENSION_100K_GPUS], args.checkpoint_s, args.restart_s
        )
        doc["reliability"] = rows
        con.print(report.rows_table("Job interruptions and goodput (Llama 3 failure rates)", rows))
    if args.validate:
        from emulator.scaler.model.validate import all_checks

        checks = [c.as_dict() for c in all_checks()]
        doc["validation"] = checks
        con.print(report.checks_table(checks))
    report.write_json(out / "report.json", doc)
    con.print(
        f"report: {out / 'report.json'}"
        + (f", {out / 'scale_vs_gpus.png'}" if args.sweep > 1 else "")
    )
    return 0


def _checked(args: argparse.Namespace, sc: Scenario) -> dict[str, ClosFabric]:
    """Every option checked before the first line is printed or file written; the fabric
    of each kind (building it refuses sizes it cannot build)."""
    built = {kind: meta_fabric(sc.gpus, kind) for kind in sc.fabrics}
    sweep.check_modes(sc)
    if args.holdout is not None and not args.calibrate:
        raise UserError("--holdout needs --calibrate RESULT.json ...")
    if args.reliability:
        check_times(args.checkpoint_s, args.restart_s)
    if args.step:
        for fabric in built.values():
            check_layout(fabric, StepLayout())
    return built


def run_sweep_or_one(
    sc: Scenario, params: ModelParams, sizes: list[int]
) -> list[dict[str, object]]:
    """Records for the given sizes (sizes not divisible into whole hosts are skipped)."""
    return sweep.run(sc, params, [s for s in sizes if s % 8 == 0])
