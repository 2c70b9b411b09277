"""The Mininet runtime says when configured link rates outrun its switch processes."""

from __future__ import annotations

from pathlib import Path

from emulator.runtime.mininet.capacity import FORWARDING_PPS, capacity_warning
from emulator.topology import load_clos, resolve

TOPOS = Path(__file__).resolve().parents[2] / "topologies"


def test_scaled_down_fabric_is_within_capacity() -> None:
    topo = resolve(load_clos(TOPOS / "two_rack_4spine.yaml"))  # 10 Mb/s: ~1.1 kpps at 1 KiB
    assert capacity_warning(topo, "builtin", 1024) is None
    assert capacity_warning(topo, "bmv2", 1024) is None


def test_real_rate_fabric_is_flagged_with_figures() -> None:
    topo = resolve(load_clos(TOPOS / "two_rack_4spine_400g.yaml"))
    note = capacity_warning(topo, "builtin", 4096)
    assert note is not None
    assert "400 Gb/s" in note and f"{FORWARDING_PPS['builtin'] / 1e3:g} kpps" in note
    assert "--runtime virtual" in note
    assert "11.5 kpps" in (capacity_warning(topo, "bmv2", 4096) or "")
