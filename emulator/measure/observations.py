"""What a runtime observed during one run, as plain records: the input of :mod:`assemble`.

Each runtime fills these from its own sources (the virtual runtime from its links, queues
and RNIC objects; the Mininet runtime from switch statistics, kernel counters and the RNIC
processes' reports) and :func:`emulator.measure.assemble.assemble` turns them into the one
``RunResult`` schema, so totals, drops and conservation are computed in one place::

    runtime ──► RunObservations(hosts, switches, links, queues, pauses, flows, ...) ──►
                assemble ──► RunResult

Counts are packets unless named ``*_bytes`` / ``*_ns``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from emulator.control import names
from emulator.measure.flows import CollectiveRecord, FlowRecord

#: program counters summed over ports x 8 priorities when the program has them (index
#: port * 8 + priority, the p4/roce_fabric.p4 layout): result key -> counter name
P4_COUNTERS = {
    "p4_ecn_marks": names.ECN_MARK_COUNTER,
    "p4_drops": names.DROP_COUNTER,
    "p4_pfc_tx": names.PFC_TX_COUNTER,
}


def numeric(d: Mapping[str, Any]) -> dict[str, float]:
    """The int and float entries of a counter dict, as floats (booleans and others left out)."""
    return {
        k: float(v) for k, v in d.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


@dataclass(frozen=True, slots=True)
class HostObs:
    """One RNIC's counters (``emulator.traffic.counters.RnicCounters`` as a dict)."""

    name: str
    counters: Mapping[str, Any]
    #: listed in ``RunResult.hosts`` (the virtual runtime lists the hosts of a workload;
    #: every RNIC still counts in the totals)
    listed: bool = True


@dataclass(frozen=True, slots=True)
class SwitchObs:
    """One switch's counters and what its data-drop accounting needs.

    ``counters`` holds the switch's numeric counters (``dropped`` = P4 drops, ``pfc_rx`` =
    PFC frames received, port sums, queue sums, ``p4_*`` program counters), as reported.
    """

    name: str
    counters: Mapping[str, float]
    #: more counters, listed after ``data_drops`` in the result (the virtual runtime's
    #: ``p4_*`` program counters and credit stalls: the order its results always had)
    counters_after: Mapping[str, float] = field(default_factory=dict)
    #: PFC frames the program dropped (seen one by one); None: not seen, so bounded by
    #: ``pfc_rx`` and the drops the program did not count (``dropped - p4_drops``)
    pfc_consumed: int | None = None
    #: frames the switch made itself (clones: PFC frames of the RoCE program) tail-dropped
    copy_drops: int = 0
    #: frames of RNIC origin in its queues at the end (still in flight)
    queued: int = 0


@dataclass(frozen=True, slots=True)
class LinkObs:
    """One direction of one link: totals and utilisation samples (0..1 per interval)."""

    src: str
    src_port: int
    dst: str
    dst_port: int
    kind: str
    up: bool
    rate_bps: float
    bytes: int
    packets: int
    t_ns: Sequence[int]
    utilisation: Sequence[float]


@dataclass(frozen=True, slots=True)
class QueueObs:
    """One egress queue: depth samples (packets) and its counters."""

    switch: str
    port: int
    priority: int
    t_ns: Sequence[int]
    depth: Sequence[int]
    max_depth: int
    enqueued: int
    dequeued: int
    dropped: int


@dataclass(frozen=True, slots=True)
class PauseObs:
    """One class of a PFC frame put on a wire by ``node`` out of ``port``."""

    t_ns: int
    node: str
    port: int
    priority: int
    quanta: int


@dataclass(frozen=True, slots=True)
class FlowObs:
    """A flow and the leaf uplinks its data took ("measured", "predicted" or "" unknown)."""

    record: FlowRecord
    uplinks: Sequence[str] = ()
    uplinks_source: str = ""


@dataclass(frozen=True, slots=True)
class DropAccounting:
    """Which switch counters count as lost RNIC frames, as each runtime can see them.

    ``data_drops`` of a switch = P4 drops less the PFC frames the program consumed, plus
    the counters named in ``in_data_drops`` (less the switch's own copies dropped);
    ``totals.drops`` = the data drops plus the counters in ``beside`` of every switch, plus
    the run's ``wire_drops``.
    """

    in_data_drops: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()


#: the virtual runtime sees every drop of every switch and every wire
VIRTUAL_DROPS = DropAccounting(
    in_data_drops=("tail_dropped", "unknown_port", "errors", "assert_failures", "reentry_limit")
)
#: Mininet: the switch processes' counters; frames sent into a failed link are ``tx_errors``
PROCESS_DROPS = DropAccounting(beside=("tail_dropped", "unknown_port", "errors", "tx_errors"))


@dataclass(frozen=True, slots=True)
class RunObservations:
    """Everything one run observed, in the order the result lists it."""

    end_ns: int
    hosts: Sequence[HostObs]
    switches: Sequence[SwitchObs]
    links: Sequence[LinkObs]
    queues: Sequence[QueueObs]
    pauses: Sequence[PauseObs]
    flows: Sequence[FlowObs]
    collectives: Sequence[CollectiveRecord]
    accounting: DropAccounting
    events: Sequence[str] = ()
    #: why the run is incomplete (a workload not done, no workload), empty when complete
    incomplete: Sequence[str] = ()
    #: data frames lost on wires and not in any switch counter (failed links)
    wire_drops: int = 0
    #: data frames on wires, or held back by a sender, at the end
    wire_in_flight: int = 0
    #: CE-marked frames delivered to RNICs: the ECN figure when no program counts marks
    ce_delivered: int | None = None
