"""The decision cache (emulator/target/flowcache.py): hits, flushes, lazy inputs, opt-out."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.target import flowcache
from emulator.target.flowlazy import Lazy
from emulator.target.switch import Switch

from .fakes import FifoTM, ipv4_udp

PROGRAM = Path(__file__).parent / "programs" / "l3_ecmp.json"


def ecmp_switch(cache: bool | None = True) -> Switch:
    sw = Switch(str(PROGRAM), tm=FifoTM(lambda: 0), flow_cache=cache)
    for port in (1, 2, 3, 4):
        sw.cli(
            "act_prof_create_member MyIngress.ecmp_sel MyIngress.set_nhop "
            f"00:00:00:00:00:0{port} {port}"
        )
    sw.cli("act_prof_create_group ecmp_sel")
    for m in range(4):
        sw.cli(f"act_prof_add_member_to_group ecmp_sel {m} 0")
    sw.cli("table_indirect_add_with_group ecmp 10.0.0.0/8 => 0")
    return sw


def frames(n: int) -> list[bytes]:
    return [
        ipv4_udp(src=0x0B000000 + i % 7, dst=0x0A000001 + i % 5, sport=1000 + i % 3, ttl=9)
        for i in range(n)
    ]


def test_same_output_as_uncached_and_hits() -> None:
    """Many packets over few flows: identical frames out, and most of them cache hits."""
    on, off = ecmp_switch(True), ecmp_switch(False)
    assert on.caches is not None and off.caches is None
    for frame in frames(300):
        assert on.process(1, frame) == off.process(1, frame)
    stats = on.caches.stats()
    assert stats["ingress_hits"] == 300 - 7 * 5 * 3  # one miss per distinct flow
    assert stats["ingress_misses"] + stats["ingress_hits"] == 300


def test_control_plane_change_flushes() -> None:
    """After a table change the same packet takes the new path, not the cached one."""
    sw = ecmp_switch()
    frame = ipv4_udp(dst=0x0B000001, ttl=9)
    before = sw.process(1, frame)  # no route for 11/8 yet
    assert sw.process(1, frame) == before
    assert [port for port, _ in before] != [3]
    assert sw.caches is not None and sw.caches.ingress.hits >= 1
    sw.cli("table_indirect_add ecmp 11.0.0.0/8 => 2")  # member 2 -> port 3
    [(port, _)] = sw.process(1, frame)
    assert port == 3


def test_direct_table_api_flushes() -> None:
    """Changes made without the CLI (as the STF runner does) flush the cache too."""
    sw = ecmp_switch()
    frame = ipv4_udp(dst=0x0A000001, ttl=9)
    [(port, _)] = sw.process(1, frame)
    table = sw.tables["MyIngress.ecmp"]
    for handle in list(table.entries):
        table.delete(handle)
    assert [p for p, _ in sw.process(1, frame)] != [port]


def test_env_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABEMU_FLOWCACHE", "0")
    assert ecmp_switch(None).caches is None
    monkeypatch.setenv("FABEMU_FLOWCACHE", "1")
    assert ecmp_switch(None).caches is not None


def test_unknown_objects_make_a_program_uncacheable() -> None:
    sw = ecmp_switch(False)
    ns = sw.program.cg.ns
    assert flowcache.uncacheable_reason(ns) is None
    ns["_o999"] = print  # e.g. a log sink the recorder cannot watch
    assert "_o999" in str(flowcache.uncacheable_reason(ns))
    del ns["_o999"]


class _Branches:
    def __init__(self) -> None:
        self.seen: list[tuple[object, ...]] = []

    def branch(self, probe: object, ops: object, cmp: object, value: object) -> None:
        self.seen.append((probe, ops, cmp, value))


def test_lazy_masks_stay_lazy_comparisons_branch_other_uses_key() -> None:
    rec = _Branches()
    x = Lazy(0x1234, ("slot", 7), 0x1234, (), rec)
    y = (x & 0xFF) + 1
    assert type(y) is Lazy and int.__pos__(y) == 0x35
    assert rec.seen == []
    assert (y >= 0x30) is True
    assert rec.seen[-1] == (("slot", 7), (("and", 0xFF), ("add", 1)), ("__ge__", 0x30), True)
    assert hash((x,)) == hash((0x1234,))  # a table key: keyed on the full value
    assert rec.seen[-1] == (("slot", 7), (), None, 0x1234)
    assert 5 - x == 5 - 0x1234
