"""The live controller: link events in, minimal route repairs out, for the whole run.

A runtime publishes a :class:`LinkEvent` whenever the links between two nodes go down or
come up (``fail_link`` / ``restore_link``, at its clock: virtual ns or wall ns since start).
The :class:`LiveController` subscribed to it waits ``detection_delay_ns`` (the time a real
control plane needs to notice: BFD/LACP timers, a routing daemon's hold-down), then
recomputes routes, ECMP groups and pinning entries and installs only the difference, as
typed operations, through the runtime's :class:`ControlChannel`::

    runtime ──LinkEvent(a, b, up, t_ns)──► LiveController.on_link_event
                                              │ channel.call_at(t_ns + delay)
    runtime.apply_ops(switch, ops) ◄──────────┘ FabricController.link_changed(a, b, up)

Every repair is recorded (``repairs``): the event, when it was installed and the operations
per switch. Fault injection (a scenario's ``faults:``) drives the same hook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from emulator.control.controller import FabricController
from emulator.target.ops import SwitchOp, command_ops


@dataclass(frozen=True)
class LinkEvent:
    """Every link between nodes ``a`` and ``b`` went down (``up`` False) or up at ``t_ns``."""

    a: str
    b: str
    up: bool
    t_ns: int


class LinkEventSink(Protocol):
    """Anything that wants to hear about link changes."""

    def on_link_event(self, event: LinkEvent) -> None:
        """Called by the runtime as the link changes, at the runtime's clock."""


class LinkEventSource:
    """Mixin for runtimes: keeps the link-event subscribers and publishes to them."""

    def subscribe(self, sink: LinkEventSink) -> None:
        """Tell ``sink`` about every link change (``fail_link`` / ``restore_link``)."""
        self.__dict__.setdefault("_link_sinks", []).append(sink)

    def publish_link_event(self, event: LinkEvent) -> None:
        """Hand ``event`` to every subscriber, in subscription order."""
        for sink in self.__dict__.get("_link_sinks", ()):
            sink.on_link_event(event)


class ControlChannel(Protocol):
    """What a runtime offers its control plane: a clock to wait on, switches to program."""

    def call_at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when the run clock reaches ``t_ns`` (at once if it has)."""

    def apply_ops(self, switch: str, ops: Sequence[SwitchOp]) -> None:
        """Apply runtime operations to a running switch."""

    def subscribe(self, sink: LinkEventSink) -> None:
        """Tell ``sink`` about every link change from now on."""


@dataclass(frozen=True)
class Repair:
    """One installed repair: what caused it, when it went in, what each switch got."""

    event: LinkEvent
    at_ns: int
    ops: Mapping[str, tuple[SwitchOp, ...]]

    def summary(self) -> str:
        """One line for the run's event log."""
        state = "up" if self.event.up else "down"
        n = sum(len(command_ops(v)) for v in self.ops.values())
        where = ", ".join(sorted(self.ops)) or "no switch"
        return f"t={self.at_ns} repair link {self.event.a} - {self.event.b} {state}: {n} op(s) on {where}"


@dataclass
class LiveController:
    """A :class:`FabricController` that follows link events during a run."""

    fabric: FabricController
    detection_delay_ns: int = 0
    repairs: list[Repair] = field(default_factory=list)
    _channel: ControlChannel | None = None

    def attach(self, channel: ControlChannel) -> None:
        """Hear ``channel``'s link events and install repairs through it from now on (a
        runtime calls this at start)."""
        self._channel = channel
        channel.subscribe(self)

    def on_link_event(self, event: LinkEvent) -> None:
        """Schedule the repair ``detection_delay_ns`` after the event."""
        if self._channel is None:
            return
        at = event.t_ns + self.detection_delay_ns
        self._channel.call_at(at, lambda: self._repair(event, at))

    def _repair(self, event: LinkEvent, at_ns: int) -> None:
        assert self._channel is not None
        diff = self.fabric.link_changed(event.a, event.b, event.up)
        for switch, ops in diff.items():
            self._channel.apply_ops(switch, ops)
        self.repairs.append(Repair(event, at_ns, diff))
