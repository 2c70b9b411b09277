"""Renderer input validation and parallel links (several members towards one spine)."""

from __future__ import annotations

import pytest

from emulator.control import ControlError, FabricController, compute_routes
from emulator.control.config import FabricConfig
from emulator.control.render import render_switch
from emulator.control.routes import NextHop, Route, SwitchRoutes
from emulator.control.state import ProgramState
from emulator.topology import TopologySpec, resolve


def _routes(prefix: str, dmac: str) -> SwitchRoutes:
    hop = NextHop(3, dmac, "x")
    return SwitchRoutes(
        "s", "leaf", (Route(prefix, (hop,)),), (), ((3, "02:00:00:00:00:03"),), 10**9
    )


@pytest.mark.parametrize(
    ("prefix", "dmac", "message"),
    [
        ("10.0.0.1/33", "02:00:00:00:00:01", "not an IPv4 prefix"),
        ("10.0.0.1/24", "02:00:00:00:00:01", "not an IPv4 prefix"),  # host bits set
        ("10.0.0.0/24", "02:00:00:00:00:1", "not a MAC address"),
        ("10.0.0.0/24", "02:00:00:00:00:01 x", "not a MAC address"),
    ],
)
def test_only_validated_values_reach_the_command_file(prefix: str, dmac: str, message: str) -> None:
    routes = _routes(prefix, dmac)
    ops = ProgramState().program(routes)
    with pytest.raises(ControlError, match=message):
        render_switch(routes, FabricConfig(), ops)


def test_parallel_links_are_separate_members() -> None:
    spec = TopologySpec(
        name="par", racks=2, gpus_per_rack=2, spines=2, uplinks_per_leaf=4, radix=16
    )
    topo = resolve(spec)
    (remote,) = [r for r in compute_routes(topo)["rtsw0"].routes if r.prefix == "10.0.1.0/24"]
    assert [(h.port, h.peer) for h in remote.next_hops] == [
        (3, "ctsw0"),
        (4, "ctsw1"),
        (5, "ctsw0"),
        (6, "ctsw1"),
    ]
    ctl = FabricController(topo)
    ctl.fail_link("rtsw0", "ctsw0")  # both parallel links go down
    assert [h.port for h in ctl.selection("rtsw0", "10.0.1.0/24")] == [4, 6]
