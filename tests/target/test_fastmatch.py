"""Specialised table nodes (emulator/target/fastmatch.py): same packets out, rebuilt on change."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.fastmatch import specialisable
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve

from .fakes import FifoTM, ipv4_udp

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
