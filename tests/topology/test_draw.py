"""Layered picture layout and its limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.topology import TopologyError, TopologySpec, load_clos, resolve
from emulator.topology.draw import draw, positions


def test_layers_bottom_up() -> None:
    pos = positions(resolve(load_clos("two_zone_atsw")))
    assert {pos["h0"][1], pos["rtsw0"][1], pos["ctsw0"][1], pos["atsw0"][1]} == {0.0, 1.0, 2.0, 3.0}
    assert pos["h0"][1] < pos["rtsw0"][1] < pos["ctsw0"][1] < pos["atsw0"][1]
    assert all(0 < x < 1 for x, _ in pos.values())
    single = positions(resolve(load_clos("two_rack_2spine")))
    assert {y for _, y in single.values()} == {0.0, 1.0, 2.0}


def test_bad_format_and_too_big(tmp_path: Path) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    with pytest.raises(TopologyError, match="png or svg"):
        draw(topo, tmp_path / "x.gif")
    big = resolve(
        TopologySpec("big", racks=64, gpus_per_rack=32, spines=4, uplinks_per_leaf=4, radix=128)
    )
    with pytest.raises(TopologyError, match="too many to draw"):
        draw(big, tmp_path / "x.png")
