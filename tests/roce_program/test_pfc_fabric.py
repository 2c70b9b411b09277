"""PFC across a leaf-spine fabric: pauses propagate hop by hop, nothing is dropped anywhere."""

from __future__ import annotations

from emulator import vocab
from emulator.control import FabricConfig, PfcConfig
from emulator.topology import resolve

from .roce_frames import Flow, incast_topology, parse_pfc, roce_frame

MS = 1_000_000


def _fabric(make_switch, pfc_on: bool, per_sender: int = 20) -> dict[str, int]:
    topo = resolve(incast_topology())
    cfg = FabricConfig(
        lb_mode="eecmp", pfc=PfcConfig(enabled=pfc_on, xoff=12, xon=4, quanta=1000), queue_depth=48
    )
    built = {s.name: make_switch(topo, s.name, cfg) for s in topo.switches}
    switches = {name: sw for name, (sw, _, _) in built.items()}
    clocks = [clock for _, _, clock in built.values()]
    for name, sw in switches.items():
        for port in topo.switch(name).ports:
            sw.tm.set_pfc(port.number, pfc_on)
    sink = topo.host("h0")
    switches["rtsw0"].cli(f"set_queue_rate 1000 {sink.leaf_port}")
    senders = [topo.host(f"h{i}") for i in range(9, 17)]  # rack 1 -> rack 0: 8:1 through spines
    next_send = {h.name: 0 for h in senders}
    left = {h.name: per_sender for h in senders}
    paused_until = {h.name: 0 for h in senders}
    now = 0
    delivered = host_pauses = 0
    ports = [(name, p.number) for name in switches for p in topo.switch(name).ports]
    for _ in range(50_000):
        events = [max(next_send[h.name], paused_until[h.name]) for h in senders if left[h.name]]
        events += [t for n, p in ports if (t := switches[n].transmit_ready(p)) is not None]
        if not events:
            break
        now = max(now, min(events))
        for c in clocks:
            c.now = now
        for h in senders:
            if left[h.name] and next_send[h.name] <= now and paused_until[h.name] <= now:
                flow = Flow(h.ip, sink.ip, 0xC000 + h.index, 0x100 + h.index)
                psn = per_sender - left[h.name]
                switches[h.leaf].receive(
                    h.leaf_port, roce_frame(flow, h.gateway_mac, h.mac, psn=psn)
                )
                left[h.name] -= 1
                next_send[h.name] = now + MS
        moved = True
        while moved:  # zero-delay links: deliver until nothing more is due now
            moved = False
            for name, port in ports:
                sw = switches[name]
                while (t := sw.transmit_ready(port)) is not None and t <= now:
                    frame = sw.transmit(port)
                    if frame is None:
                        continue
                    moved = True
                    peer, peer_port = topo.peer(name, port)
                    if peer in switches:
                        switches[peer].receive(peer_port, frame)
                    elif peer == sink.name:
                        delivered += 1
                    else:
                        pfc = parse_pfc(frame)
                        assert pfc is not None, f"unexpected frame to host {peer}"
                        host_pauses += 1
                        paused_until[peer] = now + pfc[1][vocab.TC_BULK] * 512 * 100  # ns, 10 Mb/s
    stats = {name: sw.tm.stats() for name, sw in switches.items()}
    return {
        "sent": 8 * per_sender - sum(left.values()),
        "delivered": delivered,
        "dropped": sum(sw.stats["tail_dropped"] for sw in switches.values()),
        "host_pauses": host_pauses,
        "spine_paused": sum(s.pause_frames for n in ("ctsw0", "ctsw1") for s in stats[n].values()),
    }


def test_pfc_propagates_from_leaf_to_spines_to_senders_without_loss(make_switch) -> None:
    r = _fabric(make_switch, pfc_on=True)
    assert r["sent"] == 160
    assert r["dropped"] == 0
    assert r["delivered"] == 160
    assert r["spine_paused"] > 0  # the spines' queues towards rtsw0 were paused by rtsw0
    assert r["host_pauses"] > 0  # and the congestion reached the senders through rtsw1


def test_the_same_fabric_without_pfc_drops(make_switch) -> None:
    r = _fabric(make_switch, pfc_on=False)
    assert r["sent"] == 160
    assert r["dropped"] > 0
    assert r["delivered"] == 160 - r["dropped"]
