"""Rejection of bad specs, each with a clear message."""

from __future__ import annotations

import dataclasses

import pytest

from emulator.errors import UserError
from emulator.topology import LinkSpec, TopologyError, TopologySpec, resolve
from emulator.topology.validate import validate

BASE = TopologySpec("t", racks=2, gpus_per_rack=2, spines=2, uplinks_per_leaf=2, radix=16)
ZONES = dataclasses.replace(BASE, zones=2, racks=4, aggs=2, oversubscription=2)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"spines": 0}, "spines must be a whole number >= 1, got 0"),
        ({"racks": 0}, "racks must be a whole number >= 1, got 0"),
        ({"gpus_per_rack": -1}, "gpus_per_rack must be a whole number >= 1"),
        ({"zones": 0}, "zones must be a whole number >= 1"),
        ({"name": "1bad name"}, "name '1bad name' must start with a letter"),
        ({"uplinks_per_leaf": 3}, "uplinks_per_leaf=3 is not a multiple of spines=2"),
        (
            {"gpus_per_rack": 15},
            r"a leaf needs 15 host ports \+ 2 uplinks = 17 ports, more than radix=16",
        ),
        ({"racks": 17}, "a spine needs 17 leaf links .* more than radix=16"),
        ({"radix": 600}, "radix=600 exceeds 510 ports"),
        ({"aggs": 2}, "aggs=2 needs zones > 1"),
        ({"zones": 2}, "zones=2 needs aggs >= 1"),
        ({"host_link": LinkSpec(0, 1)}, r"links.host.rate must be > 0"),
        ({"fabric_link": LinkSpec(1, -5)}, r"links.fabric.delay must be >= 0"),
        ({"gpus_per_rack": 254, "radix": 300}, "address plan exhausted: gpus_per_rack=254"),
        ({"racks": 257, "radix": 500, "uplinks_per_leaf": 2}, "address plan exhausted: racks=257"),
    ],
)
def test_bad_single_zone_specs(changes: dict[str, object], message: str) -> None:
    spec = dataclasses.replace(BASE, **changes)
    with pytest.raises(TopologyError, match=message) as info:
        resolve(spec, "f.yaml")
    assert str(info.value).startswith("f.yaml: ")
    assert isinstance(info.value, UserError)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"oversubscription": 0.5}, "oversubscription must be >= 1"),
        ({"oversubscription": 3}, "oversubscription=3 needs 1.33 ATSW links per spine"),
        ({"oversubscription": 8}, "needs 0.5 ATSW links per spine"),
        ({"aggs": 3}, "2 ATSW links per spine do not spread evenly over aggs=3"),
        ({"zones": 256}, "address plan exhausted: zones=256"),
        ({"agg_link": LinkSpec(0, 0)}, "links.agg.rate must be > 0"),
    ],
)
def test_bad_multi_zone_specs(changes: dict[str, object], message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        validate(dataclasses.replace(ZONES, **changes))


def test_atsw_radix_is_checked() -> None:
    spec = dataclasses.replace(ZONES, zones=5, aggs=1, oversubscription=1, radix=16)
    # 5 zones x 2 spines x 4 links to a single ATSW = 40 ports
    with pytest.raises(TopologyError, match="an ATSW needs 40 spine links, more than radix=16"):
        validate(spec)


def test_valid_edge_of_the_plan_is_accepted() -> None:
    spec = dataclasses.replace(BASE, gpus_per_rack=253, uplinks_per_leaf=2, radix=300)
    topo = resolve(spec)
    assert topo.hosts[-1].ip == "10.0.1.253"
