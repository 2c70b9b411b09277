"""Every XOFF the fabric program sends is followed by an XON once its queue drains.

Regression for the lost XON seen in Mininet (fat_flow_collision, ~1 run in 6): the old
program released at most one paused neighbour per dequeue below XON (this packet's
ingress port, else a port under a cursor), so a neighbour none of whose packets were
among the last dequeues could stay paused until its pause time expired.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import vocab
from emulator.control import FabricConfig, PfcConfig
from emulator.control.names import PFC_PAUSED, port_prio_index
from emulator.topology import load_clos, resolve

from .roce_frames import Flow, parse_pfc, roce_frame

XOFF, XON = 12, 4
MS = 1_000_000  # ns
SINK = "h0"


def _leaf(make_switch):
    """rtsw0 of two_rack_4spine: hosts h0-h3 on ports 1-4, spines on ports 5-8."""
    topo = resolve(load_clos("two_rack_4spine"))
    cfg = FabricConfig(pfc=PfcConfig(xoff=XOFF, xon=XON, quanta=1000), queue_depth=48)
    sw, _, clock = make_switch(topo, "rtsw0", cfg)
    return topo, sw, clock


def _send(sw, topo, port: int, count: int, psn0: int = 0) -> None:
    """``count`` RoCE packets to h0 arriving on ``port`` (a host or a spine)."""
    sink = topo.host(SINK)
    peer = next(p for p in topo.switch("rtsw0").ports if p.number == port)
    src = f"10.0.1.{port}" if peer.peer.startswith("ctsw") else topo.host(peer.peer).ip
    flow = Flow(src, sink.ip, 0xC000 + port, 0x100 + port)
    for i in range(count):
        sw.receive(port, roce_frame(flow, peer.mac, "02:00:00:00:00:99", psn=psn0 + i))


def _transmit(sw, clock, port: int, log: list[tuple[int, int]]) -> bool:
    """Send one frame from ``port`` if it has one; PFC frames go to ``log``."""
    t = sw.transmit_ready(port)
    if t is None:
        return False
    clock.now = max(clock.now, t)
    frame = sw.transmit(port)
    if frame is not None and (pfc := parse_pfc(frame)) is not None:
        log.append((port, pfc[1][vocab.TC_BULK]))
    return True


def _drain(sw, clock, ports: list[int], log: list[tuple[int, int]], limit: int = 2000) -> None:
    """Transmit until every port is empty (earliest-ready port first)."""
    for _ in range(limit):
        ready = [(t, p) for p in ports if (t := sw.transmit_ready(p)) is not None]
        if not ready:
            return
        _transmit(sw, clock, min(ready)[1], log)
    raise AssertionError("ports did not drain")


def _paused(sw, port: int) -> int:
    reply = sw.cli(f"register_read {PFC_PAUSED} {port_prio_index(port, vocab.TC_BULK)}")
    return int(reply.strip().rsplit("=", 1)[1])


def _assert_every_pause_resumed(sw, ports: list[int], log: list[tuple[int, int]]) -> None:
    """The last PFC frame to every neighbour is an XON and no pause is outstanding."""
    last = {}
    for port, quanta in log:
        last[port] = quanta
    assert all(q == 0 for q in last.values()), f"PFC frames (port, quanta): {log}"
    assert [p for p in ports if _paused(sw, p)] == []


def test_two_paused_senders_whose_last_packets_come_from_one_both_get_an_xon(
    make_switch,
) -> None:
    """h1 fills h0's queue to XOFF, then h2's in-flight packets arrive: both are paused.

    The last XON packets dequeued all came from h2, so h1's release cannot come from
    one of its own packets (the old program lost it: [(2, 1000), (3, 1000), (3, 0)]).
    """
    topo, sw, clock = _leaf(make_switch)
    sw.cli(f"set_queue_rate 1000 {topo.host(SINK).leaf_port}")
    h1, h2 = topo.host("h1").leaf_port, topo.host("h2").leaf_port
    _send(sw, topo, h1, XOFF)
    _send(sw, topo, h2, 6)
    ports = [p.number for p in topo.switch("rtsw0").ports]
    log: list[tuple[int, int]] = []
    _drain(sw, clock, ports, log)
    assert [p for p, q in log if q] == [h1, h2]  # both were paused, once
    assert sorted(p for p, q in log if q == 0) == [h1, h2]
    _assert_every_pause_resumed(sw, ports, log)


def test_more_paused_neighbours_than_xon_dequeues_are_all_released(make_switch) -> None:
    """7 neighbours paused by one queue; only XON = 4 dequeues are below XON.

    The first XON frame is cloned from the queue's own packet; each XON frame then
    releases the next waiter while the queue stays below XON.
    """
    topo, sw, clock = _leaf(make_switch)
    senders = [2, 3, 4, 5, 6, 7, 8]  # h1-h3 and the four spines
    _send(sw, topo, senders[0], XOFF)
    for port in senders[1:]:
        _send(sw, topo, port, 1)
    ports = [p.number for p in topo.switch("rtsw0").ports]
    log: list[tuple[int, int]] = []
    _drain(sw, clock, ports, log)
    assert sorted(p for p, q in log if q) == senders
    assert sorted(p for p, q in log if q == 0) == senders
    _assert_every_pause_resumed(sw, ports, log)


_PORTS = (2, 3, 4, 5, 6, 7, 8)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("rx"), st.sampled_from(_PORTS), st.integers(1, 8)),
        st.tuples(st.just("tx"), st.sampled_from((1, *_PORTS)), st.integers(1, 8)),
        st.tuples(st.just("wait"), st.just(0), st.integers(1, 30)),
    ),
    min_size=1,
    max_size=40,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_OPS)
def test_any_interleaving_of_arrivals_and_departures_ends_with_no_pause(
    make_switch, ops: list[tuple[str, int, int]]
) -> None:
    """Arrivals (ingress) and departures (egress) in any order, time jumps included."""
    topo, sw, clock = _leaf(make_switch)
    ports = [p.number for p in topo.switch("rtsw0").ports]
    log: list[tuple[int, int]] = []
    psn = dict.fromkeys(_PORTS, 0)
    for op, port, n in ops:
        if op == "rx":
            _send(sw, topo, port, n, psn[port])
            psn[port] += n
        elif op == "tx":
            for _ in range(n):
                _transmit(sw, clock, port, log)
        else:
            clock.now += n * MS  # refresh is 25.6 ms: long waits re-send XOFF
    _drain(sw, clock, ports, log)
    _assert_every_pause_resumed(sw, ports, log)
