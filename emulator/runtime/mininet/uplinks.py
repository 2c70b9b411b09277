"""Which leaf uplink each RoCE flow of a Mininet run took, and a check against the counters.

The switch processes do not report per-flow egress ports, so the uplink is *computed* by
running the leaf's own program (same BMv2 JSON, same command lines, replayed in order with
the runtime commands sent during the run) in an in-process ``Switch`` on a data frame of
the flow, then *checked* against the leaf's observed per-uplink byte counters::

    flow (src ip, dst ip, FlowId sQPN->dQPN)   leaf program (shadow Switch, same tables)
      └─ Ether/IPv4/UDP(sport(policy), 4791)/BTH(dQPN)  ──process(host port)──►  egress
         port in the leaf's uplinks  ──►  "rtsw0:7"

    check, per source leaf:  share of the flows' bytes predicted on each uplink
                             vs share of the bytes the uplink ports transmitted:
                             predicted idle -> observed < IDLE_SHARE,
                             predicted busy -> observed >= half the predicted share
                             agree: uplinks kept; else: left empty for that leaf's flows
                             (either way an event says which)

Hash-based modes (ecmp, eecmp, pin) are a function of the headers, so the prediction is
exact; time-dependent modes (flowlet) are not, and the check catches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.control.apply import apply_commands
from emulator.measure.flows import FlowRecord
from emulator.measure.observations import FlowObs
from emulator.target.ops import SwitchOp, apply_ops
from emulator.topology import ResolvedTopology
from emulator.traffic.connection import QP_SLOTS
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.opcodes import RC_RDMA_WRITE_MIDDLE
from emulator.traffic.roce import encode_transport
from emulator.traffic.seeding import flow_sport
from emulator.vocab import DSCP_BULK

IDLE_SHARE = 0.05  # an uplink predicted idle may carry this share of the bytes (ACKs, CTS)
PROBE_PAYLOAD = 1024  # payload of the probe data frame (the hash ignores it)
BATCH_NS = 50_000_000  # runtime commands closer than this are one change (one repair)


@dataclass(frozen=True)
class CliChange:
    """A runtime command sent to a running switch ``t_ns`` after the run start: a
    simple_switch_CLI line (``switch_cli``) or a typed operation (a controller repair)."""

    t_ns: int
    switch: str
    line: str | SwitchOp


def _batches(changes: Sequence[CliChange]) -> list[list[CliChange]]:
    """Changes in time order, grouped when each follows the previous within ``BATCH_NS``.

    The lines of one repair arrive a few ms apart; the states between them lasted too
    short to carry a flow, so a group is applied as one change.
    """
    out: list[list[CliChange]] = []
    for c in sorted(changes, key=lambda c: c.t_ns):
        if out and c.t_ns - out[-1][-1].t_ns <= BATCH_NS:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def _replay(sw: Any, change: CliChange) -> None:
    where = f"{change.switch} (shadow)"
    if isinstance(change.line, str):
        apply_commands(sw, [change.line], where=where)
    else:
        apply_ops(sw, [change.line], where=where)


class UplinkPredictor:
    """Shadow copies of the leaves' programs that say where a flow's data frames go."""

    def __init__(
        self,
        topo: ResolvedTopology,
        programs: Mapping[str, Any],
        switch_ops: Mapping[str, Sequence[SwitchOp]],
        *,
        priority_queues: int = 8,
        dscp: int = DSCP_BULK,
        sport_policy: str = "qpn_hash",
        seed: int = 0,
    ) -> None:
        self.topo = topo
        self.sport_policy, self.seed = sport_policy, seed
        self.programs = programs
        self.switch_ops = switch_ops
        self.priority_queues = priority_queues
        self.dscp = dscp
        self.by_ip = {h.ip: h for h in topo.hosts}
        self._framing = RoceV2Framing()

    def _shadow(self, leaf: str) -> Any:
        from emulator.target.switch import Switch

        node = self.topo.switch(leaf)
        sw = Switch(
            dict(self.programs[leaf]) if isinstance(self.programs[leaf], Mapping)
            else str(self.programs[leaf]),
            device_id=node.device_id,
            priority_queues=self.priority_queues,
        )  # fmt: skip
        for p in node.ports:
            sw.add_port(p.number)
        apply_ops(sw, self.switch_ops.get(leaf, ()), where=f"{leaf} (uplink shadow)")
        return sw

    def _probe(self, sw: Any, flow: FlowRecord) -> str | None:
        """The uplink the leaf sends this flow's data frame to (None: not up, or unknown)."""
        src, dst = self.by_ip.get(flow.src), self.by_ip.get(flow.dst)
        if src is None or dst is None:
            return None
        sqpn, dqpn = flow.flow_id.src_qpn, flow.flow_id.dst_qpn
        try:
            sport = flow_sport(
                self.sport_policy, self.seed, (src.ip, sqpn), (dst.ip, dqpn), QP_SLOTS
            )
        except ValueError:
            return None
        path = self._framing.make_path(
            src.mac, src.gateway_mac, src.ip, dst.ip, sport, self.dscp, 0
        )
        transport = encode_transport(RC_RDMA_WRITE_MIDDLE, dqpn, 0, bytes(PROBE_PAYLOAD))
        ups = {p.number for p in self.topo.switch(src.leaf).uplink_ports}
        for port, _frame in sw.process(src.leaf_port, self._framing.encode(path, transport)):
            if port in ups:
                return f"{src.leaf}:{port}"
        return None

    def predict(
        self, flows: Sequence[FlowRecord], changes: Sequence[CliChange] = ()
    ) -> list[list[str]]:
        """Per flow, the uplinks its data took (several if a change moved it mid-flow)."""
        out: list[list[str]] = [[] for _ in flows]
        leaves = sorted({self.by_ip[f.src].leaf for f in flows if f.src in self.by_ip})
        shadows = {leaf: self._shadow(leaf) for leaf in leaves}
        batches = _batches(changes)
        starts = [0, *[b[0].t_ns for b in batches]]  # epoch k: [starts[k], starts[k + 1])
        forever = 1 << 62
        for k, lo in enumerate(starts):
            hi = starts[k + 1] if k + 1 < len(starts) else forever
            for c in batches[k - 1] if k > 0 else ():
                if c.switch in shadows:
                    _replay(shadows[c.switch], c)
            for i, f in enumerate(flows):
                host = self.by_ip.get(f.src)
                end = f.end_ns if f.end_ns > 0 else forever  # unfinished: still active
                active = f.start_ns <= hi and end >= lo
                if host is None or not active:
                    continue
                up = self._probe(shadows[host.leaf], f)
                if up is not None and up not in out[i]:
                    out[i].append(up)
        return [sorted(u) for u in out]


def check_uplinks(
    topo: ResolvedTopology,
    flows: Sequence[FlowRecord],
    uplinks: Sequence[Sequence[str]],
    final: Mapping[str, Mapping[str, Any]],
) -> dict[str, tuple[bool, float] | None]:
    """Per source leaf: (counters agree, max |predicted - observed| byte share); None: no data.

    Predicted bytes split a flow's bytes evenly over its uplinks; observed bytes are the
    leaf's uplink ports' ``tx_bytes`` (``show_stats_json``). They agree when every uplink
    predicted idle carried < ``IDLE_SHARE`` of the bytes and every uplink predicted busy
    carried at least half its predicted share: header overhead, reverse ACK/CTS frames and
    retransmissions shift shares a little, a wrong hash puts load where none was predicted.
    """
    by_ip = {h.ip: h for h in topo.hosts}
    predicted: dict[str, dict[str, float]] = {}
    for f, ups in zip(flows, uplinks, strict=True):
        host = by_ip.get(f.src)
        if host is None or not ups:
            continue
        per = predicted.setdefault(host.leaf, {})
        for u in ups:
            per[u] = per.get(u, 0.0) + f.bytes / len(ups)
    out: dict[str, tuple[bool, float] | None] = {}
    for leaf, per in sorted(predicted.items()):
        ports = final.get(leaf, {}).get("ports", {})
        names = [f"{leaf}:{p.number}" for p in topo.switch(leaf).uplink_ports]
        observed = {n: float(ports.get(n.split(":")[1], {}).get("tx_bytes", 0)) for n in names}
        total_p, total_o = sum(per.values()), sum(observed.values())
        if not ports or total_p <= 0 or total_o <= 0:
            out[leaf] = None
            continue
        share_p = {n: per.get(n, 0.0) / total_p for n in names}
        share_o = {n: observed[n] / total_o for n in names}
        ok = all(
            share_o[n] < IDLE_SHARE if share_p[n] == 0 else share_o[n] >= share_p[n] / 2
            for n in names
        )
        out[leaf] = (ok, max(abs(share_p[n] - share_o[n]) for n in names))
    return out


def assign_uplinks(
    predictor: UplinkPredictor | None,
    flows: Sequence[FlowRecord],
    final: Mapping[str, Mapping[str, Any]],
    changes: Sequence[CliChange] = (),
) -> tuple[list[FlowObs], list[str]]:
    """Flows with ``uplinks`` filled where the counters confirm them; notes for the events."""
    if predictor is None or not flows:
        return [FlowObs(f) for f in flows], []
    try:
        uplinks = predictor.predict(flows, changes)
    except Exception as exc:  # a result without uplinks beats no result
        return [FlowObs(f) for f in flows], [f"uplinks not computed: {type(exc).__name__}: {exc}"]
    checks = check_uplinks(predictor.topo, flows, uplinks, final)
    notes = []
    rejected = set()
    for leaf, check in checks.items():
        if check is None:
            notes.append(f"uplinks of flows from {leaf}: computed, not checked (no port counters)")
            continue
        ok, diff = check
        if ok:
            notes.append(f"uplinks of flows from {leaf}: computed; port counters agree "
                         f"(byte shares within {diff:.3f})")  # fmt: skip
        else:
            rejected.add(leaf)
            notes.append(f"uplinks of flows from {leaf}: the computed uplinks disagree with the "
                         f"port counters (byte share off by {diff:.3f}); left empty")  # fmt: skip
    by_ip = {h.ip: h for h in predictor.topo.hosts}
    out = []
    for f, ups in zip(flows, uplinks, strict=True):
        host = by_ip.get(f.src)
        keep = host is not None and host.leaf not in rejected
        out.append(FlowObs(f, list(ups) if keep else [], "predicted"))
    return out, notes
