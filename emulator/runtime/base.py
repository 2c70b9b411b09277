"""What every network runtime (Mininet, virtual time) takes and does: the ``NetworkRuntime``.

Scenarios depend only on this protocol, as Mininet swaps ``switch=`` classes. A runtime
takes a :class:`~emulator.plan.spec.RunPlan` (``emulator.plan.build.build_plan``)::

    plan = build_plan(scenario, path, "virtual")
    with make_runtime("virtual", plan) as rt:     # or "mininet"
        rt.start()                                # switches programmed, controller attached
        rt.add_workload(plan.workload.mapping)
        rt.run(until_ns=5_000_000_000)            # returns early when every workload is done
        result = rt.result(meta)                  # RunResult, the same schema for both

Link events: ``fail_link`` / ``restore_link`` publish a ``LinkEvent`` to every subscriber
(``subscribe``); the plan's live controller is one, and repairs through ``call_at`` and
``apply_ops`` (``emulator.control.live``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from emulator.measure.results import RunMeta, RunResult

if TYPE_CHECKING:
    from emulator.control.live import LinkEventSink
    from emulator.plan.spec import RunPlan
    from emulator.target.ops import SwitchOp


@runtime_checkable
class NetworkRuntime(Protocol):
    """A network that runs switches and RNIC workloads and measures them."""

    name: str

    def start(self) -> None:
        """Build the network, start the switches, apply the plan's switch operations."""

    def add_workload(self, workload: Mapping[str, Any]) -> None:
        """Deploy a workload (``emulator.traffic.workloads.workload_from_dict`` mapping)."""

    def run(self, until_ns: int) -> bool:
        """Run until every workload is done or ``until_ns`` of run time; True if all done."""

    def fail_link(self, a: str, b: str) -> None:
        """Take the link(s) between nodes ``a`` and ``b`` down now (frames on it are lost)."""

    def restore_link(self, a: str, b: str) -> None:
        """Bring the link(s) between ``a`` and ``b`` back up."""

    def switch_cli(self, switch: str, line: str) -> str:
        """Send one runtime command (simple_switch_CLI text) to a running switch."""

    def apply_ops(self, switch: str, ops: Sequence[SwitchOp]) -> None:
        """Apply typed runtime operations to a running switch (a control-plane repair)."""

    def call_at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when the run clock reaches ``t_ns`` (at once if it has)."""

    def subscribe(self, sink: LinkEventSink) -> None:
        """Tell ``sink`` about every link change from now on."""

    def result(self, meta: RunMeta) -> RunResult:
        """Collect what was measured so far (also after a failure: ``meta.complete`` False)."""

    def stop(self) -> None:
        """Tear everything down; idempotent, safe after a failure."""

    def __enter__(self) -> NetworkRuntime: ...

    def __exit__(self, *exc: object) -> None: ...


RUNTIMES = {
    "virtual": "emulator.runtime.virtual.runtime:VirtualRuntime",
    "mininet": "emulator.runtime.mininet.runtime:MininetRuntime",
}


def make_runtime(name: str, plan: RunPlan) -> NetworkRuntime:
    """Instantiate the runtime called ``name`` ("virtual" or "mininet") for ``plan``."""
    import importlib

    from emulator.errors import UserError

    try:
        modname, clsname = RUNTIMES[name].split(":")
    except KeyError:
        raise UserError(f"unknown runtime {name!r} (known: {', '.join(RUNTIMES)})") from None
    cls = getattr(importlib.import_module(modname), clsname)
    runtime: NetworkRuntime = cls(plan)
    return runtime
