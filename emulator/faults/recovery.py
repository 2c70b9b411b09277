"""RoCE route repair: the live controller hears a link event, waits the detection delay
(BFD/LACP-like), recomputes routes and ECMP groups / pinning, and installs the difference.

    FaultInjector.publish(LinkEvent) ─► RouteRepair.on_link_event
        └─ clock.at(t + detect_ns) ─► controller.fail_link / restore_link ─► {switch: ops}
                                   ─► runtime.switch_cli(switch, line) for each line

:func:`controller_diff` is the one call into the controller; the rest only sees
``{switch: [command lines]}``. What was done is kept per fault for the metrics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.control.render import command_lines
from emulator.faults.inject import LinkEvent, Scheduler


@dataclass(frozen=True)
class Repair:
    """One installed repair: when the event happened, when the routes changed, how much."""

    fault: int
    a: str
    b: str
    up: bool
    event_ns: int
    installed_ns: int
    switches: tuple[str, ...]
    commands: int


def controller_diff(controller: Any, event: LinkEvent) -> Mapping[str, list[str]]:
    """Ask the live controller for the repair of ``event``: command lines per switch."""
    diffs = (controller.restore_link if event.up else controller.fail_link)(event.a, event.b)
    return {sw: command_lines(text) for sw, text in diffs.items()}


@dataclass
class RouteRepair:
    """Subscribes to link events; installs the controller's diffs after the detection delay."""

    controller: Any
    runtime: Any
    clock: Scheduler
    repairs: list[Repair] = field(default_factory=list)

    def on_link_event(self, event: LinkEvent) -> None:
        """Schedule the repair of ``event`` (unless the fault asked for no repair)."""
        if event.repair:
            self.clock.at(event.t_ns + event.detect_ns, lambda: self._install(event))

    def _install(self, event: LinkEvent) -> None:
        diffs = controller_diff(self.controller, event)
        for switch, lines in diffs.items():
            for line in lines:
                self.runtime.switch_cli(switch, line)
        self.repairs.append(
            Repair(
                event.fault,
                event.a,
                event.b,
                event.up,
                event.t_ns,
                self.clock.now(),
                tuple(sorted(diffs)),
                sum(len(v) for v in diffs.values()),
            )
        )
