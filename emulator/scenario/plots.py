"""Report plots: each function draws one figure from run views and returns PNG bytes.

A plot whose data the run lacks comes back without a picture and with a note saying why,
so a report of a failed or partial run still renders. Figures use matplotlib's Agg canvas
directly (no pyplot global state, no display needed), imported through
:mod:`emulator.scenario.mpl` (no docstring building).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.scenario.mpl import Figure, FigureCanvasAgg
from emulator.scenario.runview import PauseSeries, RunView

DPI = 90
MAX_BINS = 120  # heatmap columns; finer series are merged into wider bins
MAX_LINK_ROWS = 64
MAX_QUEUES = 8
MAX_PAUSE_ROWS = 24
MAX_SUMMARY_METRICS = 20

Labelled = Sequence[tuple[str, RunView]]


@dataclass(frozen=True)
class Plot:
    """One figure of a report: PNG bytes, or a note saying why there is none."""

    key: str  # file stem
    title: str
    png: bytes | None = None
    note: str = ""


def _png(fig: Figure) -> bytes:
    """The figure as PNG bytes, laid out and drawn once.

    ``savefig`` of a constrained-layout figure draws it twice (a layout pass on a throwaway
    renderer, then the real one, laying every text out again); here the layout runs on the
    canvas's own renderer at the final DPI, and ``print_png`` draws on that same renderer
    with its text layouts cached: the same pixels (tests/scenario/test_report_speed.py),
    ~15 % less CPU for the flagship's five plots."""
    canvas = FigureCanvasAgg(fig)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        fig.set_layout_engine("none")
    buf = io.BytesIO()
    canvas.print_png(buf, metadata={"Software": None})
    return buf.getvalue()


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def _merge(values: Sequence[int], factor: int) -> list[int]:
    return [sum(values[i : i + factor]) for i in range(0, len(values), factor)]


def uplink_heatmap(run: RunView, key: str = "uplink_heatmap") -> Plot:
    """Leaf-uplink utilisation, links x time (fraction of line rate, or bytes per bin)."""
    title = "Leaf uplink utilisation"
    links = [s for s in run.uplinks if s.tx_bytes]
    if not links:
        return Plot(key, title, note="no leaf-uplink utilisation series in this run")
    note = ""
    if len(links) > MAX_LINK_ROWS:
        note = f"showing {MAX_LINK_ROWS} of {len(links)} uplinks"
        links = links[:MAX_LINK_ROWS]
    nbins = max(len(s.tx_bytes) for s in links)
    factor = max(1, math.ceil(nbins / MAX_BINS))
    bin_ns = run.interval_ns * factor
    by_rate = bin_ns > 0 and all(s.rate_bps > 0 for s in links)
    rows = []
    for s in links:
        merged = _merge(list(s.tx_bytes) + [0] * (nbins - len(s.tx_bytes)), factor)
        rows.append([b * 8 / (bin_ns * s.rate_bps / 1e9) for b in merged] if by_rate else merged)
    fig = _figure(9, 1.2 + 0.28 * len(rows))
    ax = fig.add_subplot()
    span = len(rows[0]) * bin_ns / 1e6 if bin_ns > 0 else len(rows[0])
    img = ax.imshow(
        rows,
        aspect="auto",
        interpolation="nearest",
        cmap="viridis",
        extent=(0, span, len(rows) - 0.5, -0.5),
        vmin=0,
        vmax=1 if by_rate else None,
    )
    ax.set_yticks(range(len(rows)), [s.label for s in links], fontsize=7)
    ax.set_xlabel("time (ms)" if bin_ns > 0 else "time bin")
    fig.colorbar(img, ax=ax, label="utilisation" if by_rate else "bytes per bin")
    return Plot(key, title, _png(fig), note)


def fct_cdf(runs: Labelled, key: str = "fct_cdf") -> Plot:
    """CDF of flow completion times (finished flows), one line per variant."""
    title = "Flow completion time CDF"
    curves = []
    for label, run in runs:
        fct = sorted(f.duration_ns / 1e6 for f in run.flows if f.finished)
        if fct:
            curves.append((label, fct))
    if not curves:
        return Plot(key, title, note="no finished flows in this run")
    partial = [label or "the run" for label, run in runs if not run.complete]
    note = f"INCOMPLETE ({', '.join(partial)}): flows still in progress count up to their last byte"
    fig = _figure(6, 3.6)
    ax = fig.add_subplot()
    for label, fct in curves:
        n = len(fct)
        ax.step(fct, [(i + 1) / n for i in range(n)], where="post", label=label or None)
    ax.set_xlabel("flow completion time (ms)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    if len(curves) > 1 or curves[0][0]:
        ax.legend(fontsize=8)
    return Plot(key, title, _png(fig), note if partial else "")


def queue_timelines(run: RunView, key: str = "queue_depth") -> Plot:
    """Depth over time of the deepest egress queues (per port and priority)."""
    title = "Queue depth"
    series = [q for q in run.queues if q.t_ns and q.depth]
    if not series:
        return Plot(key, title, note="no queue depth series in this run")
    busy = sorted((q for q in series if max(q.depth) > 0), key=lambda q: -max(q.depth))
    if not busy:
        return Plot(key, title, note=f"all {len(series)} recorded queues stayed empty")
    note = f"deepest {MAX_QUEUES} of {len(busy)} non-empty queues" if len(busy) > MAX_QUEUES else ""
    fig = _figure(8, 3.6)
    ax = fig.add_subplot()
    for q in busy[:MAX_QUEUES]:
        ax.step([t / 1e6 for t in q.t_ns], q.depth, where="post", label=q.label)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("depth (packets)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    return Plot(key, title, _png(fig), note)


def pause_timelines(run: RunView, key: str = "pause") -> Plot:
    """When each port/priority was paused by PFC (one row per paused port/priority)."""
    title = "PFC pause timeline"
    rows = [p for p in run.pauses if p.intervals]
    if not rows:
        return Plot(key, title, note="no port was paused in this run")

    def paused(p: PauseSeries) -> int:
        return sum(max(0, b - a) for a, b in p.intervals)

    rows.sort(key=lambda p: (-paused(p), p.label))
    note = f"{MAX_PAUSE_ROWS} most-paused of {len(rows)}" if len(rows) > MAX_PAUSE_ROWS else ""
    rows = rows[:MAX_PAUSE_ROWS]
    fig = _figure(8, 1.2 + 0.3 * len(rows))
    ax = fig.add_subplot()
    for i, p in enumerate(rows):
        bars = [(a / 1e6, max(b - a, 0) / 1e6) for a, b in p.intervals]
        ax.broken_barh(bars, (i - 0.4, 0.8), color="tab:red")
    ax.set_yticks(range(len(rows)), [p.label for p in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("time (ms)")
    ax.grid(axis="x", alpha=0.3)
    return Plot(key, title, _png(fig), note)


def collective_bars(runs: Labelled, key: str = "collectives") -> Plot:
    """Completion time and busbw of each collective, a bar per variant."""
    title = "Collective completion"
    bars = []
    for label, run in runs:
        for c in run.collectives:
            if c.finished and c.time_ns > 0:
                name = label if len(run.collectives) == 1 else f"{label} {c.name}".strip()
                bars.append((name or c.name, c.time_ns / 1e6, c.busbw_Bps * 8 / 1e9))
    if not bars:
        return Plot(key, title, note="no finished collective in this run")
    fig = _figure(max(6, 1.2 * len(bars) + 2), 3.4)
    left, right = fig.subplots(1, 2)
    names = [b[0] for b in bars]
    left.bar(names, [b[1] for b in bars], color="tab:blue")
    left.set_ylabel("time per iteration (ms)")
    right.bar(names, [b[2] for b in bars], color="tab:green")
    right.set_ylabel("busbw (Gbit/s)")
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    return Plot(key, title, _png(fig))


def summary_bars(metrics: Sequence[tuple[str, Mapping[str, float]]], key: str = "summary") -> Plot:
    """One small bar chart per summary metric, a bar per variant (comparison reports)."""
    title = "Summary metrics by variant"
    names = sorted({m for _, values in metrics for m in values})
    if not names:
        return Plot(key, title, note="no summary metrics to compare")
    note = ""
    if len(names) > MAX_SUMMARY_METRICS:
        note = f"first {MAX_SUMMARY_METRICS} of {len(names)} metrics"
        names = names[:MAX_SUMMARY_METRICS]
    cols = min(4, len(names))
    nrows = math.ceil(len(names) / cols)
    fig = _figure(3.2 * cols, 2.4 * nrows)
    axes = fig.subplots(nrows, cols, squeeze=False)
    labels = [label for label, _ in metrics]
    colours = [f"C{i % 10}" for i in range(len(labels))]
    for i, axis in enumerate(axes.flat):
        if i >= len(names):
            axis.set_visible(False)
            continue
        values = [vals.get(names[i], math.nan) for _, vals in metrics]
        heights = [0 if math.isnan(v) else v for v in values]
        axis.bar(range(len(labels)), heights, color=colours)
        if not any(heights):
            axis.set_ylim(0, 1)
        axis.set_xticks(range(len(labels)), labels, fontsize=7, rotation=30)
        axis.set_title(names[i], fontsize=9)
        axis.tick_params(axis="y", labelsize=7)
    return Plot(key, title, _png(fig), note)
