"""Write the HTML report of one run, or a side-by-side comparison of labelled variants.

::

    [(label, RunResult), ...] ─as_view─► RunView ─┬─ summary_metrics ─► metrics table
                                                  ├─ plots.* ─► PNG files + base64 <img>
    verdicts[label] ─► expectations table         └─ run facts (runtime, target, why, seed,
                                                     complete / INCOMPLETE + reason)
                         ─► templates/report.html.j2 (autoescaped) ─► outdir/report.html

The HTML is self-contained (plots are embedded); the same PNGs are also written next to it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from emulator.errors import UserError
from emulator.faults.plot import fault_timeline
from emulator.scenario import plots
from emulator.scenario.expect import Verdict
from emulator.scenario.metrics import summary_metrics
from emulator.scenario.runview import RunView, as_view

PER_RUN_PLOTS = (plots.uplink_heatmap, plots.queue_timelines, plots.pause_timelines)


@dataclass(frozen=True)
class Figure:
    """A plot as the template shows it: embedded PNG (or a note) and its file name."""

    title: str
    data_uri: str
    file: str
    note: str


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("emulator.scenario", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _slug(label: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.]+", "-", label).strip("-.") or "run"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _save(outdir: Path, plot: plots.Plot, stem: str) -> Figure:
    if plot.png is None:
        return Figure(plot.title, "", "", plot.note)
    name = f"{stem}.png"
    (outdir / name).write_bytes(plot.png)
    uri = "data:image/png;base64," + base64.b64encode(plot.png).decode("ascii")
    return Figure(plot.title, uri, name, plot.note)


def _fmt(value: float | None) -> str:
    """4 significant digits; whole numbers (counters) in full."""
    if value is None:
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def _run_facts(label: str, run: RunView) -> dict[str, Any]:
    return {
        "label": label,
        "scenario": run.scenario or "(unnamed)",
        "runtime": run.runtime or "?",
        "target": run.target or "?",
        "why": run.why,
        "seed": "?" if run.seed is None else str(run.seed),
        "complete": run.complete,
        "incomplete_reason": run.incomplete_reason or ("" if run.complete else "not given"),
        "duration_ms": _fmt(run.duration_ns / 1e6) if run.duration_ns else "?",
        "flows": f"{len(run.flows)} recorded",
        "collectives": f"{sum(c.finished for c in run.collectives)} finished",
        "extra": dict(run.extra),
    }


def _expectation_rows(
    labels: Sequence[str], verdicts: Mapping[str, list[Verdict]]
) -> list[dict[str, Any]]:
    """One row per metric with an expectation; a cell per variant (None: no expectation)."""
    order: list[tuple[str, str]] = []
    cells: dict[tuple[str, str], dict[str, Verdict]] = {}
    for label in labels:
        for v in verdicts.get(label, []):
            row = (v.metric, v.bound)
            if row not in cells:
                order.append(row)
                cells[row] = {}
            cells[row][label] = v
    return [
        {
            "metric": metric,
            "bound": bound,
            "cells": [_cell(cells[(metric, bound)].get(label)) for label in labels],
        }
        for metric, bound in order
    ]


def _cell(verdict: Verdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"value": _fmt(verdict.value), "met": verdict.met, "text": verdict.describe()}


def _metric_rows(labels: Sequence[str], metrics: Mapping[str, Mapping[str, float]]) -> list[Any]:
    names = sorted({m for values in metrics.values() for m in values})
    return [
        {"metric": n, "cells": [_fmt(metrics[label].get(n)) for label in labels]} for n in names
    ]


def write_report(
    outdir: Path,
    runs: Sequence[tuple[str, Any]],
    verdicts: Mapping[str, list[Verdict]] | None = None,
    title: str = "",
) -> Path:
    """Write ``outdir/report.html`` (+ its PNGs) for one run or several variants.

    ``runs`` pairs a variant label (may be empty for a single run) with its RunResult;
    ``verdicts`` maps the same labels to the expectation outcomes. Returns the HTML path.
    """
    if not runs:
        raise UserError("write_report: no runs to report")
    labels = [label for label, _ in runs]
    if len(set(labels)) != len(labels):
        raise UserError(f"write_report: variant labels must be distinct, got {labels}")
    verdicts = verdicts or {}
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    views = [(label, as_view(result)) for label, result in runs]
    metrics = {label: summary_metrics(view) for label, view in views}
    compare = len(views) > 1

    taken: set[str] = set()
    slugs = {label: _slug(label, taken) if compare else "" for label in labels}
    per_run = []
    for make in PER_RUN_PLOTS:
        figs = []
        for label, view in views:
            plot = make(view)
            stem = f"{plot.key}-{slugs[label]}" if compare else plot.key
            figs.append(_save(outdir, plot, stem))
        per_run.append({"title": figs[0].title, "figures": figs})
    if any(view.fault_marks for _, view in views):
        figs = [
            _save(outdir, p, f"{p.key}-{slugs[label]}" if compare else p.key)
            for label, p in ((label, fault_timeline(view)) for label, view in views)
        ]
        per_run.append({"title": figs[0].title, "figures": figs})
    overlays = [plots.fct_cdf(views), plots.collective_bars(views)]
    if compare:
        overlays.append(plots.summary_bars([(label, metrics[label]) for label in labels]))
    overlay_figs = [_save(outdir, p, p.key) for p in overlays]

    all_verdicts = [v for label in labels for v in verdicts.get(label, [])]
    scenarios = sorted({v.scenario for _, v in views if v.scenario})
    html = (
        _env()
        .get_template("report.html.j2")
        .render(
            title=title or " / ".join(scenarios) or "fabemu run",
            compare=compare,
            labels=labels,
            runs=[_run_facts(label, view) for label, view in views],
            extra_keys=sorted({k for _, view in views for k in view.extra}),
            incomplete=[label or "run" for label, view in views if not view.complete],
            expectations=_expectation_rows(labels, verdicts),
            unmet=sum(not v.met for v in all_verdicts),
            n_verdicts=len(all_verdicts),
            metrics=_metric_rows(labels, metrics),
            per_run=per_run,
            overlays=overlay_figs,
        )
    )
    path = outdir / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def write_run_report(outdir: Path, name: str, result: Any, verdicts: list[Verdict]) -> Path:
    """One run's report, labelled and titled by its scenario's name: what ``fabemu run``
    draws, and ``fabemu report`` draws again from the saved result (the same bytes)."""
    return write_report(outdir, [(name, result)], {name: verdicts}, title=name)
