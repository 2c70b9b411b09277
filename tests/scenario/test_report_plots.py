"""Report plots and the run view they read: series derivation, caps and skip notes."""

from __future__ import annotations

from emulator.measure.results import PauseEvent, QueueSeries
from emulator.scenario import plots
from emulator.scenario.runview import as_view

from .report_fixtures import BIN_NS, make_result, rich_result


def test_view_derives_uplinks_bins_and_host_leaves() -> None:
    view = as_view(make_result(uplinks={"rtsw0": [4000, 2000, 2000, 0]}))
    assert view.leaves == {"rtsw0", "rtsw1"}
    ups = [s for s in view.uplinks if s.node == "rtsw0"]
    assert [s.total_bytes for s in ups] == [4000, 2000, 2000, 0]
    assert sum(ups[0].tx_bytes) == 4000  # utilisation samples back to bytes per bin
    assert view.interval_ns == BIN_NS
    assert view.host_leaf["h5"] == "rtsw1"


def test_pause_frames_become_intervals() -> None:
    # XOFF at 1 ms for 0xFFFF quanta (3.36 ms at 10 Gb/s), XON at 2 ms ends it.
    # A second XOFF at 5 ms with no XON lasts its full quanta.
    ev = [
        PauseEvent(t_ns=1_000_000, node="s", port=1, priority=3, quanta=0xFFFF),
        PauseEvent(t_ns=2_000_000, node="s", port=1, priority=3, quanta=0),
        PauseEvent(t_ns=5_000_000, node="s", port=1, priority=3, quanta=0xFFFF),
    ]
    (series,) = as_view(make_result(pauses=ev)).pauses
    quanta_ns = int(0xFFFF * 512 * 1e9 / 10e9)
    assert series.intervals == ((1_000_000, 2_000_000), (5_000_000, 5_000_000 + quanta_ns))


def test_heatmap_merges_long_series() -> None:
    # 10 bins are below MAX_BINS: no merge; shrink MAX_BINS to force one.
    run = as_view(rich_result())
    assert plots.uplink_heatmap(run).png is not None
    old = plots.MAX_BINS
    try:
        plots.MAX_BINS = 3
        plot = plots.uplink_heatmap(run)
    finally:
        plots.MAX_BINS = old
    assert plot.png is not None and plot.note == ""


def test_queue_plot_caps_series_with_a_note() -> None:
    queues = [
        QueueSeries(switch="s", port=p, priority=3, t_ns=[0, 1, 2], depth=[0, p, 0])
        for p in range(1, plots.MAX_QUEUES + 3)
    ]
    plot = plots.queue_timelines(as_view(make_result(queues=queues)))
    assert plot.png is not None
    assert plot.note == f"deepest {plots.MAX_QUEUES} of {plots.MAX_QUEUES + 2} non-empty queues"


def test_plots_without_data_explain_why() -> None:
    run = as_view(make_result())
    for plot in (
        plots.uplink_heatmap(run),
        plots.queue_timelines(run),
        plots.pause_timelines(run),
        plots.fct_cdf([("", run)]),
        plots.collective_bars([("", run)]),
        plots.summary_bars([]),
    ):
        assert plot.png is None and plot.note.startswith("no ")
