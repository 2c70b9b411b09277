"""What every network runtime (Mininet, virtual time) takes and does: the ``NetworkRuntime``.

Scenarios depend only on this protocol, as Mininet swaps ``switch=`` classes::

    cfg = RuntimeConfig(topo, programs, commands, priority_queues=8, seed=1)
    with make_runtime("virtual", cfg) as rt:     # or "mininet"
        rt.start()
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h4"]], "size_bytes": 1 << 20})
        rt.run(until_ns=5_000_000_000)           # returns early when every workload is done
        result = rt.result(meta)                 # RunResult, the same schema for both
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from emulator.measure.results import RunMeta, RunResult
from emulator.topology import ResolvedTopology


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything a runtime needs to build and program the network.

    ``programs`` maps switch name -> BMv2 JSON (dict); ``commands`` maps switch name ->
    simple_switch_CLI lines applied at start. ``rnic`` is passed to each host's emulated
    RNIC (``emulator.traffic.rnic.RnicConfig`` fields).
    """

    topo: ResolvedTopology
    programs: Mapping[str, Mapping[str, Any]]
    commands: Mapping[str, Sequence[str]]
    target: str = "builtin"  # "builtin" | "bmv2" (Mininet only)
    priority_queues: int = 8
    pfc: bool = True  # switches honour received PFC frames
    seed: int = 1
    sample_interval_ns: int = 1_000_000
    rnic: Mapping[str, Any] = field(default_factory=dict)
    pcap_dir: str | None = None
    log_dir: str | None = None
    #: RNIC wire format (an ``emulator.traffic.framing.Framing``); None = RoCEv2
    framing: Any = None
    #: link-level credits (``emulator.ib.credits.CreditConfig``); None = none (virtual only)
    credits: Any = None


@runtime_checkable
class NetworkRuntime(Protocol):
    """A network that runs switches and RNIC workloads and measures them."""

    name: str

    def start(self) -> None:
        """Build the network, start the switches, apply ``commands``."""

    def add_workload(self, workload: Mapping[str, Any]) -> None:
        """Deploy a workload (``emulator.traffic.workloads.workload_from_dict`` mapping)."""

    def run(self, until_ns: int) -> bool:
        """Run until every workload is done or ``until_ns`` of run time; True if all done."""

    def fail_link(self, a: str, b: str) -> None:
        """Take the link(s) between nodes ``a`` and ``b`` down now (frames on it are lost)."""

    def restore_link(self, a: str, b: str) -> None:
        """Bring the link(s) between ``a`` and ``b`` back up."""

    def switch_cli(self, switch: str, line: str) -> str:
        """Send one runtime command to a running switch (e.g. a control-plane repair)."""

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


def make_runtime(name: str, config: RuntimeConfig) -> NetworkRuntime:
    """Instantiate the runtime called ``name`` ("virtual" or "mininet") for ``config``."""
    import importlib

    from emulator.errors import UserError

    try:
        modname, clsname = RUNTIMES[name].split(":")
    except KeyError:
        raise UserError(f"unknown runtime {name!r} (known: {', '.join(RUNTIMES)})") from None
    cls = getattr(importlib.import_module(modname), clsname)
    runtime: NetworkRuntime = cls(config)
    return runtime
