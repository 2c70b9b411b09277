"""The fabric controller: program every switch from a topology, repair groups on failures.

ctl = FabricController(resolve(load_clos("two_rack_2spine")), FabricConfig())
text = ctl.command_file("rtsw0")            # the switch's full command file
ctl.apply({"rtsw0": switch0, ...})          # program fresh switches (CommandSinks)
ops = ctl.switch_ops("rtsw0")               # the same as typed operations
diff = ctl.link_changed("rtsw0", "ctsw1", up=False)  # {switch: typed ops} of the repair
text = ctl.fail_link("rtsw0", "ctsw1")      # the same as command text
ctl.selection("rtsw0", "10.0.1.0/24")       # next hops in selector order
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from emulator.control import pfc_headroom
from emulator.control.apply import CommandSink, apply_commands
from emulator.control.config import FabricConfig
from emulator.control.errors import ControlError
from emulator.control.render import command_lines, repair_ops, switch_ops
from emulator.control.routes import LinkId, NextHop, SwitchRoutes, compute_routes, links_between
from emulator.control.state import ProgramState
from emulator.target.ops import SwitchOp, to_text
from emulator.target.tm import DEFAULT_QUEUE_DEPTH
from emulator.topology import ResolvedTopology


def with_pfc_thresholds(topo: ResolvedTopology, config: FabricConfig) -> FabricConfig:
    """``config`` with PFC thresholds and pause quanta derived from ``topo`` where not given."""
    pfc = config.pfc
    if not pfc.enabled:
        return config
    if pfc.quanta is None:
        fastest = max((p.rate_bps for s in topo.switches for p in s.ports), default=10e9)
        pfc = dataclasses.replace(pfc, quanta=pfc_headroom.pause_quanta(fastest))
    if pfc.xoff is None:
        depth = config.queue_depth or DEFAULT_QUEUE_DEPTH
        t = pfc_headroom.derive(topo, pfc.mtu, depth, pfc.response_ns)
        pfc = dataclasses.replace(pfc, xoff=t.xoff, xon=t.xon)
    return dataclasses.replace(config, pfc=pfc)


def with_lag_headroom(topo: ResolvedTopology, config: FabricConfig, lag_ns: float) -> FabricConfig:
    """``config`` for devices that may react ``lag_ns`` late (the Mininet runtime): the
    PFC thresholds derived as usual, the queue depth raised to hold the lag
    (:func:`pfc_headroom.lag_depth`). An explicit queue depth, or PFC off, is kept as is:
    without PFC, drops at the target's depth are what the scenario studies."""
    if not config.pfc.enabled or config.queue_depth is not None:
        return config
    config = with_pfc_thresholds(topo, config)
    xoff = config.pfc.xoff
    assert xoff is not None  # with_pfc_thresholds derived it
    depth = pfc_headroom.lag_depth(topo, config.pfc.mtu, xoff, lag_ns)
    return dataclasses.replace(config, queue_depth=max(DEFAULT_QUEUE_DEPTH, depth))


class FabricController:
    """Owns the routing state of every switch of one topology."""

    def __init__(self, topo: ResolvedTopology, config: FabricConfig | None = None) -> None:
        self.topo = topo
        self.config = with_pfc_thresholds(topo, config or FabricConfig())
        self.failed: set[LinkId] = set()
        self.routes: dict[str, SwitchRoutes] = compute_routes(topo)
        self.states: dict[str, ProgramState] = {}
        self._ops: dict[str, tuple[SwitchOp, ...]] = {}
        for name, routes in self.routes.items():
            state = ProgramState()
            ops = state.program(routes)
            self.states[name] = state
            self._ops[name] = switch_ops(routes, self.config, ops)

    @property
    def switch_names(self) -> list[str]:
        """Names of the programmed switches, in device-id order."""
        return [s.name for s in self.topo.switches]

    def switch_ops(self, switch: str) -> tuple[SwitchOp, ...]:
        """The typed operations that program ``switch`` from fresh (as first computed)."""
        if switch not in self._ops:
            raise ControlError(f"topology {self.topo.name}: no switch {switch!r}")
        return self._ops[switch]

    def command_file(self, switch: str) -> str:
        """The command file (simple_switch_CLI text) of :meth:`switch_ops`."""
        return to_text(self.switch_ops(switch))

    def apply(self, sinks: Mapping[str, CommandSink]) -> None:
        """Program each named switch (freshly started) with its command file."""
        for name, sink in sinks.items():
            apply_commands(
                sink,
                command_lines(self.command_file(name)),
                next_member=0,
                next_group=0,
                where=name,
            )

    def selection(self, switch: str, prefix: str) -> list[NextHop | None]:
        """Current members of ``prefix``'s group in selector order (None = drop member)."""
        if switch not in self.states:
            raise ControlError(f"topology {self.topo.name}: no switch {switch!r}")
        return self.states[switch].selection(prefix)

    def _recompute(self, reason: str) -> dict[str, tuple[SwitchOp, ...]]:
        self.routes = compute_routes(self.topo, self.failed)
        diffs: dict[str, tuple[SwitchOp, ...]] = {}
        for name, routes in self.routes.items():
            ops = self.states[name].update(routes)
            if ops:
                diffs[name] = repair_ops(name, reason, ops)
        return diffs

    def link_changed(self, a: str, b: str, up: bool) -> dict[str, tuple[SwitchOp, ...]]:
        """Mark every link between ``a`` and ``b`` up or down; the repair per switch.

        Only switches whose groups change appear, with only the members added to or removed
        from groups (plus the new members they need): the minimal difference.
        """
        ids = links_between(self.topo, a, b)
        if up:
            self.failed.difference_update(ids)
        else:
            self.failed.update(ids)
        return self._recompute(f"link {a} - {b} {'up' if up else 'down'}")

    def fail_link(self, a: str, b: str) -> dict[str, str]:
        """Mark every link between ``a`` and ``b`` down; the repair commands (text) per switch."""
        return {k: to_text(v) for k, v in self.link_changed(a, b, up=False).items()}

    def restore_link(self, a: str, b: str) -> dict[str, str]:
        """Mark the links between ``a`` and ``b`` up again; the commands (text) per switch."""
        return {k: to_text(v) for k, v in self.link_changed(a, b, up=True).items()}

    def apply_diff(self, diffs: Mapping[str, str], sinks: Mapping[str, CommandSink]) -> None:
        """Send repair commands to the switches that have a sink."""
        for name, text in diffs.items():
            if name in sinks:
                apply_commands(sinks[name], command_lines(text), where=name)
