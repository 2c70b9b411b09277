"""Credit-based flow control per VL: lossless 8:1 incast, measured sender stalls."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.ib.credits import CREDIT_BYTES, CreditConfig, LinkCredits, blocks
from emulator.ib.fabric import IbFabric, IbFabricSettings, build_ib_fabric
from emulator.plan.spec import RunOptions, RunPlan
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.topology import load_clos, resolve
from emulator.topology.resolve import ResolvedTopology

SENDERS = [f"h{i}" for i in range(4, 12)]  # racks 1 and 2
SIZE = 65536


@given(st.integers(1, 10_000))
def test_blocks_round_up_to_64_bytes(length: int) -> None:
    n = blocks(length)
    assert (n - 1) * CREDIT_BYTES < length <= n * CREDIT_BYTES


def test_link_credits_account_and_stall_time() -> None:
    lc = LinkCredits("l", limit=4)
    assert lc.fits(0, 4, now=0)
    lc.consume(0, 4)
    assert not lc.fits(0, 1, now=100)  # out of credits: stalled from t=100
    assert not lc.fits(0, 1, now=150)
    assert lc.fits(1, 4, now=150)  # another VL has its own credits
    lc.release(0, 2)
    assert lc.fits(0, 1, now=400)
    assert (lc.stalls, lc.stalled_ns, lc.max_used) == (1, 300, 4)


def test_buffer_must_hold_a_packet() -> None:
    with pytest.raises(Exception, match="4 KiB"):
        CreditConfig(1024)


@cache
def _fabric() -> tuple[ResolvedTopology, IbFabric]:
    topo = resolve(load_clos("calib_4x4"))
    return topo, build_ib_fabric(topo, IbFabricSettings())


def _incast(credits: bool) -> VirtualRuntime:
    topo, fab = _fabric()
    cfg = RunPlan(
        topo, {s.name: fab.program for s in topo.switches}, fab.ops, fabric="ib",
        framing=fab.framing, credits=fab.credits if credits else None,
        options=RunOptions(pfc=False),
    )  # fmt: skip
    rt = VirtualRuntime(cfg)
    rt.start()
    rt.add_workload({"kind": "incast", "senders": SENDERS, "receiver": "h0", "size_bytes": SIZE})
    rt.run(3 * 10**9)
    return rt


def _drops(rt: VirtualRuntime) -> int:
    return sum(ld.dropped for ld in rt.links) + sum(
        q.dropped for b in rt.boxes.values() for q in b.tm.stats().values()
    )


@pytest.mark.ib
def test_incast_8_to_1_is_lossless_and_senders_stall() -> None:
    rt = _incast(credits=True)
    assert rt.all_done()
    assert _drops(rt) == 0
    assert sum(h.nic.counters.retransmitted_pkts for h in rt.hosts.values()) == 0
    end = rt.engine.now
    # the receiver's link is the bottleneck: 8 x 64 KiB at 10 Mb/s take >= 419 ms
    assert end >= 8 * SIZE * 8 / 10e6 * 1e9
    stats = rt.credits.stats()
    for s in SENDERS:  # each sender gets ~1/8 of the link: stalled most of the time
        st_ = next(v for k, v in stats.items() if k.startswith(f"{s}:"))
        assert st_["stalls"] >= 1
        assert st_["stalled_ns"] > 0.5 * end
        assert st_["max_used"] <= st_["limit"]
    assert all(v["max_used"] <= v["limit"] for v in stats.values())


@pytest.mark.ib
def test_without_credits_the_same_incast_drops() -> None:
    assert _drops(_incast(credits=False)) > 0


@pytest.mark.ib
def test_unfinished_run_conserves_packets_held_for_credits() -> None:
    """Cut the incast short: frames waiting in HCA FIFOs count as in flight, not lost."""
    from emulator.measure.results import RunMeta

    topo, fab = _fabric()
    cfg = RunPlan(
        topo, {s.name: fab.program for s in topo.switches}, fab.ops, fabric="ib",
        framing=fab.framing, credits=fab.credits, options=RunOptions(pfc=False),
    )  # fmt: skip
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload({"kind": "incast", "senders": SENDERS, "receiver": "h0",
                         "size_bytes": SIZE})  # fmt: skip
        assert not rt.run(100_000_000)
        assert rt.credits.held_frames() > 0
        result = rt.result(RunMeta(scenario="cut", runtime="virtual", target="builtin", seed=1))
    assert result.conservation is not None and result.conservation.ok
