"""Specialised table nodes (emulator/target/fastmatch.py): same packets out, rebuilt on change."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.fastmatch import attach, specialisable
from emulator.target.pipeline import CompiledProgram
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve

from .fakes import FifoTM, ipv4_udp
from .test_selector import ecmp_switch

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roce() -> tuple[dict, list[str]]:
    """roce_fabric.p4 and the controller's commands for a leaf of two_rack_2spine."""
    topo = resolve(load_clos("two_rack_2spine"))
    ctl = FabricController(topo, FabricConfig(lb_mode="eecmp"))
    return compile_file(str(ROOT / "p4" / "roce_fabric.p4")), ctl.command_file("rtsw0").splitlines()


def leaf(
    program: dict, commands: list[str], fast: str, mp: pytest.MonkeyPatch, cache: bool = False
) -> Switch:
    mp.setenv("FABEMU_FASTMATCH", fast)
    sw = Switch(program, priority_queues=8, tm=FifoTM(lambda: 0), flow_cache=cache)
    for line in commands:
        if line.strip() and not line.startswith("#"):
            sw.cli(line)
    return sw


def frames(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [
        ipv4_udp(
            src=0x0A000000 + rng.randrange(1 << 16),
            dst=rng.choice([0x0A000101, 0x0A000002, 0x0A000102, 0x0B000001]),
            sport=rng.randrange(1 << 16),
            tos=rng.randrange(256),
            ttl=rng.randrange(4),
        )
        for _ in range(n)
    ]


def test_same_frames_out_and_rebuilt_on_change(roce, monkeypatch: pytest.MonkeyPatch) -> None:
    """roce_fabric.p4 with and without specialised nodes: identical output, before and after
    control-plane changes; the specialised nodes are what runs."""
    program, commands = roce
    on = leaf(program, commands, "1", monkeypatch)
    off = leaf(program, commands, "0", monkeypatch)
    assert on.fast is not None and off.fast is None
    sent = 0
    for frame in frames(200, 1):
        out = on.process(1, frame)
        assert out == off.process(1, frame)
        sent += len(out)
    assert sent > 50  # routed, not all dropped
    assert on.fast.rebuilds == 1  # programming marked it dirty once; packets rebuilt it once
    assert any(specialisable(t) for t in on.fast.tables.values())
    firsts = [on.fast.ns[n] for n in on.fast.starts]  # ingress and egress run fused code
    assert len(firsts) == 2 and all(f.__code__.co_filename.startswith("<fastmatch") for f in firsts)
    for sw in (on, off):  # a default change and an entry removal, through the CLI
        sw.cli("table_set_default RoceIngress.dscp_to_tc RoceIngress.set_traffic_class 3")
        sw.cli("table_clear RoceIngress.tc_to_queue")
    for frame in frames(200, 2):
        assert on.process(1, frame) == off.process(1, frame)
    assert on.fast.rebuilds == 2


def test_with_the_decision_cache(roce, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both speed-ups at once (the cache replaces the tables' change hooks, fastmatch chains
    onto them again): same output as neither, and a change reaches the specialised nodes."""
    program, commands = roce
    both = leaf(program, commands, "1", monkeypatch, cache=True)
    none = leaf(program, commands, "0", monkeypatch, cache=False)
    assert both.fast is not None and both.caches is not None
    both.fast.rebuild()  # outside a recorded run: the watchers are not in place now
    assert not both.fast.plain  # the cache watches the externs: inlined bodies call them
    pkts = frames(100, 3)
    for frame in pkts + pkts:
        assert both.process(1, frame) == none.process(1, frame)
    assert both.caches.ingress.hits > 0
    rebuilds = both.fast.rebuilds
    for sw in (both, none):
        sw.cli("table_clear RoceIngress.dscp_to_tc")
    for frame in pkts:
        assert both.process(1, frame) == none.process(1, frame)
    assert both.fast.rebuilds == rebuilds + 1


def ecmp(fast: str, mp: pytest.MonkeyPatch) -> Switch:
    """l3_ecmp.json: an LPM table on an action selector, a group of four members (10/8) and
    member 2 alone (11/8)."""
    mp.setenv("FABEMU_FASTMATCH", fast)
    sw = ecmp_switch()
    sw.cli("table_indirect_add ecmp 11.0.0.0/8 => 2")
    return sw


def test_selector_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """A selector table runs specialised (member picked by the same hash), follows group
    changes, and an emptied group falls back to Table.apply (counted as a miss)."""
    on, off = ecmp("1", monkeypatch), ecmp("0", monkeypatch)
    pkts = [
        ipv4_udp(src=0x0B000000 + i, dst=[0x0A000001, 0x0B000001, 0x0C000001][i % 3], sport=i)
        for i in range(60)
    ]
    steps = [
        "",
        "act_prof_remove_member_from_group ecmp_sel 1 0",
        *[f"act_prof_remove_member_from_group ecmp_sel {m} 0" for m in (0, 2, 3)],
    ]
    for step in steps:
        for sw in (on, off):
            if step:
                sw.cli(step)
        outs = [on.process(1, frame) for frame in pkts]
        assert outs == [off.process(1, frame) for frame in pkts]
    # 11/8 still on member 2 (port 3); 10/8's emptied group misses: egress_spec stays 0
    assert {port for out in outs for port, _ in out} == {0, 3}
    table = on.tables["MyIngress.ecmp"]
    assert table.empty_group_misses == off.tables["MyIngress.ecmp"].empty_group_misses > 0
    assert on.fast is not None and on.fast.rebuilds == len(steps)


def test_unknown_control_flow_is_left_alone(roce) -> None:
    """A program whose namespace lacks a node's key function runs as compiled (no crash)."""
    program = CompiledProgram(roce[0])
    start = program.ingress
    for name in [n for n in program.cg.ns if n.startswith("key_")]:
        del program.cg.ns[name]
    assert attach(program) is None
    assert program.ingress is start  # untouched


def _state(sw: Switch) -> tuple:
    """Every register and counter of ``sw`` (what inlined actions must update alike)."""
    regs = tuple((n, tuple(r.values)) for n, r in sorted(sw.registers.items()))
    ctrs = tuple((n, tuple(c.packets), tuple(c.bytes)) for n, c in sorted(sw.counters.items()))
    return regs, ctrs


def test_inlined_actions_change_nothing(roce, monkeypatch: pytest.MonkeyPatch) -> None:
    """FASTACTIONS (actions inlined into the fused nodes) vs FASTMATCH alone vs neither on
    roce_fabric.p4: the same frames out and the same registers and counters; the fused
    nodes test action identities (``a is act_N``) only when inlining."""
    program, commands = roce
    monkeypatch.setenv("FABEMU_FASTACTIONS", "1")
    inline = leaf(program, commands, "1", monkeypatch)
    monkeypatch.setenv("FABEMU_FASTACTIONS", "0")
    called = leaf(program, commands, "1", monkeypatch)
    plain = leaf(program, commands, "0", monkeypatch)
    assert inline.fast is not None and inline.fast.inline
    assert called.fast is not None and not called.fast.inline and plain.fast is None
    for frame in frames(300, 4):
        out = inline.process(1, frame)
        assert out == called.process(1, frame) == plain.process(1, frame)
    assert _state(inline) == _state(called) == _state(plain)
    assert inline.fast.plain  # counters and registers were updated in place, not called
    assert any(sum(packets) for _, packets, _ in _state(plain)[1])  # counters did count

    def tests_actions(sw: Switch) -> bool:
        codes = [sw.fast.ns[n].__code__ for n in sw.fast.starts]  # type: ignore[union-attr]
        return any(name.startswith("act_") for c in codes for name in c.co_names)

    assert tests_actions(inline) and not tests_actions(called)


def test_inlined_exit_ends_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyless table whose default action exits, inlined: the next table never runs."""
    from .bmv2json import Program, assign, eth_ipv4_udp, fld, hexv, prim

    p = Program()
    eth_ipv4_udp(p)
    port = fld("standard_metadata", "egress_spec")
    out1 = p.action("out1", [], [assign(port, hexv(1))])
    stop = p.action("stop", [], [assign(port, hexv(2)), prim("exit")])
    out3 = p.action("out3", [], [assign(port, hexv(3))])
    p.table(0, "first", [], [out1], out1, base_next="gate")
    p.table(0, "gate", [], [stop, out3], stop, base_next="last")
    p.table(0, "last", [], [out3], out3)
    ports = {}
    for inline in ("1", "0"):
        monkeypatch.setenv("FABEMU_FASTACTIONS", inline)
        sw = Switch(p.doc, tm=FifoTM(lambda: 0))
        ports[inline] = [port for port, _ in sw.process(0, ipv4_udp())]
        sw.cli("table_set_default gate out3")  # no exit now: "last" runs
        ports[inline] += [port for port, _ in sw.process(0, ipv4_udp())]
    assert ports["1"] == ports["0"] == [2, 3]
