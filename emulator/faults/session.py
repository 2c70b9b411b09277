"""A run's faults from the scenario to the result: what the runner calls, in four steps.

    session = FaultSession.build(sc, path, plan)   # None: nothing to do (names checked)
    session.attach(rt)                 # after rt.start(): PFC watchdog, timeline, IB repair
    done = session.run(rt, until_ns)   # virtual: the engine fires them; Mininet: in slices
    result.faults = session.section(rt, result)                # emulator.faults.report
    session.close()                    # whatever happened (IB: stops the live ibsim)

RoCE repairs are the plan's live controller's (``emulator.control.live``: it hears the
runtime's link events); InfiniBand repairs are :class:`~emulator.faults.ib_resweep.IbRepair`'s.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emulator.errors import UserError
from emulator.faults.inject import FaultInjector, Scheduler, SlicedScheduler, VirtualScheduler
from emulator.faults.report import fault_section
from emulator.faults.schema import Fault, check_fault_names
from emulator.faults.timeline import expand

if TYPE_CHECKING:  # InfiniBand only: imported when an IB run needs them (networkx, OpenSM)
    from emulator.faults.ib_resweep import IbRepair
    from emulator.ib.subnet import SmOptions

#: in Mininet only with the built-in target (its switch process impairs its ports; BMv2
#: simple_switch has no PFC, so neither a PFC storm from a stuck host nor a watchdog)
BUILTIN_ONLY = ("loss", "corrupt", "stuck_receiver")


@dataclass
class FaultSession:
    """Everything fault-related of one run."""

    faults: tuple[Fault, ...]
    topo: Any
    seed: int
    controller: Any = None  # the plan's LiveController (RoCE), None: no RoCE repair
    watchdog_ns: int | None = None
    #: InfiniBand: OpenSM options of the re-sweeps and the detection delay (ns)
    ib_options: SmOptions | None = None
    ib_delay_ns: int = 0
    ib_adaptive: bool = False
    injector: FaultInjector | None = None
    ib_repair: IbRepair | None = None
    clock: Scheduler | None = None
    #: (fault index, t_ns, cumulative RNIC retransmissions, timeouts) at each fault's start
    #: (Mininet: -1, -1, counted from the RNIC processes' event logs by the report)
    marks: list[tuple[int, int, int, int]] = field(default_factory=list)

    @classmethod
    def build(cls, sc: Any, path: Path | str, plan: Any) -> FaultSession | None:
        """The session of scenario ``sc`` run by ``plan`` (names checked: file + key path)."""
        wd = sc.switch.pfc.watchdog_ms if sc.fabric == "roce" else None
        if not sc.faults and wd is None:
            return None
        check_fault_names(path, sc.faults, plan.topo)
        control = sc.switch.control
        ib = None
        if sc.fabric == "ib" and control.repair:
            from emulator.ib.subnet import SmOptions

            ib = SmOptions(sc.ib.routing, sc.ib.lmc)
        return cls(
            tuple(sc.faults),
            plan.topo,
            sc.seed,
            plan.controller,
            round(wd * 1e6) if wd is not None else None,
            ib,
            round(control.detection_delay_us * 1000),
            sc.fabric == "ib" and sc.ib.adaptive_routing,
        )

    def attach(self, rt: Any) -> None:
        """Arm the watchdog, the InfiniBand repair and the timeline on the started runtime."""
        virtual = rt.name == "virtual"
        if not virtual:
            self._check_mininet(rt)
        self.clock = VirtualScheduler(rt) if virtual else SlicedScheduler(rt)
        if self.watchdog_ns is not None and virtual:  # Mininet: the switches' argv has it
            for box in rt.boxes.values():
                box.tm.pfc.set_watchdog(self.watchdog_ns)
        if self.ib_options is not None and any(f.target != "host" for f in self.faults):
            from emulator.faults.ib_resweep import IbRepair, LiveIbSubnet

            subnet = LiveIbSubnet(self.topo)
            subnet.__enter__()
            self.ib_repair = IbRepair(
                subnet, self.ib_options, rt, self.ib_delay_ns, adaptive=self.ib_adaptive
            )
            self.ib_repair.start()
        if not virtual:  # the mark first: a fault's effects all come after its mark
            self._schedule_marks(rt)
        self.injector = FaultInjector(expand(self.faults, self.topo), self.seed)
        self.injector.arm(rt, self.clock)
        if virtual:
            self._schedule_marks(rt)

    def _schedule_marks(self, rt: Any) -> None:
        assert self.clock is not None
        for i, f in enumerate(self.faults):
            self.clock.at(round(f.at_ms * 1e6), functools.partial(self._mark, rt, i))

    def _check_mininet(self, rt: Any) -> None:
        odd: list[str] = sorted({f.kind for f in self.faults if f.kind in BUILTIN_ONLY})
        if self.watchdog_ns is not None:
            odd.append("switch.pfc.watchdog_ms")
        if odd and rt.plan.target != "builtin":
            raise UserError(
                f"{', '.join(odd)}: in Mininet needs the built-in target "
                "(BMv2 simple_switch has no PFC and no port impairments)"
            )

    def _mark(self, rt: Any, fault: int) -> None:
        """Counters at fault ``fault``'s start; Mininet: only the time (the RNIC processes'
        event logs are counted up to it at the end: emulator.faults.report)."""
        if hasattr(rt, "rnic_events"):
            self.marks.append((fault, rt.now_ns(), -1, -1))
            return
        nics = [hb.nic.counters for hb in rt.hosts.values()]
        assert self.clock is not None
        self.marks.append(
            (
                fault,
                self.clock.now(),
                sum(c.retransmitted_pkts for c in nics),
                sum(c.timeouts for c in nics),
            )
        )

    def run(self, rt: Any, until_ns: int) -> bool:
        """Run the workload to completion or ``until_ns`` with the faults firing."""
        if isinstance(self.clock, SlicedScheduler):
            return self.clock.drive(until_ns)
        return bool(rt.run(until_ns=until_ns))

    def section(self, rt: Any, result: Any) -> dict[str, Any]:
        """The result's ``faults`` section (emulator.faults.report)."""
        return fault_section(self, rt, result)

    def close(self) -> None:
        """Stop what the session started (the InfiniBand re-sweep's ibsim); idempotent."""
        if self.ib_repair is not None:
            self.ib_repair.subnet.close()
