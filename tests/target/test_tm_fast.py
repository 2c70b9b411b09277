"""FastTrafficManager (FASTHOP) answers exactly as TrafficManager, operation by operation."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.tm import TrafficManager
from emulator.target.tm_fast import FastTrafficManager
from emulator.vocab.pfc import encode_pfc

PORTS = (1, 2, 3)
PRIOS = 4


class Clock:
    """A settable ns clock."""

    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


class Log:
    """A queue observer writing down what it is told."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def enqueued(self, port: int, priority: int, depth: int) -> None:
        self.seen.append(("enq", port, priority, depth))

    def tail_dropped(self, port: int, priority: int, item: object) -> None:
        self.seen.append(("drop", port, priority, item))

    def dequeued(self, port: int, priority: int, depth: int) -> None:
        self.seen.append(("deq", port, priority, depth))


def make(cls: type[TrafficManager], watchdog: int | None) -> tuple[TrafficManager, Clock, Log]:
    """A TM of ``cls`` with PFC honoured and generated on every port, small queues."""
    clock, log = Clock(), Log()
    tm = cls(clock, PRIOS)
    tm.observer = log
    for p in PORTS:
        tm.add_port(p, 1e9)
        tm.set_pfc(p, True)
        tm.set_pfc_thresholds(p, 3, 1, 50)
    tm.set_queue_depth(5)
    tm.set_queue_rate(2e6, port=2)
    tm.pfc.set_watchdog(watchdog)
    return tm, clock, log


OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("enq"),
            st.sampled_from(PORTS),
            st.integers(0, PRIOS),  # PRIOS itself is out of range: dropped
            st.integers(60, 1500),
            st.sampled_from((None, *PORTS)),
        ),
        st.tuples(st.just("deq"), st.sampled_from(PORTS)),
        st.tuples(st.just("ready"), st.sampled_from(PORTS)),
        st.tuples(
            st.just("pause"), st.sampled_from(PORTS), st.integers(0, 15), st.integers(0, 400)
        ),
        st.tuples(st.just("tick"), st.integers(0, 3000)),
    ),
    max_size=120,
)


def run(cls: type[TrafficManager], ops: list[tuple[Any, ...]], watchdog: int | None) -> Any:
    """Every answer, observation, PFC frame and counter of ``ops`` applied to a ``cls``."""
    tm, clock, log = make(cls, watchdog)
    out: list[Any] = []
    for i, op in enumerate(ops):
        kind = op[0]
        if kind == "enq":
            out.append(tm.enqueue(op[1], op[2], f"item{i}", op[3], ingress_port=op[4]))
        elif kind == "deq":
            out.append(tm.dequeue(op[1]))
        elif kind == "ready":
            out.append(tm.ready_time(op[1]))
        elif kind == "pause":
            vec = [op[3] if op[2] >> c & 1 else 0 for c in range(8)]
            out.append(tm.on_pfc_frame(op[1], encode_pfc(b"\x02" * 6, op[2], vec)))
        else:
            clock.now += op[1]
        for p in PORTS:
            while (frame := tm.pop_control_frame(p)) is not None:
                out.append((p, frame))
    return out, log.seen, tm.stats()


@settings(max_examples=300, deadline=None)
@given(OPS, st.sampled_from((None, 500, 5000)))
def test_fast_tm_equals_tm(ops: list[tuple[Any, ...]], watchdog: int | None) -> None:
    assert run(FastTrafficManager, ops, watchdog) == run(TrafficManager, ops, watchdog)


def test_the_ops_reach_paused_and_rate_limited_queues() -> None:
    """The comparison is not vacuous: a pause holds a queue back, then it drains."""
    ops: list[tuple[Any, ...]] = [
        ("enq", 1, 0, 100, None),
        ("pause", 1, 1, 300),
        ("ready", 1),
        ("deq", 1),
        ("tick", 100_000),
        ("ready", 1),  # 300 quanta at 1 Gb/s: paused until 153.6 us
        ("tick", 100_000),
        ("ready", 1),
        ("deq", 1),
    ]
    out, seen, _ = run(FastTrafficManager, ops, None)
    assert out[1] is True and out[2] > 0 and out[3] is None
    assert out[4] == 153_600 and out[5] == 200_000 and out[6].item == "item0"
    assert ("deq", 1, 0, 0) in seen
    assert (out, seen) == run(TrafficManager, ops, None)[:2]
