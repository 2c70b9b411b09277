"""The lazy sampler gives exactly the eager sampler's series (hypothesis: any interleaving
of frames sent, frames queued/dequeued and samples taken)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.runtime.virtual.engine import Engine
from emulator.runtime.virtual.lazysample import LazySampler
from emulator.runtime.virtual.links import LinkDir
from emulator.runtime.virtual.measure import Ledger, Sampler
from emulator.runtime.virtual.nodes import QueueWatch
from emulator.target.tm import TrafficManager

LINKS, PORTS, PRIOS = 3, 2, 2

op = st.one_of(
    st.tuples(st.just("send"), st.integers(0, LINKS - 1), st.integers(60, 1500)),
    st.tuples(st.just("enq"), st.integers(0, PORTS - 1), st.integers(0, PRIOS - 1)),
    st.tuples(st.just("deq"), st.integers(0, PORTS - 1), st.just(0)),
    st.tuples(st.just("sample"), st.just(0), st.just(0)),
)
step = st.tuples(st.integers(0, 3000), op)  # (ns to advance, operation)


def fabric(lazy: bool) -> tuple[Engine, list[LinkDir], Any, Any]:
    """Links and one switch-like box (a TM and its queue watch) under a sampler."""
    engine = Engine()
    ledger = Ledger()
    links = [
        LinkDir(engine, ledger, "a", i, "b", i, kind="fabric", up=True, rate_bps=1e9, delay_ns=10)
        for i in range(LINKS)
    ]
    for link in links:
        link.deliver = lambda port, frame, t: None
    tm = TrafficManager(engine, PRIOS, serialize=False)
    for port in range(PORTS):
        tm.add_port(port)
    queues = QueueWatch(SimpleNamespace(tm=tm, is_copy=lambda item: False))  # type: ignore[arg-type]
    tm.observer = queues
    box = SimpleNamespace(name="sw", tm=tm, queues=queues)
    sampler = (LazySampler if lazy else Sampler)(links, [box])  # type: ignore[arg-type]
    return engine, links, tm, sampler


def play(lazy: bool, steps: list[tuple[int, tuple[str, int, int]]]) -> Any:
    engine, links, tm, sampler = fabric(lazy)
    for dt, (kind, a, b) in steps:
        engine.run(engine.now + dt)  # deliveries happen; the clock moves on
        t = engine.now
        if kind == "send":
            links[a].send(b"\x00" * 12 + b"\x08\x00" + b"\x00" * (b - 14), t)
        elif kind == "enq":
            tm.enqueue(a, b, object(), 100)
        elif kind == "deq":
            tm.dequeue(a)
        else:
            sampler.sample(t)
    sampler.sample(engine.now + 1)
    queues = {k: (list(t), list(d)) for k, (t, d) in sampler.queues.items()}
    return list(sampler.t_ns), [list(u) for u in sampler.util], queues


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=60))
def test_lazy_equals_eager(steps: list[tuple[int, tuple[str, int, int]]]) -> None:
    assert play(True, steps) == play(False, steps)


def test_busy_link_is_sampled_in_part() -> None:
    """A frame straddling samples counts in part in each (the series are not all zeros)."""
    steps = [(0, ("send", 0, 1500)), (5000, ("sample", 0, 0)), (0, ("send", 1, 100))]
    steps += [(1, ("enq", 0, 1)), (20000, ("sample", 0, 0)), (1, ("deq", 0, 0))]
    t_ns, util, queues = play(True, steps)
    assert 0 < util[0][0] <= 1.0 and util[2] == [0.0] * len(t_ns)
    assert queues[("sw", 0, 1)][1][:1] == [1]
    assert play(False, steps) == (t_ns, util, queues)
