"""Small hand-built RunResults for the report and summary-metric tests.

Two leaves, four spines, four hosts per leaf::

    ctsw0  ctsw1  ctsw2  ctsw3          uplinks rtswL:5..8 -> ctsw0..3
       \\     \\   /     /
        rtsw0      rtsw1
       h0..h3      h4..h7
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

from emulator.measure.flowid import FlowId
from emulator.measure.results import (
    CollectiveResult,
    ConservationResult,
    FlowResult,
    LinkSeries,
    PauseEvent,
    QueueSeries,
    RunMeta,
    RunResult,
    Totals,
)

RATE = 10e9
BIN_NS = 1_000_000  # 1 ms samples
NBINS = 10
QPN_MASK = 0xFFFFFF


def link(src: str, port: int, dst: str, kind: str, up: bool, total: int) -> LinkSeries:
    """A link direction carrying ``total`` bytes spread evenly over NBINS samples."""
    util = total * 8 / (RATE * BIN_NS / 1e9) / NBINS
    return LinkSeries(
        src=src,
        src_port=port,
        dst=dst,
        dst_port=1,
        kind=kind,
        up=up,
        rate_bps=RATE,
        bytes=total,
        packets=total // 1000,
        t_ns=[i * BIN_NS for i in range(NBINS + 1)],
        utilisation=[0.0] + [util] * NBINS,
    )


def fabric_links(uplinks: Mapping[str, Sequence[int]]) -> list[LinkSeries]:
    """Host links both ways plus leaf->spine uplinks with the given byte totals per leaf."""
    out = []
    for leaf, hosts in (("rtsw0", range(4)), ("rtsw1", range(4, 8))):
        for i, h in enumerate(hosts):
            out.append(link(f"h{h}", 0, leaf, "host", True, 1000))
            out.append(link(leaf, i + 1, f"h{h}", "host", False, 1000))
        for k, total in enumerate(uplinks.get(leaf, [0, 0, 0, 0])):
            out.append(link(leaf, 5 + k, f"ctsw{k}", "fabric", True, total))
            out.append(link(f"ctsw{k}", 1 if leaf == "rtsw0" else 2, leaf, "fabric", False, 0))
    return out


def flow(src: str, dst: str, nbytes: int, start_ns: int, end_ns: int) -> FlowResult:
    """One flow result."""
    d = end_ns - start_ns
    return FlowResult(
        src=src,
        dst=dst,
        flow_id=FlowId(zlib.crc32(src.encode()) & QPN_MASK, zlib.crc32(dst.encode()) & QPN_MASK),
        bytes=nbytes,
        start_ns=start_ns,
        end_ns=end_ns,
        duration_ns=d,
        throughput_bps=nbytes * 8e9 / d if d else 0.0,
    )


def collective(time_ns: float, size: int = 1 << 20, ranks: int = 8) -> CollectiveResult:
    """A ring AllReduce result with nccl-tests bandwidths."""
    alg = size * 1e9 / time_ns
    return CollectiveResult(
        name="ar",
        collective="allreduce",
        algorithm="ring",
        ranks=ranks,
        size_bytes=size,
        iterations=1,
        num_qps=1,
        start_ns=0,
        end_ns=int(time_ns),
        time_ns=time_ns,
        algbw_Bps=alg,
        busbw_Bps=alg * 2 * (ranks - 1) / ranks,
    )


def make_result(
    *,
    scenario: str = "fixture",
    complete: bool = True,
    reason: str | None = None,
    uplinks: Mapping[str, Sequence[int]] | None = None,
    flows: Sequence[FlowResult] = (),
    collectives: Sequence[CollectiveResult] = (),
    queues: Sequence[QueueSeries] = (),
    pauses: Sequence[PauseEvent] = (),
    totals: Totals | None = None,
    cts: Sequence[int] = (),
    conservation_ok: bool | None = True,
) -> RunResult:
    """A RunResult of the fixture fabric."""
    cons = None
    if conservation_ok is not None:
        sent, lost = 100, 0 if conservation_ok else 3
        cons = ConservationResult(
            sent=sent,
            delivered=sent - lost,
            dropped=0,
            in_flight=0,
            imbalance=lost,
            ok=conservation_ok,
        )
    return RunResult(
        meta=RunMeta(
            scenario=scenario,
            runtime="virtual",
            target="builtin",
            why="runtime auto -> virtual (not root)",
            seed=7,
            end_ns=NBINS * BIN_NS,
            complete=complete,
            incomplete_reason=reason,
        ),
        flows=list(flows),
        collectives=list(collectives),
        links=fabric_links(uplinks) if uplinks is not None else [],
        queues=list(queues),
        pauses=list(pauses),
        cts_latency_ns=list(cts),
        totals=totals or Totals(),
        conservation=cons,
    )


def rich_result(scenario: str = "fixture", **kw: object) -> RunResult:
    """A result with every kind of data the report plots."""
    q = QueueSeries(
        switch="rtsw1",
        port=1,
        priority=3,
        t_ns=[0, 1_000_000, 2_000_000, 3_000_000],
        depth=[0, 20, 40, 5],
        max_depth=40,
    )
    pause = [
        PauseEvent(t_ns=1_000_000, node="rtsw1", port=5, priority=3, quanta=0xFFFF),
        PauseEvent(t_ns=2_000_000, node="rtsw1", port=5, priority=3, quanta=0),
    ]
    args: dict[str, object] = {
        "uplinks": {"rtsw0": [4000, 2000, 2000, 0]},
        "flows": [flow("h0", "h4", 1 << 20, 0, 2_000_000), flow("h1", "h5", 1 << 20, 0, 4_000_000)],
        "collectives": [collective(5_000_000)],
        "queues": [q],
        "pauses": pause,
        "totals": Totals(drops=0, pause_frames=2, ecn_marks=1, retransmissions=0),
        "cts": [1000, 2000, 3000],
    }
    args.update(kw)
    return make_result(scenario=scenario, **args)  # type: ignore[arg-type]
