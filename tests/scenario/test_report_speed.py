"""The report's cheaper drawing keeps its pictures and numbers: one layout pass, no docstring
building, link bins computed without a per-sample loop."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from emulator.measure.results import LinkSeries as ResultLink
from emulator.scenario import plots, runview
from emulator.scenario.mpl import Figure, FigureCanvasAgg
from emulator.scenario.runview import as_view

from .report_fixtures import rich_result

ROOT = Path(__file__).resolve().parents[2]


def _savefig_png(fig: Figure) -> bytes:
    """The figure as matplotlib's own savefig draws it (layout pass + real draw)."""
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=plots.DPI, metadata={"Software": None})
    return buf.getvalue()


def _pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGBA")


def test_png_draws_the_same_pixels_as_savefig(monkeypatch: pytest.MonkeyPatch) -> None:
    """plots._png (layout once on the canvas's renderer) == savefig of the same figure."""
    view = as_view(rich_result())
    makers = [
        lambda: plots.uplink_heatmap(view),
        lambda: plots.queue_timelines(view),
        lambda: plots.pause_timelines(view),
        lambda: plots.fct_cdf([("a", view), ("b", view)]),
        lambda: plots.collective_bars([("a", view)]),
        lambda: plots.summary_bars([("a", {"x": 1.0, "y": 2.0}), ("b", {"x": 3.0})]),
    ]
    fast = [make().png for make in makers]
    monkeypatch.setattr(plots, "_png", _savefig_png)
    slow = [make().png for make in makers]
    assert all(fast) and len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        assert a is not None and b is not None
        assert _pixels(a).size == _pixels(b).size
        assert ImageChops.difference(_pixels(a), _pixels(b)).getbbox() is None


def test_importing_without_docstrings_leaves_matplotlib_working() -> None:
    """A fresh process: emulator.scenario.mpl first, then matplotlib as anyone uses it."""
    probe = "\n".join(
        [
            "import emulator.scenario.mpl",
            "import matplotlib.artist as artist",
            "from matplotlib.lines import Line2D",
            "assert 'linewidth' in artist.kwdoc(Line2D)  # put back after the import",
            "line = Line2D([0, 1], [0, 1])",
            "line.set(lw=3, color='red')  # aliases and set() as before",
            "assert line.get_linewidth() == 3 and line.get_color() == 'red'",
            "class Mine(Line2D):  # classes defined later get their docstrings again",
            "    pass",
            "assert 'linewidth' in (Mine.set.__doc__ or '')",
            "print('ok')",
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["ok"]


def _bins_by_sample(s: ResultLink) -> tuple[int, ...]:
    """The per-sample definition: sample i covers t[i-1]..t[i] (the first covers nothing)."""
    out = []
    for i, util in enumerate(s.utilisation):
        dt = s.t_ns[i] - s.t_ns[i - 1] if i and i < len(s.t_ns) else 0
        out.append(int(util * s.rate_bps * dt / 8e9))
    return tuple(out)


@settings(max_examples=300, deadline=None)
@given(
    t=st.lists(st.integers(0, 10**12), max_size=12).map(sorted),
    util=st.lists(st.floats(0, 1), max_size=12),
    rate=st.sampled_from([1e7, 1e10, 4e11, 12345.6]),
)
def test_link_bins_match_the_per_sample_definition(
    t: list[int], util: list[float], rate: float
) -> None:
    """runview._link's vectorised bins == the per-sample loop, for any sample/time lengths."""
    s = ResultLink(
        src="a", src_port=1, dst="b", dst_port=2, kind="fabric", up=True, rate_bps=rate,
        t_ns=t, utilisation=util,
    )  # fmt: skip
    assert runview._link(s).tx_bytes == _bins_by_sample(s)
