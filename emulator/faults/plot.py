"""The fault timeline of a report: leaf-uplink utilisation and delivered throughput over
time, with a marker at every link event and every installed repair.

    ┌ uplink utilisation (one line per leaf uplink) ─┐   red  │ link down
    │                                                │   green│ link up
    ├ throughput delivered to hosts (Gb/s) ──────────┤   blue ┊ repair installed
    └───────────────────────────── time (ms) ────────┘
"""

from __future__ import annotations

from emulator.scenario.plots import Plot, _figure, _png
from emulator.scenario.runview import RunView

MAX_LINES = 16
COLOURS = {"down": "tab:red", "up": "tab:green", "repair": "tab:blue"}


def _kind(label: str) -> str:
    if label.startswith("repair"):
        return "repair"
    return "up" if label.endswith((" up", " end")) else "down"


def fault_timeline(run: RunView, key: str = "fault_timeline") -> Plot:
    """Uplink utilisation and delivered throughput with fault markers (see module doc)."""
    title = "Faults: uplink utilisation and throughput"
    if not run.fault_marks:
        return Plot(key, title, note="no faults in this run")
    ups = [s for s in run.uplinks if s.tx_bytes][:MAX_LINES]
    down = [s for s in run.links if s.kind == "host" and s.peer in run.host_leaf and s.tx_bytes]
    if run.interval_ns <= 0 or not (ups or down):
        return Plot(key, title, note="no link series in this run")
    dt = run.interval_ns
    fig = _figure(9, 5)
    top, bottom = fig.subplots(2, 1, sharex=True)
    for s in ups:
        t = [(i + 1) * dt / 1e6 for i in range(len(s.tx_bytes))]
        top.plot(t, [b * 8e9 / (dt * s.rate_bps) for b in s.tx_bytes], lw=0.8, label=s.label)
    n = max((len(s.tx_bytes) for s in down), default=0)
    gbps = [sum(s.tx_bytes[i] for s in down if i < len(s.tx_bytes)) * 8 / dt for i in range(n)]
    bottom.plot([(i + 1) * dt / 1e6 for i in range(n)], gbps, color="black", lw=1)
    for t_ns, label in run.fault_marks:
        kind = _kind(label)
        for ax in (top, bottom):
            ax.axvline(t_ns / 1e6, color=COLOURS[kind], ls=":" if kind == "repair" else "-", lw=1)
        top.annotate(label, (t_ns / 1e6, 1.02), rotation=90, fontsize=6, va="bottom",
                     xycoords=("data", "axes fraction"))  # fmt: skip
    top.set_ylabel("uplink utilisation")
    bottom.set_ylabel("delivered Gb/s")
    bottom.set_xlabel("time (ms)")
    if len(ups) <= 8:
        top.legend(fontsize=6, loc="lower right")
    return Plot(key, title, _png(fig))
