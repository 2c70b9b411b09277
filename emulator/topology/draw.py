"""Draw a resolved topology as a layered picture (PNG or SVG) with matplotlib."""

from __future__ import annotations

from pathlib import Path

from emulator.topology.errors import TopologyError
from emulator.topology.resolve import ResolvedTopology

_LAYERS = ("agg", "spine", "leaf", "host")
_COLOURS = {"agg": "#8e44ad", "spine": "#c0392b", "leaf": "#2980b9", "host": "#27ae60"}
_MAX_NODES = 2000


def positions(topo: ResolvedTopology) -> dict[str, tuple[float, float]]:
    """Node -> (x, y): one row per layer (ATSW top, hosts bottom), spread evenly in x."""
    rows: dict[str, list[str]] = {layer: [] for layer in _LAYERS}
    for s in topo.switches:
        rows[s.role].append(s.name)
    rows["host"] = [h.name for h in topo.hosts]
    pos: dict[str, tuple[float, float]] = {}
    for y, layer in enumerate(_present(rows)):
        names = rows[layer]
        for i, name in enumerate(names):
            pos[name] = ((i + 0.5) / len(names), float(y))
    return pos


def _present(rows: dict[str, list[str]]) -> list[str]:
    """Layers that have nodes, bottom (hosts) first."""
    return [layer for layer in reversed(_LAYERS) if rows[layer]]


def draw(topo: ResolvedTopology, out: str | Path, fmt: str | None = None) -> Path:
    """Write a picture of ``topo`` to ``out`` ('png' or 'svg', default from the suffix)."""
    out = Path(out)
    fmt = fmt or out.suffix.lstrip(".").lower() or "png"
    if fmt not in ("png", "svg"):
        raise TopologyError(f"{out}: picture format must be png or svg, got {fmt!r}")
    nodes = len(topo.hosts) + len(topo.switches)
    if nodes > _MAX_NODES:
        raise TopologyError(
            f"topology {topo.name}: {nodes} nodes are too many to draw (max {_MAX_NODES})"
        )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pos = positions(topo)
    width = max(6.0, min(40.0, 0.35 * len(topo.hosts)))
    fig, ax = plt.subplots(figsize=(width, 4.5))
    try:
        for lk in topo.links:
            (xa, ya), (xb, yb) = pos[lk.a], pos[lk.b]
            ax.plot([xa, xb], [ya, yb], color="#999999", linewidth=0.6, zorder=1)
        roles = {h.name: "host" for h in topo.hosts} | {s.name: s.role for s in topo.switches}
        small = nodes <= 80
        for name, (x, y) in pos.items():
            ax.scatter([x], [y], s=120 if small else 20, color=_COLOURS[roles[name]], zorder=2)
            if small:
                ax.annotate(
                    name, (x, y), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=7
                )
        ax.set_title(
            f"{topo.name}: {len(topo.hosts)} hosts, {len(topo.switches)} switches, {len(topo.links)} links"
        )
        labels = ["hosts", "RTSW", "CTSW", "ATSW"][: len({y for _, y in pos.values()})]
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xticks([])
        ax.set_ylim(-0.5, len(labels) - 0.5)
        fig.tight_layout()
        fig.savefig(out, format=fmt)
    finally:
        plt.close(fig)
    return out
