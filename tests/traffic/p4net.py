"""Attach RNICs to a built-in-target Switch (roce_fabric.p4) inside a ``netsim.Sim``.

Only for tests of one leaf: frames from an RNIC reach the switch port after ``delay_ns``;
a switch port dequeues when its traffic manager says so (build the Switch with a
``TrafficManager(..., serialize=True)`` so egress links run at their speed); a frame reaches
the RNIC after its serialisation at ``port_bps`` plus ``delay_ns``.
"""

from __future__ import annotations

from typing import Any

from emulator.traffic.qp import wire_ns
from emulator.traffic.rnic import Rnic

from .netsim import Sim


class SimClock:
    """The switch's clock: the simulation's current time."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim

    def __call__(self) -> int:
        return self.sim.now


class P4Leaf:
    """One built-in-target switch whose ports lead to RNICs."""

    def __init__(self, sim: Sim, switch: Any, delay_ns: int, port_bps: float) -> None:
        self.sim, self.sw, self.delay, self.bps = sim, switch, delay_ns, port_bps
        self.nics: dict[int, Rnic] = {}
        self._armed: dict[int, int] = {}
        self.delivered = 0

    def attach(self, nic: Rnic, port: int) -> None:
        """Wire ``nic`` to switch ``port``."""
        self.nics[port] = nic
        self.sim.add_nic(
            nic, lambda f, t: self.sim.at(t + self.delay, lambda tt: self._rx(port, f, tt))
        )

    def _rx(self, port: int, frame: bytes, t: int) -> None:
        self.sw.receive(port, frame)
        for p in self.nics:  # the program may also emit PFC frames on other ports
            self._arm(p, t)

    def _arm(self, port: int, t: int) -> None:
        ready = self.sw.transmit_ready(port)
        if ready is None:
            return
        ready = max(ready, t)
        cur = self._armed.get(port)
        if cur is not None and t <= cur <= ready:
            return
        self._armed[port] = ready
        self.sim.at(ready, lambda tt: self._tx(port, tt))

    def _tx(self, port: int, t: int) -> None:
        if self._armed.get(port) != t:
            return
        del self._armed[port]
        frame = self.sw.transmit(port)
        if frame is not None:
            self.delivered += 1
            done = t + wire_ns(len(frame), self.bps)
            self.sim.deliver(self.nics[port], frame, done + self.delay)
        self._arm(port, t)
