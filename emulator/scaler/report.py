"""Present scaler results: rich tables on the terminal, a JSON report and PNG plots."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from emulator.errors import UserError


def records_table(records: Iterable[dict[str, Any]], title: str) -> Table:
    """One row per (fabric, GPUs, mode): time, bandwidths, bottleneck and RTSW-uplink balance."""
    table = Table(title=title)
    cols = (
        "fabric",
        "GPUs",
        "mode",
        "time",
        "busbw Gb/s",
        "flow Gb/s",
        "B",
        "uplink max/mean",
        "uplink max",
        "expected max (balls-in-bins)",
    )
    for col in cols:
        table.add_column(col, justify="left" if col in ("fabric", "mode") else "right")
    for r in records:
        leaf = r.get("leaf_up") or {}
        expect = r.get("leaf_up_expected_max")
        table.add_row(
            str(r["fabric"]),
            f"{r['gpus']:,}",
            str(r["mode"]) + (f" x{r['qps']}" if r["mode"] == "eecmp" else ""),
            _fmt_time(float(r["time_s"])),
            f"{r['busbw_gbps']:.1f}",
            f"{r['flow_gbps']:.1f}",
            f"{r['slowdown']:.2f}",
            f"{leaf.get('max_over_mean', 0):.2f}",
            f"{leaf.get('max', 0):.2f}",
            "-" if expect is None else f"{expect:.2f}",
        )
    return table


def checks_table(checks: list[dict[str, Any]]) -> Table:
    """Published figure vs closed form vs hashed measurement."""
    table = Table(title="Validation against published figures")
    for col in ("figure", "published", "closed form", "model / hashed", "difference"):
        table.add_column(col, justify="left" if col == "figure" else "right")
    for c in checks:
        closed = c["closed_form"]
        table.add_row(
            str(c["name"]),
            f"{c['published']:.4f}",
            "-" if closed is None else f"{closed:.4f}",
            f"{c['measured']:.4f}",
            f"{c['diff_vs_published']:+.4f}",
        )
    return table


def rows_table(title: str, rows: dict[str, dict[str, Any]]) -> Table:
    """One row per key of ``rows``, one column per key of its values."""
    table = Table(title=title)
    table.add_column("")
    columns = list(next(iter(rows.values()), {}))
    for col in columns:
        table.add_column(col, justify="right")
    for name, values in rows.items():
        table.add_row(
            name,
            *(
                f"{values[c]:.4g}" if isinstance(values[c], float) else str(values[c])
                for c in columns
            ),
        )
    return table


def dict_table(title: str, values: dict[str, Any]) -> Table:
    """A two-column key/value table."""
    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key, value in values.items():
        table.add_row(key, f"{value:.4g}" if isinstance(value, float) else str(value))
    return table


def _fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write the report document (NaN/inf become null)."""
    try:
        path.write_text(json.dumps(_clean(doc), indent=2, sort_keys=True) + "\n")
    except OSError as exc:
        raise UserError(f"{path}: cannot write report: {exc.strerror}") from None


def _clean(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def plot_sweep(records: list[dict[str, Any]], path: Path, title: str) -> None:
    """Metrics vs GPU count, one line per (fabric, mode): busbw, slowdown, completion time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        series.setdefault(f"{r['fabric']}/{r['mode']}", []).append(r)
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    metrics = (
        ("busbw_gbps", "bus bandwidth (Gb/s)"),
        ("slowdown", "bottleneck slowdown B"),
        ("time_s", "completion time (s)"),
    )
    for ax, (key, label) in zip(axes, metrics):
        for name, rows in sorted(series.items()):
            rows = sorted(rows, key=lambda r: int(r["gpus"]))
            style = "-" if name.startswith("roce") else "--"
            ax.plot(
                [r["gpus"] for r in rows], [r[key] for r in rows], style, marker="o", label=name
            )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_histograms(records: list[dict[str, Any]], path: Path, title: str) -> None:
    """RTSW-uplink balance of each record: flows per link, and the load CCDF in connections."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in records if r.get("leaf_up_histogram")]
    if not rows:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    for r in rows:
        label = f"{r['fabric']}/{r['mode']}"
        hist = r["leaf_up_histogram"]
        xs = sorted(int(k) for k in hist)
        left.plot(xs, [hist[k] for k in xs], marker="o", label=label)
        loads = r["leaf_up_load_histogram"]
        lx = sorted(float(k) for k in loads)
        total = sum(loads.values())
        tail, ccdf = total, []
        for x in lx:
            ccdf.append(tail / total)
            tail -= loads[x]
        right.step(lx, ccdf, where="post", marker=".", label=label)
    left.set_xlabel("flows (QPs) on one RTSW uplink")
    left.set_ylabel("links")
    left.set_yscale("log")
    right.set_xlabel("load on one RTSW uplink (connections at line rate)")
    right.set_ylabel("fraction of used uplinks with at least this load")
    right.set_yscale("log")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def ensure_dir(path: Path) -> Path:
    """Create the output directory or raise a UserError saying why not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {path}: cannot create directory: {exc.strerror}") from None
    return path


def console() -> Console:
    """The console tables are printed on (wide enough for the tables when piped)."""
    con = Console()
    return con if con.is_terminal else Console(width=160)
