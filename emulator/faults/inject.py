"""Play a fault timeline into a running network.

    timeline (emulator.faults.timeline) ─► FaultInjector ─► runtime.fail_link / restore_link
                                              │   │          └─ the runtime publishes a LinkEvent
                                              │   │             to its subscribers: the plan's
                                              │   │             live controller (RoCE repair),
                                              │   │             emulator.faults.ib_resweep (IB)
                                              │   └ virtual: LinkDir.impair, PFC storm;
                                              │     Mininet: the switch process's set_port_impair
                                              └─ FaultLog: which fault caused which link change

Link state is reference counted per node pair, so a link downed by a switch failure and by
its own fault comes back only when both are over; every physical change is one runtime
``fail_link`` / ``restore_link`` and one :class:`FaultLinkEvent` in the log.

The clock is a :class:`Scheduler`: the virtual runtime's event queue, or for real-time
runtimes (Mininet) :class:`SlicedScheduler`, which runs the network in slices between events.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from emulator.faults.timeline import Action
from emulator.target.impair import Impairment
from emulator.traffic.rnic_process import STORM_PERIOD_NS, STORM_QUANTA
from emulator.traffic.seeding import rng
from emulator.vocab.pfc import encode_pfc


class Scheduler(Protocol):
    """A run clock that can call back at a time."""

    def now(self) -> int:
        """The run clock (ns)."""
        ...

    def at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when the clock reaches ``t_ns``."""
        ...


class VirtualScheduler:
    """The virtual runtime's own event queue (exact, deterministic)."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt

    def now(self) -> int:
        """Virtual time."""
        return int(self.rt.engine.now)

    def at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """Scheduled in the engine."""
        self.rt.schedule(t_ns, fn)


class SlicedScheduler:
    """Real-time runtimes: ``drive`` runs the network up to each due event, then fires it."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self._q: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._now = 0

    def now(self) -> int:
        """The time of the event being fired (ns since the run started)."""
        return self._now

    def at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """Queue ``fn`` for ``t_ns``."""
        heapq.heappush(self._q, (int(t_ns), next(self._seq), fn))

    def drive(self, until_ns: int) -> bool:
        """Run until every workload is done or ``until_ns``, firing due events between."""
        fired = False
        while self._q and self._q[0][0] < until_ns:
            t, _, fn = heapq.heappop(self._q)
            # events due together fire back to back (run() would sample the switches between)
            if not (fired and t <= self._now) and self.rt.run(until_ns=t):
                return True
            self._now, fired = t, True
            fn()
        return bool(self.rt.run(until_ns=until_ns))


@dataclass(frozen=True)
class FaultLinkEvent:
    """A link the injector took down or brought up, and the fault that did it."""

    t_ns: int
    a: str
    b: str
    up: bool
    fault: int


@dataclass
class FaultLog:
    """What the injector did, per fault index (read by emulator.faults.report)."""

    events: list[FaultLinkEvent] = field(default_factory=list)
    impairments: list[Impairment] = field(default_factory=list)
    storm_frames: dict[int, int] = field(default_factory=dict)
    #: (fault, switch, port) impaired inside switch processes (Mininet, built-in target)
    remote: list[tuple[int, str, int]] = field(default_factory=list)


class FaultInjector:
    """Fires a timeline's actions at their times against a started runtime."""

    def __init__(self, actions: Sequence[Action], seed: int) -> None:
        self.actions = list(actions)
        self.seed = seed
        self.log = FaultLog()
        self._down: dict[frozenset[str], int] = {}
        self._rt: Any = None
        self._clock: Scheduler | None = None
        self._stuck: dict[str, Impairment] = {}
        self._impairs: dict[tuple[int, str, str], Impairment] = {}

    def arm(self, rt: Any, clock: Scheduler) -> None:
        """Schedule every action on ``clock`` against the started runtime ``rt``."""
        self._rt, self._clock = rt, clock
        for act in self.actions:
            clock.at(act.t_ns, functools.partial(self.fire, act))

    def fire(self, act: Action) -> None:
        """Carry out one action now."""
        if act.op in ("down", "up"):
            self._link(act)
        elif act.op in ("impair_on", "impair_off"):
            self._impair(act)
        else:
            self._stuck_receiver(act)

    def _link(self, act: Action) -> None:
        key = frozenset((act.a, act.b))
        n = self._down.get(key, 0)
        if act.op == "down":
            self._down[key] = n + 1
            if n:
                return
            self._rt.fail_link(act.a, act.b)
        else:
            if n == 0:
                return  # not down: nothing to bring up
            self._down[key] = n - 1
            if n > 1:
                return
            self._rt.restore_link(act.a, act.b)
        assert self._clock is not None
        ev = FaultLinkEvent(self._clock.now(), act.a, act.b, act.op == "up", act.fault)
        self.log.events.append(ev)

    def _dirs(self, a: str, b: str) -> list[Any]:
        """The virtual runtime's link directions between ``a`` and ``b`` (both ways)."""
        return list(self._rt._link_dirs(a, b))

    def _impair(self, act: Action) -> None:
        if not hasattr(self._rt, "_link_dirs"):
            self._impair_remote(act)
            return
        key = (act.fault, act.a, act.b)
        if act.op == "impair_on":
            imp = Impairment(
                act.mode, act.probability, rng(self.seed, "fault", act.fault), act.fault
            )
            self._impairs[key] = imp
            self.log.impairments.append(imp)
            for d in self._dirs(act.a, act.b):
                d.impair = imp
        else:
            imp = self._impairs.pop(key)
            imp.active = False
            for d in self._dirs(act.a, act.b):
                if d.impair is imp:
                    d.impair = None

    def _impair_remote(self, act: Action) -> None:
        """Mininet: the switch process at each switch end impairs what it sends on the link,
        a host end's RNIC process what its host sends (``MininetRuntime.impair_host``)."""
        topo = self._rt.plan.topo
        switches = {s.name for s in topo.switches}
        for lk in topo.links_between(act.a, act.b):
            for node, port in ((lk.a, lk.a_port), (lk.b, lk.b_port)):
                if node not in switches:
                    self._impair_host(act, node)
                    continue
                if act.op == "impair_off":
                    self._rt.fabric.switch_cli(node, f"set_port_impair {port} off")
                    continue
                seed = rng(self.seed, "fault", act.fault, node, port).getrandbits(63)
                line = f"set_port_impair {port} {act.mode} {act.probability!r} {seed}"
                self._rt.fabric.switch_cli(node, line)
                self.log.remote.append((act.fault, node, port))

    def _impair_host(self, act: Action, host: str) -> None:
        """The host end of a loss / corrupt fault: its RNIC process impairs what it sends."""
        if act.op == "impair_off":
            self._rt.impair_host(host, act.fault, "off", 0.0, 0)
            return
        seed = rng(self.seed, "fault", act.fault, host).getrandbits(63)
        self._rt.impair_host(host, act.fault, act.mode, act.probability, seed)

    def _stuck_receiver(self, act: Action) -> None:
        """A host stops draining: frames to it vanish, it pauses its leaf, every class.
        Mininet: its RNIC process does it (``MininetRuntime.set_stuck``)."""
        if not hasattr(self._rt, "_link_dirs"):
            self._rt.set_stuck(act.a, act.op == "stuck_on")
            return
        host = self._rt.hosts[act.a]
        to_host = next(d for d in self._rt.links if d.dst == act.a)
        if act.op == "stuck_on":
            imp = Impairment("stuck", 1.0, rng(self.seed, "fault", act.fault), act.fault)
            self._stuck[act.a] = imp
            self.log.impairments.append(imp)
            to_host.impair = imp
            self._storm(act, host, imp)
        else:
            imp = self._stuck.pop(act.a)
            imp.active = False
            to_host.impair = None
            self._pause(act, host, 0)

    def _pause(self, act: Action, host: Any, quanta: int) -> None:
        assert self._clock is not None
        frame = encode_pfc(host.nic.mac, 0xFF, [quanta] * 8)
        host.link.send(frame, self._clock.now())
        self.log.storm_frames[act.fault] = self.log.storm_frames.get(act.fault, 0) + 1

    def _storm(self, act: Action, host: Any, imp: Impairment) -> None:
        if not imp.active:
            return
        self._pause(act, host, STORM_QUANTA)
        assert self._clock is not None
        nxt = self._clock.now() + STORM_PERIOD_NS
        self._clock.at(nxt, lambda: self._storm(act, host, imp))
