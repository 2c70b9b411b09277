"""The report of runs over seeds: per metric, one box (with every run as a dot) per variant,
and the median [95% CI] table; written as ``report.html`` beside ``runs.json``."""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from emulator.scenario import plots
from emulator.scenario.distributions import METHOD, PROPORTION_METHOD, Summary

#: metrics plotted and tabled first, when present (then the rest, alphabetically)
FIRST = (
    "collective_ms",
    "fct_p99_ms",
    "min_flow_gbps",
    "max_uplink_imbalance",
    "flows_sharing_uplink",
    "idle_uplinks",
    "drops",
)
MAX_PLOTS = 12

Values = Mapping[str, Mapping[str, Sequence[float]]]  # variant -> metric -> one value per run


def ordered_metrics(names: set[str]) -> list[str]:
    """``FIRST`` metrics in their order, then the others sorted."""
    return [m for m in FIRST if m in names] + sorted(names - set(FIRST))


def box_plots(values: Values, key: str = "distributions") -> plots.Plot:
    """One panel per metric: a box per variant and each run as a jittered dot."""
    title = "Distributions over seeds (box: quartiles, whiskers 1.5 IQR; dots: runs)"
    names = ordered_metrics({m for per in values.values() for m in per})
    varying = [m for m in names if len({v for per in values.values() for v in per.get(m, ())}) > 1]
    shown = (varying or names)[:MAX_PLOTS]
    if not shown:
        return plots.Plot(key, title, note="no metrics to plot")
    labels = list(values)
    cols = min(3, len(shown))
    rows = math.ceil(len(shown) / cols)
    fig = plots._figure(4.0 * cols, 2.8 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    for i, axis in enumerate(axes.flat):
        if i >= len(shown):
            axis.set_visible(False)
            continue
        data = [
            [v for v in values[label].get(shown[i], ()) if math.isfinite(v)] for label in labels
        ]
        axis.boxplot(data, showfliers=False)
        for j, vals in enumerate(data, start=1):
            xs = [j + 0.15 * ((k * 0.618) % 1 - 0.5) for k in range(len(vals))]
            axis.plot(xs, vals, ".", color=f"C{j % 10}", alpha=0.6, markersize=4)
        axis.set_xticks(range(1, len(labels) + 1), labels, fontsize=7, rotation=20)
        axis.set_title(shown[i], fontsize=9)
        axis.tick_params(axis="y", labelsize=7)
    return plots.Plot(key, title, plots._png(fig))


def write_distribution_report(
    outdir: Path, title: str, values: Values, summaries: Mapping[str, Mapping[str, Summary]]
) -> Path:
    """Write ``outdir/report.html`` (self-contained) and its PNG; returns the HTML path."""
    import jinja2

    plot = box_plots(values)
    uri = ""
    if plot.png is not None:
        (outdir / f"{plot.key}.png").write_bytes(plot.png)
        uri = "data:image/png;base64," + base64.b64encode(plot.png).decode("ascii")
    labels = list(summaries)
    names = ordered_metrics({m for s in summaries.values() for m in s})
    rows = [
        (name, [summaries[lb][name].describe() if name in summaries[lb] else "-" for lb in labels])
        for name in names
    ]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("emulator.scenario", "templates"), autoescape=True
    )
    html = env.get_template("distribution.html.j2").render(
        title=title,
        labels=labels,
        runs={lb: len(next(iter(values[lb].values()), ())) for lb in labels},
        rows=rows,
        method=METHOD,
        proportion_method=PROPORTION_METHOD,
        plot_uri=uri,
        plot_note=plot.note,
    )
    path = outdir / "report.html"
    path.write_text(html, encoding="utf-8")
    return path
