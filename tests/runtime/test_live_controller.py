"""The live controller: a spine uplink fails mid-run, the controller hears the link event,
waits its detection delay and installs only the groups that changed; flows complete."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from emulator.control import FabricConfig, FabricController
from emulator.control.live import LinkEvent, LiveController
from emulator.control.names import ECMP_SELECTOR
from emulator.control.routes import NextHop
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.target.ops import AddMember, RemoveMember, SwitchOp, command_ops

from .vt_fabric import META, assert_conserved, config, topology

SIZE = 256 * 1024
WORK = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]], "size_bytes": SIZE}
FAIL_AT = 20_000_000
DELAY = 3_000_000  # detection delay: 3 ms of virtual time
RNIC = {"rto_ns": 30_000_000}
SEED = 2  # as tests/runtime/test_virtual_failure.py: one flow on each spine under E-ECMP


def _member(ctl: FabricController, switch: str, port: int) -> int:
    """Handle of ``switch``'s member that forwards out of ``port``."""
    [handle] = [
        h for k, h in ctl.states[switch].members.items() if k is not None and k.port == port
    ]
    return handle


def _expected_repair(ctl: FabricController) -> dict[str, list[SwitchOp]]:
    """rtsw0 - ctsw0 down, two_rack_2spine: exactly these group changes, nothing else."""
    st = ctl.states
    to_rack1, to_rack0 = "10.0.1.0/24", "10.0.0.0/24"
    via_rtsw1 = st["ctsw0"].members[NextHop(1 + 1, ctl.topo.switch("rtsw1").port(3).mac, "rtsw1")]
    return {
        "rtsw0": [
            RemoveMember(ECMP_SELECTOR, _member(ctl, "rtsw0", 3), st["rtsw0"].groups[to_rack1])
        ],
        "rtsw1": [
            RemoveMember(ECMP_SELECTOR, _member(ctl, "rtsw1", 3), st["rtsw1"].groups[to_rack0])
        ],
        "ctsw0": [
            AddMember(ECMP_SELECTOR, via_rtsw1, st["ctsw0"].groups[to_rack0]),
            RemoveMember(ECMP_SELECTOR, _member(ctl, "ctsw0", 1), st["ctsw0"].groups[to_rack0]),
        ],
    }


def _dead_link_drops(rt: VirtualRuntime) -> int:
    return sum(d.dropped for d in rt._link_dirs("rtsw0", "ctsw0"))


@pytest.mark.parametrize("lb", ["pinning", "eecmp"])
def test_spine_uplink_failure_is_repaired_after_the_detection_delay(lb: str) -> None:
    plan, ctl = config(
        "two_rack_2spine", FabricConfig(lb_mode=lb), live=True, detection_delay_ns=DELAY,
        rnic=RNIC, seed=SEED,
    )  # fmt: skip
    assert plan.controller is not None
    seen: dict[str, int] = {}
    with VirtualRuntime(plan) as rt:
        rt.start()
        rt.add_workload(WORK)
        rt.schedule(FAIL_AT, lambda: rt.fail_link("rtsw0", "ctsw0"))
        rt.schedule(FAIL_AT + DELAY - 1, lambda: seen.update(before=_dead_link_drops(rt)))
        rt.schedule(FAIL_AT + DELAY + 2_000_000, lambda: seen.update(after=_dead_link_drops(rt)))
        assert rt.run(10**10) is True  # every flow completes
        r = rt.result(META)
        end_drops = _dead_link_drops(rt)
    [repair] = plan.controller.repairs
    assert repair.event == LinkEvent("rtsw0", "ctsw0", False, FAIL_AT)
    assert repair.at_ns == FAIL_AT + DELAY
    got = {sw: command_ops(ops) for sw, ops in repair.ops.items()}
    assert got == _expected_repair(ctl)  # minimal: ctsw1 and every other group untouched
    assert seen["before"] > 0  # until the repair, frames sent to the dead uplink are lost
    assert seen["after"] == end_drops  # after it (and the queue drained), none
    assert [f.bytes for f in r.flows] == [SIZE, SIZE]
    moved = [f for f in r.flows if len(f.uplinks) == 2]
    assert len(moved) == 1 and moved[0].uplinks == ["rtsw0:3", "rtsw0:4"]
    assert f"t={FAIL_AT + DELAY} apply_ops rtsw0 (1 op(s))" in r.events
    assert r.totals.retransmissions > 0
    assert_conserved(r)


def test_without_the_controller_the_flow_on_the_dead_uplink_never_finishes() -> None:
    plan, _ = config("two_rack_2spine", FabricConfig(lb_mode="pinning"), rnic=RNIC, seed=SEED)
    with VirtualRuntime(plan) as rt:
        rt.start()
        rt.add_workload(WORK)
        rt.schedule(FAIL_AT, lambda: rt.fail_link("rtsw0", "ctsw0"))
        assert rt.run(400_000_000) is False
        r = rt.result(META)
    assert [f.bytes for f in r.flows].count(SIZE) == 1
    assert not any("apply_ops" in e for e in r.events)


class FakeChannel:
    """Records what the controller schedules and installs."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, Callable[[], None]]] = []
        self.applied: list[tuple[str, Sequence[SwitchOp]]] = []

    def call_at(self, t_ns: int, fn: Callable[[], None]) -> None:
        self.calls.append((t_ns, fn))

    def apply_ops(self, switch: str, ops: Sequence[SwitchOp]) -> None:
        self.applied.append((switch, ops))

    def subscribe(self, sink: Any) -> None:
        self.sink = sink

    def run_all(self) -> None:
        for _, fn in sorted(self.calls, key=lambda c: c[0]):
            fn()
        self.calls.clear()


def _live(delay: int = 500) -> tuple[LiveController, FakeChannel]:
    live = LiveController(FabricController(topology("two_rack_4spine")), delay)
    channel = FakeChannel()
    live.attach(channel)
    assert channel.sink is live
    return live, channel


def test_down_then_up_restores_the_groups_exactly() -> None:
    live, channel = _live()
    before = {n: dict(s.group_members) for n, s in live.fabric.states.items()}
    live.on_link_event(LinkEvent("rtsw0", "ctsw2", False, 1000))
    live.on_link_event(LinkEvent("rtsw0", "ctsw2", True, 9000))
    assert [t for t, _ in channel.calls] == [1500, 9500]  # event time + detection delay
    assert channel.applied == []  # nothing before the delay has passed
    channel.run_all()
    down, up = live.repairs
    assert {sw for sw, _ in channel.applied} == {"rtsw0", "rtsw1", "ctsw2"}
    assert all(isinstance(op, RemoveMember) for op in command_ops(down.ops["rtsw0"]))
    assert [type(op) for op in command_ops(up.ops["rtsw0"])] == [AddMember]
    assert {n: dict(s.group_members) for n, s in live.fabric.states.items()} == before
    assert "repair link rtsw0 - ctsw2 down" in down.summary()


def test_a_host_link_touches_only_its_leaf_and_unknown_links_are_refused() -> None:
    live, channel = _live(0)
    live.on_link_event(LinkEvent("h0", "rtsw0", False, 0))
    channel.run_all()
    [repair] = live.repairs
    assert set(repair.ops) == {"rtsw0"}  # h0's /32 goes to the drop member; nothing else
    from emulator.errors import UserError

    live.on_link_event(LinkEvent("h0", "h1", False, 0))
    with pytest.raises(UserError, match="no link between"):
        channel.run_all()


def test_unattached_controller_ignores_events() -> None:
    live = LiveController(FabricController(topology("two_rack_2spine")))
    live.on_link_event(LinkEvent("rtsw0", "ctsw0", False, 0))
    assert live.repairs == [] and not live.fabric.failed


def test_the_scenario_key_reaches_the_runtime(tmp_path: Any) -> None:
    """switch.control.detection_delay_us in a scenario is the delay the run uses."""
    from pathlib import Path

    from emulator.plan.build import build_plan
    from emulator.scenario.load import load_scenario

    path = Path(__file__).resolve().parents[2] / "scenarios" / "fat_flow_collision.yaml"
    sc = load_scenario(path, {"switch.control.detection_delay_us": 1500})
    plan = build_plan(sc, path)
    assert plan.controller is not None and plan.controller.detection_delay_ns == 1_500_000
