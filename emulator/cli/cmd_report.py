"""``fabemu report``: draw ``report.html`` again from saved results, without running.

One directory: its report, as ``fabemu run`` draws it (for a run made with ``--no-report``,
one of a ``--seeds`` sweep, or one copied back from a cluster). Several: one report that
sets them side by side, as ``fabemu compare`` does, written to ``--out``. A sweep over
seeds (its root, with ``runs.json``): its distributions report, as the sweep drew it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from emulator.cli.display import console
from emulator.errors import UserError

HELP = (
    "draw report.html from saved results directories (one run, several side by side, "
    "or a sweep over seeds)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RESULTS_DIR... and --out."""
    parser.add_argument(
        "dirs",
        nargs="+",
        type=Path,
        metavar="RESULTS_DIR",
        help="folders fabemu run wrote, or one sweep's root (runs.json)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where report.html goes (default: the folder itself for one run; "
        "results/<time>-report for several)",
    )


def run(args: argparse.Namespace) -> int:
    """Read every folder first (a bad one stops before anything is drawn), then draw."""
    from emulator.scenario.saved import load_saved
    from emulator.scenario.saved_sweep import is_sweep

    if len({d.resolve() for d in args.dirs}) != len(args.dirs):
        raise UserError("a results directory is given twice")
    sweeps = [d for d in args.dirs if d.is_dir() and is_sweep(d)]
    if sweeps:
        if len(args.dirs) > 1:
            raise UserError(
                f"{sweeps[0]}: a sweep over seeds (runs.json) is reported on its own; "
                "give it alone, or give single runs' directories to set them side by side"
            )
        return _sweep_report(sweeps[0], args.out)
    saved = [load_saved(d) for d in args.dirs]
    from emulator.scenario.outdir import new_outdir
    from emulator.scenario.report import write_report, write_run_report

    if len(saved) == 1:
        one = saved[0]
        outdir = new_outdir(args.out, "report") if args.out else one.outdir
        path = write_run_report(outdir, one.name, one.result, one.verdicts)
    else:
        labels = _labels([s.outdir for s in saved])
        outdir = new_outdir(args.out, "report")
        scenarios = " / ".join(sorted({s.name for s in saved}))
        path = write_report(
            outdir,
            [(label, s.result) for label, s in zip(labels, saved, strict=True)],
            {label: s.verdicts for label, s in zip(labels, saved, strict=True)},
            title=f"{scenarios}: " + " vs ".join(labels),
        )
    unmet = sum(not v.met for s in saved for v in s.verdicts)
    console.print(f"report: {path}" + (f" ({unmet} expectation(s) not met)" if unmet else ""))
    return 0


def _sweep_report(folder: Path, out: Path | None) -> int:
    """The distributions report of a sweep over seeds, as the sweep drew it at its end."""
    from emulator.scenario.dist_report import write_distribution_report
    from emulator.scenario.outdir import new_outdir
    from emulator.scenario.saved_sweep import load_sweep

    sweep = load_sweep(folder)
    outdir = new_outdir(out, "report") if out else sweep.outdir
    path = write_distribution_report(outdir, sweep.title, sweep.values, sweep.summaries)
    note = f"; {sweep.failed} with expectations not met" if sweep.failed else ""
    console.print(f"report: {path} ({sweep.runs} runs, {len(sweep.values)} variant(s){note})")
    return 0


def _labels(dirs: list[Path]) -> list[str]:
    """Each folder's name; where names repeat, as many parent folders as tell them apart."""
    parts = [d.resolve().parts for d in dirs]
    depth = 1
    while depth < max(len(p) for p in parts):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels):
            return labels
        depth += 1
    return [str(d) for d in dirs]
