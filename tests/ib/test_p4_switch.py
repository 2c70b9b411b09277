"""p4/ib_fabric.p4 on the built-in target, programmed from OpenSM's LFTs."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from emulator.control.apply import apply_commands
from emulator.ib.commands import IbSwitchConfig, equal_cost_ports, switch_commands
from emulator.ib.framing import IbEndpoint, IbFraming
from emulator.ib.routing import IbRouting
from emulator.ib.subnet import SmOptions, compute_routing
from emulator.p4c import compile_file
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve
from emulator.topology.resolve import ResolvedTopology
from emulator.traffic.roce import encode_transport

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "p4" / "ib_fabric.p4"


@cache
def _program() -> dict[str, Any]:
    return compile_file(PROGRAM)


@cache
def _fabric() -> tuple[ResolvedTopology, IbRouting]:
    topo = resolve(load_clos("two_rack_4spine"))
    return topo, compute_routing(topo, SmOptions("ftree"))


def _switch(name: str, config: IbSwitchConfig) -> Switch:
    topo, routing = _fabric()
    node = topo.switch(name)
    sw = Switch(_program(), device_id=node.device_id, priority_queues=8,
                port_speed_bps=node.port_speeds_bps)  # fmt: skip
    apply_commands(sw, switch_commands(topo, routing, config)[name], where=name)
    return sw


def _frame(src: str, dst: str, sport: int = 1, dscp: int = 0, vl15: bool = False) -> bytes:
    topo, routing = _fabric()
    fr = IbFraming({h.ip: IbEndpoint(h.mac, routing.lids(h.name)) for h in topo.hosts})
    s, d = topo.host(src), topo.host(dst)
    frame = fr.encode(fr.make_path(s.mac, "", s.ip, d.ip, sport, dscp, 0),
                      encode_transport(10, 5, 0, b"x" * 256, reth=(0, 0, 256)))  # fmt: skip
    if vl15:
        frame = frame[:14] + bytes((frame[14] | 0xF0,)) + frame[15:]
    return frame


pytestmark = pytest.mark.ib


def test_compiles_with_real_p4c(tmp_path: Path) -> None:
    if shutil.which("p4c-bm2-ss") is None:
        pytest.skip("p4c-bm2-ss not on PATH")
    out = tmp_path / "ib.json"
    subprocess.run(["p4c-bm2-ss", str(PROGRAM), "-o", str(out)], check=True, timeout=300,
                   capture_output=True, cwd=tmp_path)  # fmt: skip
    assert out.stat().st_size > 0


def test_static_forwarding_follows_the_lft() -> None:
    topo, routing = _fabric()
    sw = _switch("rtsw0", IbSwitchConfig())
    for h in topo.hosts:
        if h.name == "h0":
            continue
        out = sw.process(1, _frame("h0", h.name))
        assert [p for p, _ in out] == [routing.lfts["rtsw0"][routing.base_lids[h.name]]]


def test_management_and_foreign_frames_are_dropped() -> None:
    sw = _switch("rtsw0", IbSwitchConfig())
    assert sw.process(1, _frame("h0", "h4", vl15=True)) == []
    assert sw.process(1, b"\xff" * 12 + b"\x08\x00" + b"\x00" * 50) == []


def test_sl_to_vl() -> None:
    sw = _switch("rtsw0", IbSwitchConfig(data_vls=2))
    ((_, frame),) = sw.process(1, _frame("h0", "h1", dscp=3 << 3))  # SL 3 -> VL 1
    assert frame[14] >> 4 == 1 and frame[15] >> 4 == 3


def _spread(config: IbSwitchConfig, busy: int | None = None) -> Counter[int]:
    """Enqueue 8 packets h0 -> h4 (no dequeue) and count the uplinks they were put on."""
    sw = _switch("rtsw0", config)
    if busy is not None:
        sw.cli(f"register_write port_occupancy {busy} 100")
    for _ in range(8):
        sw.receive(1, _frame("h0", "h4"))
    return Counter({p: sw.tm.depth(p) for p in (5, 6, 7, 8) if sw.tm.depth(p)})


def test_static_puts_a_flow_on_one_uplink() -> None:
    assert len(_spread(IbSwitchConfig())) == 1


def test_adaptive_picks_the_least_occupied_uplink() -> None:
    assert _spread(IbSwitchConfig(adaptive=True)) == {5: 2, 6: 2, 7: 2, 8: 2}
    spread = _spread(IbSwitchConfig(adaptive=True), busy=6)
    assert 6 not in spread and sum(spread.values()) == 8


def test_equal_cost_ports_are_the_uplinks_for_remote_hosts() -> None:
    topo, routing = _fabric()
    groups = equal_cost_ports(topo, routing)
    assert groups["rtsw0"][routing.base_lids["h4"]] == (5, 6, 7, 8)
    assert groups["rtsw0"][routing.base_lids["h1"]] == (2,)
    assert groups["ctsw0"][routing.base_lids["h4"]] == (2,)
