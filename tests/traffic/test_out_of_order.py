"""Out-of-order placement (``ooo_window``): what IB HCAs do under adaptive routing.

Adaptive routing sprays one QP's packets over paths of unequal delay, so they arrive out of
order. A strict go-back-N receiver NAKs every gap and the sender resends the window; a
receiver that places packets ahead of the expected PSN completes the message once the gap
fills, with no NAK and no retransmission.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.traffic.rnic import Rnic, RnicConfig

from .helpers import DATA_OPS, opcode_of, pair
from .netsim import Sim, Wire


def _reordering(sim: Sim, wire: Wire, late: set[int], extra_ns: int) -> None:
    """Delay the data frames whose index (from a) is in ``late`` by ``extra_ns``."""
    seen = {"n": 0}

    def send(src: Rnic, dst: Rnic, frame: bytes, t: int) -> None:
        wire.log.append((t, src.name, frame))
        delay = wire.delay
        if src.name == "a" and opcode_of(frame) in DATA_OPS:
            if seen["n"] in late:
                delay += extra_ns
            seen["n"] += 1
        sim.deliver(dst, frame, t + delay)

    wire._send = send  # type: ignore[method-assign]


def _transfer(window: int, late: set[int], n: int = 128 * 1024) -> tuple[Rnic, Rnic]:
    cfg = RnicConfig(admission=False, ooo_window=window, rto_ns=50_000_000)
    sim, wire, a, b, ca, cb = pair(cfg)
    _reordering(sim, wire, late, extra_ns=30_000)  # ~3.5 frame times at 10 Gb/s
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert [(c.kind, c.nbytes) for c in b.completions] == [("recv", n)]
    assert b.counters.rx_payload_bytes == n  # exactly once, whatever the order
    return a, b


def test_strict_receiver_naks_every_reordering() -> None:
    a, b = _transfer(0, {5, 40, 77})
    assert b.counters.naks_sent >= 3 and a.counters.retransmitted_pkts > 0
    assert b.counters.out_of_order_placed == 0


def test_ooo_receiver_places_ahead_without_naks() -> None:
    a, b = _transfer(64, {5, 40, 77})
    assert b.counters.naks_sent == 0 and a.counters.retransmitted_pkts == 0
    assert b.counters.out_of_order_placed >= 3
    assert b.counters.out_of_sequence_dropped == 0


def test_a_gap_wider_than_the_window_still_goes_back_n() -> None:
    a, b = _transfer(2, {5})  # 3+ packets overtake the late one: beyond a window of 2
    assert b.counters.naks_sent >= 1 and a.counters.retransmitted_pkts > 0


@settings(max_examples=25)
@given(late=st.sets(st.integers(0, 127), max_size=20))
def test_any_reordering_within_the_window_is_delivered_once(late: set[int]) -> None:
    a, b = _transfer(256, late)
    assert a.counters.retransmitted_pkts == 0 and b.counters.naks_sent == 0
    assert b.counters.duplicates_received == 0
