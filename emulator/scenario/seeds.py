"""Runs over seeds: expand variants x seeds into run requests, run one request, collect.

::

    --vary ... --seeds 1-30 ─expand()─► [RunRequest(variant, seed), ...]   (pure)
                      emulator.sweep executor ─► RunOutcome per request (serial, pool, Ray)
    [(request, outcome), ...] ─collect()─► runs.json: every run's seed, metrics, folder

Each run writes its own folder, so runs never share state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
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
from emulator.scenario.paired import METRIC, paired_slowdowns
from emulator.scenario.runner import RunOutcome
from emulator.sweep.request import RunRequest

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


def _folder(label: str) -> str:
    return label.replace("=", "-").replace(",", "_") or "run"


def expand(
    variants: Sequence[tuple[str, Mapping[str, Any]]],
    base: Mapping[str, Any],
    seeds: Sequence[int] | None,
    name: str,
    template: RunRequest,
) -> list[RunRequest]:
    """Every (variant, seed) run, variants outermost; ``seeds`` None: one run per variant.

    ``variants`` are (label, overrides) pairs (none: the scenario as it is, labelled
    ``name``); ``template`` gives the scenario, the results directory (``out``, each run
    gets a folder below it) and the options every run shares.
    """
    out = []
    for label, overrides in variants or [("", {})]:
        folder = Path(template.out) / (_folder(label) if label else "")
        runs: list[int | None] = list(seeds) if seeds else [None]
        for seed in runs:
            over = dict(base) | dict(overrides) | ({} if seed is None else {"seed": seed})
            sub = folder if seed is None else folder / f"seed-{seed}"
            out.append(
                replace(template, label=label or name, out=str(sub), overrides=over, seed=seed)
            )
    return out


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
    paired = paired_slowdowns(groups)
    doc = {
        "method": {"median": METHOD, "proportion": PROPORTION_METHOD},
        "runs": [
            {
                "variant": req.label,
                "seed": o.result.meta.seed,
                "passed": o.passed,
                "result": str(Path(req.out).relative_to(outdir) / "result.json"),
                "metrics": o.metrics,
            }
            for req, o in done
        ],
        "summary": {
            label: {
                name: {"n": s.n, "median": s.median, "low": s.low, "high": s.high}
                for name, s in (
                    variant_summaries(runs) | ({METRIC: paired[label]} if label in paired else {})
                ).items()
            }
            for label, runs in groups.items()
        },
    }
    path = outdir / "runs.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=True))
    return path
