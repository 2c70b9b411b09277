"""Link failure mid-run: frames lost on the wire are counted, the control plane's repair
(applied through switch_cli) moves the flow, the workload completes, counters agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.control.render import command_lines
from emulator.runtime.virtual.runtime import VirtualRuntime

from .vt_fabric import META, assert_conserved, config

SIZE = 256 * 1024
WORK = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]], "size_bytes": SIZE}
FAIL_AT, REPAIR_AT, RESTORE_AT = 20_000_000, 21_000_000, 150_000_000
RNIC = {"rto_ns": 30_000_000}  # explicit: the tests must not depend on the default RTO
#: seed 2's QPNs put one flow on each spine, and the other flow's ACK/CTS path avoids ctsw0
SEED = 2


def _apply(rt: VirtualRuntime, diffs: dict[str, str]) -> None:
    for switch, text in diffs.items():
        for line in command_lines(text):
            rt.switch_cli(switch, line)


def test_failure_with_repair_completes_and_counts_losses() -> None:
    cfg, ctl = config("two_rack_2spine", rnic=RNIC, seed=SEED)
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(WORK)
        rt.schedule(FAIL_AT, lambda: rt.fail_link("rtsw0", "ctsw0"))
        rt.schedule(REPAIR_AT, lambda: _apply(rt, ctl.fail_link("rtsw0", "ctsw0")))
        rt.schedule(RESTORE_AT, lambda: rt.restore_link("rtsw0", "ctsw0"))
        rt.schedule(RESTORE_AT, lambda: _apply(rt, ctl.restore_link("rtsw0", "ctsw0")))
        assert rt.run(10**10) is True
        r = rt.result(META)
    assert r.meta.end_ns > RESTORE_AT
    assert [f.bytes for f in r.flows] == [SIZE, SIZE]
    moved = [f for f in r.flows if len(f.uplinks) == 2]
    assert len(moved) == 1 and moved[0].uplinks == ["rtsw0:3", "rtsw0:4"]  # ctsw0, then ctsw1
    lost = sum(c["tx_errors"] for c in r.switches.values())
    assert lost > 0 and r.totals.drops == lost  # only the failed link lost frames
    assert r.totals.retransmissions > 0
    assert_conserved(r)
    assert r.events == [
        f"t={FAIL_AT} fail_link rtsw0 ctsw0 (1 link(s))",
        f"t={RESTORE_AT} restore_link rtsw0 ctsw0 (1 link(s))",
    ]
    link = next(ln for ln in r.links if ln.name == "rtsw0:3->ctsw0:1")
    dead = [
        u for t, u in zip(link.t_ns, link.utilisation) if REPAIR_AT + 1_000_000 < t < RESTORE_AT
    ]
    assert dead and max(dead) == 0.0  # routed around while down
    assert max(link.utilisation[: FAIL_AT // 1_000_000]) > 0.5  # busy before the failure


def test_failure_without_repair_leaves_a_partial_result() -> None:
    cfg, _ = config("two_rack_2spine", rnic=RNIC, seed=SEED)
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(WORK)
        rt.schedule(FAIL_AT, lambda: rt.fail_link("rtsw0", "ctsw0"))
        assert rt.run(400_000_000) is False
        r = rt.result(META)
    assert r.meta.complete is False and "not done" in (r.meta.incomplete_reason or "")
    assert r.meta.end_ns == 400_000_000
    done = [f for f in r.flows if f.bytes == SIZE]
    assert len(done) == 1 and done[0].uplinks == ["rtsw0:4"]  # the flow on ctsw1 finished
    assert r.totals.drops > 0 and r.totals.retransmissions > 0
    assert_conserved(r)


LINKS = [("rtsw0", "ctsw0"), ("rtsw0", "ctsw1"), ("rtsw1", "ctsw0"), ("rtsw1", "ctsw1"),
         ("h0", "rtsw0"), ("h3", "rtsw1")]  # fmt: skip


@settings(max_examples=6, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(LINKS), st.integers(0, 60), st.integers(1, 40)),
        min_size=1,
        max_size=4,
    )
)
def test_random_outages_without_repair_keep_every_count_consistent(outages) -> None:
    """Links go down and come back (ms) with no repair: RNICs retransmit through the outage,
    every workload still completes, and losses, conservation and events agree."""
    cfg, _ = config("two_rack_2spine", rnic=RNIC, seed=SEED)
    work = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h3", "h1"]], "size_bytes": 32768}
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(work)
        for (a, b), start_ms, length_ms in outages:
            rt.schedule(start_ms * 1_000_000, lambda a=a, b=b: rt.fail_link(a, b))
            rt.schedule((start_ms + length_ms) * 1_000_000, lambda a=a, b=b: rt.restore_link(a, b))
        assert rt.run(10 * 10**9) is True
        r = rt.result(META)
        lost = sum(ld.dropped for ld in rt.links)
    assert [f.bytes for f in r.flows] == [32768, 32768]
    assert r.totals.drops == lost
    assert_conserved(r)
    times = [t * 1_000_000 for _, s, n in outages for t in (s, s + n)]
    end = r.meta.end_ns
    assert sum(t < end for t in times) <= len(r.events) <= sum(t <= end for t in times)


def test_failing_parallel_links_takes_all_of_them_down() -> None:
    """Leaf-spine pairs with 2 parallel links (4 uplinks, 2 spines): fail_link downs both."""
    from emulator.topology import LinkSpec, TopologySpec, resolve

    link = LinkSpec(rate_bps=10_000_000, delay_ns=1000)
    spec = TopologySpec(name="parallel", racks=2, gpus_per_rack=2, spines=2,
                        uplinks_per_leaf=4, radix=16, host_link=link, fabric_link=link)  # fmt: skip
    cfg, ctl = config(resolve(spec), rnic=RNIC)
    work = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]], "size_bytes": 131072,
            "num_qps": 4}  # fmt: skip
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(work)
        rt.schedule(10_000_000, lambda: rt.fail_link("rtsw0", "ctsw0"))
        rt.schedule(11_000_000, lambda: _apply(rt, ctl.fail_link("rtsw0", "ctsw0")))
        assert rt.run(10**10)
        r = rt.result(META)
    assert r.events == ["t=10000000 fail_link rtsw0 ctsw0 (2 link(s))"]
    assert sum(f.bytes for f in r.flows) == 2 * 131072
    to_ctsw0 = [ln for ln in r.links if ln.src == "rtsw0" and ln.dst == "ctsw0"]
    assert len(to_ctsw0) == 2
    for ln in to_ctsw0:
        after = [u for t, u in zip(ln.t_ns, ln.utilisation) if t > 12_000_000]
        assert after and max(after) == 0.0
    assert_conserved(r)
