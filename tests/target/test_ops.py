"""Typed runtime operations: applied in process they leave a switch exactly as their
simple_switch_CLI text does (the text path: command files, BMv2, the control socket)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.control import FabricConfig, FabricController, PfcConfig
from emulator.control.apply import apply_commands
from emulator.control.render import command_lines
from emulator.errors import UserError
from emulator.target.ops import (
    CreateMember,
    Mac,
    SetQueueRate,
    TableAdd,
    apply_ops,
    command_ops,
    to_text,
)
from emulator.target.switch import Switch
from emulator.topology import ResolvedTopology, load_clos, resolve

ROOT = Path(__file__).resolve().parents[2]


@cache
def _program(name: str) -> dict[str, Any]:
    from emulator.p4c import compile_file

    return compile_file(str(ROOT / "p4" / name))


@cache
def _topo(name: str) -> ResolvedTopology:
    return resolve(load_clos(name))


def _fresh(topo: ResolvedTopology, switch: str, program: str) -> Switch:
    node = topo.switch(switch)
    sw = Switch(_program(program), device_id=node.device_id, priority_queues=8)
    for p in node.ports:
        sw.add_port(p.number)
    return sw


def _state(sw: Switch) -> dict[str, Any]:
    """Everything the control plane can set on a switch, as plain values."""

    def entry(e: Any) -> Any:
        if e is None:
            return None
        ref = (type(e.ref).__name__, e.ref.handle) if e.ref is not None else None
        return (e.match, e.priority, e.action.name if e.action else None, e.data, ref)

    tables = {
        name: (sorted((entry(e) for e in t.entries.values()), key=repr), entry(t.default))
        for name, t in sw.tables.items()
    }
    profiles = {
        name: (
            {h: (m.action.name, m.data) for h, m in prof.members.items()},
            {h: [m.handle for m in g.members] for h, g in prof.groups.items()},
        )
        for name, prof in sw.program.profiles.items()
    }
    queues = [(q.capacity, q.interval_ns) for q in sw.tm._targets(None, None)]
    registers = {name: list(r.values) for name, r in sw.registers.items()}
    return {"tables": tables, "profiles": profiles, "mirror": dict(sw.mirror),
            "queues": queues, "registers": registers}  # fmt: skip


CONFIGS = [
    FabricConfig(),
    FabricConfig(
        lb_mode="pinning",
        pfc=PfcConfig(enabled=False),
        queue_depth=100,
        ecn_thresholds=((3, 20),),
        hash_algos={"leaf": "crc32"},
    ),
]


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "pinning-ecn-depth"])
@pytest.mark.parametrize("switch", ["rtsw0", "ctsw1"])
def test_typed_and_text_paths_leave_identical_state(config: FabricConfig, switch: str) -> None:
    topo = _topo("two_rack_4spine")
    ctl = FabricController(topo, config)
    ops = (*ctl.switch_ops(switch), SetQueueRate(250.0, 3))
    typed, text = (_fresh(topo, switch, "roce_fabric.p4") for _ in range(2))
    apply_ops(typed, ops, where=switch)
    apply_commands(text, command_lines(to_text(ops)), next_member=0, next_group=0)
    assert _state(typed) == _state(text)
    assert _state(typed)["tables"]["RoceIngress.ipv4_route"][0]  # it did program routes
    # and a repair, applied both ways on top, still agrees
    repair = ctl.link_changed("rtsw0", "ctsw2", up=False).get(switch, ())
    apply_ops(typed, repair, where=switch)
    apply_commands(text, command_lines(to_text(repair)))
    assert _state(typed) == _state(text)


def test_ib_program_operations_agree_too() -> None:
    from emulator.ib.commands import IbSwitchConfig, switch_ops
    from emulator.ib.fabric import _routing

    topo = _topo("two_rack_2spine")
    ops = switch_ops(topo, _routing(topo, "ftree", 0), IbSwitchConfig(adaptive=True, data_vls=2))
    for name in ("rtsw0", "ctsw0"):
        typed, text = (_fresh(topo, name, "ib_fabric.p4") for _ in range(2))
        apply_ops(typed, ops[name])
        apply_commands(text, [op.cli() for op in ops[name]])
        assert _state(typed) == _state(text)


def test_refusals_name_the_switch_and_operation() -> None:
    topo = _topo("two_rack_2spine")
    sw = _fresh(topo, "rtsw0", "roce_fabric.p4")
    with pytest.raises(UserError, match=r"rtsw0: operation 1 `table_add nope .*invalid table"):
        apply_ops(sw, [TableAdd("nope", "x", (1,), (2,))], where="rtsw0")
    with pytest.raises(UserError, match="does not fit in 9 bits"):
        apply_ops(sw, [TableAdd("RoceEgress.port_mac", "RoceEgress.set_src_mac", (600,),
                                (Mac(1),))])  # fmt: skip
    member = CreateMember("RoceIngress.ecmp_selector", "RoceIngress.drop", (), handle=5)
    with pytest.raises(UserError, match="assigned member handle 0, the plan expected 5"):
        apply_ops(sw, [member])


@settings(max_examples=50, deadline=None)
@given(st.integers(0, (1 << 48) - 1))
def test_mac_text_round_trips(value: int) -> None:
    mac = Mac(value)
    assert Mac.parse(str(mac)) == mac and len(str(mac)) == 17


def test_comments_are_text_only() -> None:
    ctl = FabricController(_topo("two_rack_2spine"))
    ops = ctl.switch_ops("rtsw0")
    text = to_text(ops)
    assert text == ctl.command_file("rtsw0")
    assert command_lines(text) == [op.cli() for op in command_ops(ops)]
