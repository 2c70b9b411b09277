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


def make(
    cls: type[TrafficManager], watchdog: int | None, generate: bool = True
) -> tuple[TrafficManager, Clock, Log]:
    """A TM of ``cls`` with PFC honoured on every port (and generated, if ``generate``),
    small queues."""
    clock, log = Clock(), Log()
    tm = cls(clock, PRIOS)
    tm.observer = log
    for p in PORTS:
        tm.add_port(p, 1e9)
        tm.set_pfc(p, True)
        if generate:
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
        st.tuples(st.just("take"), st.sampled_from(PORTS)),
        st.tuples(st.just("thr"), st.sampled_from(PORTS), st.integers(1, 4)),
    ),
    max_size=120,
)


def take(tm: TrafficManager, port: int) -> Any:
    """``FastTrafficManager.take``, or what it stands for: ``ready_time`` then, when that is
    now, ``dequeue`` (the released frame's fields as a tuple)."""
    if isinstance(tm, FastTrafficManager):
        got = tm.take(port)
        if got is None or isinstance(got, int):
            return got
        fields = ("item", "priority", "enq_timestamp_ns", "enq_qdepth", "deq_qdepth")
        return (*(getattr(got, f) for f in fields), got.deq_timedelta_ns)
    ready = tm.ready_time(port)
    if ready is None or ready > tm._clock():
        return ready
    deq = tm.dequeue(port)
    return None if deq is None else tuple(deq)


def run(
    cls: type[TrafficManager],
    ops: list[tuple[Any, ...]],
    watchdog: int | None,
    generate: bool = True,
) -> Any:
    """Every answer, observation, PFC frame and counter of ``ops`` applied to a ``cls``
    (PFC generation's occupancy too)."""
    tm, clock, log = make(cls, watchdog, generate)
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
        elif kind == "take":
            out.append(take(tm, op[1]))
        elif kind == "thr":
            tm.set_pfc_thresholds(op[1], op[2], 0, 50)
        else:
            clock.now += op[1]
        for p in PORTS:
            while (frame := tm.pop_control_frame(p)) is not None:
                out.append((p, frame))
    occupancy = [tm.pfc_gen.occupancy(p, c) for p in PORTS for c in range(PRIOS)]
    return out, log.seen, tm.stats(), occupancy


@settings(max_examples=300, deadline=None)
@given(OPS, st.sampled_from((None, 500, 5000)), st.booleans())
def test_fast_tm_equals_tm(ops: list[tuple[Any, ...]], watchdog: int | None, gen: bool) -> None:
    """Same answers, observations, PFC frames, counters and occupancy, op by op; PFC
    generation configured from the start or only by a ``thr`` op, on queued frames."""
    assert run(FastTrafficManager, ops, watchdog, gen) == run(TrafficManager, ops, watchdog, gen)


def test_occupancy_counted_from_queued_frames_when_generation_starts() -> None:
    """The fast TM counts PFC occupancy only once generation is configured: then it counts
    the frames already queued, as the base class (which always counts) knows them."""
    ops: list[tuple[Any, ...]] = [
        ("enq", 1, 2, 100, 3),
        ("enq", 2, 2, 100, 3),
        ("enq", 1, 0, 100, None),
        ("deq", 2),
        ("thr", 3, 1),
        ("enq", 1, 2, 100, 3),
        ("take", 1),
    ]
    fast = run(FastTrafficManager, ops, None, False)
    # port 3, class 2: one frame from it left (counted when thresholds came: else 1 - 1 = 0)
    assert fast[3][2 * PRIOS + 2] == 1
    assert fast == run(TrafficManager, ops, None, False)


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
    out, seen, _, _ = run(FastTrafficManager, ops, None)
    assert out[1] is True and out[2] > 0 and out[3] is None
    assert out[4] == 153_600 and out[5] == 200_000 and out[6].item == "item0"
    assert ("deq", 1, 0, 0) in seen
    assert (out, seen) == run(TrafficManager, ops, None)[:2]
