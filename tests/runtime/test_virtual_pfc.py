"""8:1 incast on ai_zone_small: lossless with PFC (pauses at every tier), drops without."""

from __future__ import annotations

from emulator.control import FabricConfig, PfcConfig
from emulator.vocab import TC_BULK

from .vt_fabric import assert_conserved, config, run

SENDERS = [f"h{i}" for i in range(4, 12)]  # racks 1 and 2
SIZE = 32 * 1024
WORK = {"kind": "incast", "senders": SENDERS, "receiver": "h0", "size_bytes": SIZE}


def test_incast_with_pfc_pauses_and_loses_nothing() -> None:
    fabric = FabricConfig(pfc=PfcConfig(enabled=True, xoff=12, xon=4), queue_depth=48)
    # an RTO longer than any pause, so senders never time out while paused
    cfg, _ = config("ai_zone_small", fabric, pfc=True, rnic={"rto_ns": 10**9})
    done, r, _ = run(cfg, WORK)
    assert done
    assert sum(f.bytes for f in r.flows) == len(SENDERS) * SIZE
    assert r.totals.drops == 0 and r.totals.retransmissions == 0
    assert r.totals.pause_frames > 0 and r.totals.pause_frames == len(r.pauses)
    assert r.totals.pause_frames == sum(c["pfc_tx"] for c in r.switches.values())
    # the program's XOFF/XONs plus the MAC's timer refreshes of pauses still wanted
    refreshes = sum(c["pfc_refreshes"] for c in r.switches.values())
    assert refreshes > 0
    assert r.totals.pause_frames == sum(c["p4_pfc_tx"] for c in r.switches.values()) + refreshes
    assert r.totals.pause_frames_hosts > 0  # senders honoured pauses from their leaves
    assert sum(c["paused_ns"] for c in r.switches.values()) > 0  # spines' queues were paused
    assert {p.priority for p in r.pauses} == {TC_BULK}
    xoff = [p for p in r.pauses if p.quanta > 0]
    assert xoff and {p.quanta for p in xoff} == {1000}
    tiers = {p.node[:4] for p in r.pauses}
    assert tiers == {"rtsw", "ctsw"}  # back-pressure propagated from leaf to spines
    assert r.pauses == sorted(r.pauses, key=lambda p: p.t_ns)
    assert all(q.dropped == 0 and q.max_depth <= 48 for q in r.queues)
    hot = next(q for q in r.queues if (q.switch, q.port, q.priority) == ("rtsw0", 1, TC_BULK))
    assert hot.max_depth >= 12 and max(hot.depth) > 0
    assert_conserved(r)


def test_incast_without_pfc_drops_and_recovers() -> None:
    fabric = FabricConfig(pfc=PfcConfig(enabled=False), queue_depth=16)
    cfg, _ = config("ai_zone_small", fabric, pfc=False, rnic={"rto_ns": 50_000_000})
    done, r, _ = run(cfg, WORK)
    assert done  # go-back-N recovers every loss
    assert sum(f.bytes for f in r.flows) == len(SENDERS) * SIZE
    assert r.totals.pause_frames == 0 and not r.pauses
    assert r.totals.drops > 0 and r.totals.retransmissions > 0
    tail = sum(c["queue_dropped"] for c in r.switches.values())
    assert tail == r.totals.drops  # every loss is a tail drop in some queue
    assert max(q.max_depth for q in r.queues) == 16
    assert_conserved(r)


def test_tm_generated_pfc_frames_go_out_ahead_of_data() -> None:
    """The target's own PFC generator (tm.set_pfc_thresholds, no P4 XOFF) also works.

    Its thresholds count per *ingress* port, so 4 spines x (XOFF 8 + frames in flight)
    must fit in the 48-packet queue towards the receiver.
    """
    from emulator.runtime.virtual.runtime import VirtualRuntime

    from .vt_fabric import META

    fabric = FabricConfig(pfc=PfcConfig(enabled=False), queue_depth=48)
    cfg, _ = config("ai_zone_small", fabric, pfc=True, rnic={"rto_ns": 10**9})
    with VirtualRuntime(cfg) as rt:
        rt.start()
        for box in rt.boxes.values():
            for port in box.tx:
                box.tm.set_pfc_thresholds(port, 8, 2, 1000)
        rt.add_workload(WORK)
        assert rt.run(10**10)
        r = rt.result(META)
    assert sum(f.bytes for f in r.flows) == len(SENDERS) * SIZE
    assert r.totals.drops == 0 and r.totals.pause_frames > 0
    assert sum(c.get("p4_pfc_tx", 0) for c in r.switches.values()) == 0  # not the program
    assert r.totals.pause_frames_hosts > 0
    assert_conserved(r)


def test_ecn_marks_reach_the_receiver_and_dcqcn_answers() -> None:
    fabric = FabricConfig(
        pfc=PfcConfig(enabled=True, xoff=12, xon=4), queue_depth=48, ecn_thresholds=((TC_BULK, 4),)
    )
    cfg, _ = config("ai_zone_small", fabric, rnic={"rto_ns": 10**9, "dcqcn": True})
    done, r, rt = run(cfg, WORK)
    assert done and r.totals.drops == 0
    marks = r.totals.ecn_marks
    assert marks > 0 and marks == sum(c["p4_ecn_marks"] for c in r.switches.values())
    assert 0 < rt.ledger.ce_delivered <= marks  # a frame may be marked at several hops
    assert r.hosts["h0"]["cnps_sent"] > 0
    assert sum(r.hosts[h]["cnps_received"] for h in SENDERS) > 0
    assert_conserved(r)
