"""Runs over seeds: expand variants x seeds into run requests, run one request, collect.

::

    --vary ... --seeds 1-30 ─expand()─► [RunRequest(variant, seed), ...]   (pure)
                                  execute(request) ─► RunOutcome          (one run, one call)
    [(request, outcome), ...] ─collect()─► runs.json: every run's seed, metrics, folder

``expand`` and ``execute`` are separate so an executor (a process pool, Ray) can map
``execute`` over the requests; each run writes its own folder, so runs never share state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.scenario.distributions import (
    METHOD,
    PROPORTION_METHOD,
    Summary,
    proportion_ci,
    summarize,
)
from emulator.scenario.load import parse_set
from emulator.scenario.runner import RunOutcome, run_scenario

MAX_SEEDS = 10_000


def parse_seeds(text: str) -> list[int]:
    """``N`` (seeds 1..N), ``A-B`` (A..B inclusive) or ``A,B,C``; UserError otherwise."""
    text = text.strip()
    try:
        if "," in text:
            seeds = [int(s) for s in text.split(",") if s.strip()]
        elif "-" in text.lstrip("-"):
            lo, _, hi = text.partition("-")
            seeds = list(range(int(lo), int(hi) + 1))
        else:
            seeds = list(range(1, int(text) + 1))
    except ValueError:
        raise UserError(f"--seeds expects N, A-B or A,B,C; got {text!r}") from None
    if not seeds or len(seeds) > MAX_SEEDS or len(set(seeds)) != len(seeds):
        raise UserError(f"--seeds {text!r}: give 1..{MAX_SEEDS} distinct seeds")
    return seeds


@dataclass(frozen=True)
class RunRequest:
    """One run of a scenario: a variant's overrides at one seed, into its own folder."""

    label: str  # the variant ("lb=ecmp,qps=1"; the scenario name without --vary)
    overrides: tuple[tuple[str, Any], ...]  # dotted scenario keys -> values, seed included
    seed: int | None  # None: the scenario's own seed
    subdir: str  # folder under the comparison's results directory

    @property
    def override_map(self) -> dict[str, Any]:
        """The overrides as ``run_scenario`` takes them."""
        return dict(self.overrides)


def _folder(label: str) -> str:
    return label.replace("=", "-").replace(",", "_") or "run"


def expand(
    combos: Sequence[Mapping[str, str]],
    base: Mapping[str, Any],
    seeds: Sequence[int] | None,
    name: str = "run",
) -> list[RunRequest]:
    """Every (variant, seed) run, variants outermost; ``seeds`` None: one run per variant."""
    out = []
    for combo in combos or [{}]:
        label = ",".join(f"{k}={v}" for k, v in combo.items()) or name
        overrides = dict(base) | parse_set([f"{k}={v}" for k, v in combo.items()])
        folder = _folder(label) if combo else ""
        runs: list[int | None] = list(seeds) if seeds else [None]
        for seed in runs:
            over = overrides if seed is None else overrides | {"seed": seed}
            sub = folder if seed is None else str(Path(folder) / f"seed-{seed}")
            out.append(RunRequest(label, tuple(over.items()), seed, sub or "."))
    return out


def execute(
    request: RunRequest,
    scenario: Path,
    outdir: Path,
    *,
    runtime: str | None = None,
    target: str | None = None,
    progress: Callable[[str], None] | None = None,
    report: bool = True,
    wall_limit_s: float | None = None,
) -> RunOutcome:
    """Run one request into ``outdir/request.subdir`` (the unit an executor distributes)."""
    return run_scenario(
        scenario,
        request.override_map,
        runtime=runtime,
        target=target,
        out=outdir / request.subdir,
        progress=progress,
        report=report,
        wall_limit_s=wall_limit_s,
    )


def by_variant(
    done: Sequence[tuple[RunRequest, RunOutcome]],
) -> dict[str, list[tuple[RunRequest, RunOutcome]]]:
    """The finished runs grouped by variant label, in request order."""
    out: dict[str, list[tuple[RunRequest, RunOutcome]]] = {}
    for req, outcome in done:
        out.setdefault(req.label, []).append((req, outcome))
    return out


def variant_summaries(runs: Sequence[tuple[RunRequest, RunOutcome]]) -> dict[str, Summary]:
    """Median [95% CI] per metric over a variant's runs, plus ``p_no_collision``."""
    out = summarize(o.metrics for _, o in runs)
    flags = [o.metrics["collided"] for _, o in runs if "collided" in o.metrics]
    if flags:
        out["p_no_collision"] = proportion_ci(sum(1 for f in flags if f == 0), len(flags))
    return out


def collect(done: Sequence[tuple[RunRequest, RunOutcome]], outdir: Path) -> Path:
    """Write ``outdir/runs.json``: every run (variant, seed, metrics, passed, folder) and the
    per-variant summaries with the interval methods. Returns its path."""
    groups = by_variant(done)
    doc = {
        "method": {"median": METHOD, "proportion": PROPORTION_METHOD},
        "runs": [
            {
                "variant": req.label,
                "seed": o.result.meta.seed,
                "passed": o.passed,
                "result": str(Path(req.subdir) / "result.json"),
                "metrics": o.metrics,
            }
            for req, o in done
        ],
        "summary": {
            label: {
                name: {"n": s.n, "median": s.median, "low": s.low, "high": s.high}
                for name, s in variant_summaries(runs).items()
            }
            for label, runs in groups.items()
        },
    }
    path = outdir / "runs.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=True))
    return path
