"""A sweep over seeds read back from its folder, to draw its distributions report again.

``fabemu compare --seeds`` and ``fabemu run --seeds`` write ``runs.json`` at the sweep's
root: every finished run's variant, seed and metrics, and each variant's summaries. That is
all the report needs; the title comes from the scenario file a run's ``result.json`` names::

    SWEEP/runs.json ─runs─► values (variant -> metric -> one value per run)
                    ─summary─► Summary per variant and metric
    SWEEP/VARIANT/seed-N/result.json ─meta.scenario_file─► "<stem> over seeds"
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from emulator.errors import UserError
from emulator.scenario.dist_report import ordered_metrics
from emulator.scenario.distributions import Summary
from emulator.scenario.load import format_validation_error

RUNS = "runs.json"


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")
    variant: str
    seed: int
    passed: bool
    result: str
    metrics: dict[str, float]


class _Summary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int
    median: float
    low: float
    high: float


class _RunsDoc(BaseModel):
    model_config = ConfigDict(extra="ignore")
    runs: list[_Entry]
    summary: dict[str, dict[str, _Summary]]


@dataclass(frozen=True)
class SavedSweep:
    """A sweep's folder, read back: what its distributions report is drawn from."""

    outdir: Path
    title: str
    values: dict[str, dict[str, list[float]]]
    summaries: dict[str, dict[str, Summary]]
    runs: int  # finished runs (runs.json lists no other)
    failed: int  # of which, runs whose expectations were not met


def is_sweep(outdir: Path) -> bool:
    """Whether ``outdir`` is a sweep's root (``runs.json``, no ``result.json`` of its own)."""
    return (outdir / RUNS).is_file() and not (outdir / "result.json").exists()


def load_sweep(outdir: Path) -> SavedSweep:
    """Read ``outdir/runs.json``; a :class:`UserError` naming the file if it cannot."""
    path = Path(outdir) / RUNS
    try:
        doc = _RunsDoc.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        detail = format_validation_error(path, exc)
        raise UserError(f"{path}: not a fabemu runs.json\n{detail}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if not doc.runs:
        raise UserError(f"{path}: no finished run to report")
    labels = list(dict.fromkeys(r.variant for r in doc.runs))  # request order, as the sweep
    missing = [lb for lb in labels if lb not in doc.summary]
    if missing:
        raise UserError(f"{path}: summary: no entry for variant(s) {', '.join(missing)}")
    values = {}
    for label in labels:
        runs = [r for r in doc.runs if r.variant == label]
        names = ordered_metrics({m for r in runs for m in r.metrics})
        values[label] = {m: [r.metrics[m] for r in runs if m in r.metrics] for m in names}
    summaries = {
        label: {m: Summary(s.n, s.median, s.low, s.high) for m, s in doc.summary[label].items()}
        for label in labels
    }
    failed = sum(not r.passed for r in doc.runs)
    title = _title(Path(outdir), doc)
    return SavedSweep(Path(outdir), title, values, summaries, len(doc.runs), failed)


def _title(outdir: Path, doc: _RunsDoc) -> str:
    """``<scenario file stem> over seeds``, as the sweep titled it; the folder's name when
    no run's ``result.json`` can be read."""
    for entry in doc.runs:
        try:
            meta = json.loads((outdir / entry.result).read_bytes()).get("meta", {})
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(meta, dict) and isinstance(meta.get("scenario_file"), str):
            return f"{Path(meta['scenario_file']).stem} over seeds"
    return f"{outdir.resolve().name} over seeds"
