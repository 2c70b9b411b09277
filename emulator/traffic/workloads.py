"""AI-training workloads over RNICs: fat flows, AllReduce (ring, halving-doubling), AllToAll,
incast; job placement over racks; and a Deployment that drives the RNICs.

A :class:`Workload` is a pure description (ranks -> hosts, a per-rank schedule of phases).
A :class:`Deployment` opens its connections on the local RNICs and runs one
:class:`RankRunner` per local rank; it works the same with all hosts in one process (virtual
time) or one host per process (Mininet, ``rnic_process``): connection specs are derived
deterministically from the workload, so both ends agree without talking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.errors import UserError
from emulator.measure.flowid import FlowId
from emulator.measure.flows import CollectiveRecord, FlowRecord
from emulator.traffic import collectives as col
from emulator.traffic import seeding
from emulator.traffic.connection import Completion, Connection, ConnSpec
from emulator.traffic.rnic import Rnic

PLACEMENTS = ("packed", "spread", "random")


def place(
    job_size: int, racks: Mapping[str, Sequence[str]], mode: str = "packed", seed: int = 0
) -> list[str]:
    """Pick ``job_size`` hosts from ``racks`` (rack -> hosts, in topology order).

    packed: fill a rack before using the next (minimum cut, Meta's scheduler's goal);
    spread: round robin over racks (every neighbour in a ring crosses racks);
    random: any ``job_size`` hosts in a random order drawn from ``seed``.
    """
    if mode not in PLACEMENTS:
        raise UserError(f"unknown placement {mode!r} (known: {', '.join(PLACEMENTS)})")
    total = sum(len(h) for h in racks.values())
    if job_size < 1 or job_size > total:
        raise UserError(f"job of {job_size} ranks does not fit {total} hosts")
    if mode == "packed":
        return [h for hosts in racks.values() for h in hosts][:job_size]
    if mode == "random":
        every = [h for hosts in racks.values() for h in hosts]
        return seeding.rng(seed, "placement").sample(every, job_size)
    out: list[str] = []
    cols = [list(h) for h in racks.values()]
    i = 0
    while len(out) < job_size:
        for hosts in cols:
            if i < len(hosts) and len(out) < job_size:
                out.append(hosts[i])
        i += 1
    return out


@dataclass(frozen=True)
class Workload:
    """A job: rank -> host, what each rank sends/receives, and how many QPs per connection."""

    name: str
    collective: str  # allreduce | alltoall | incast | fat_flows
    algorithm: str
    hosts: tuple[str, ...]
    size_bytes: int
    schedule: tuple[tuple[col.Phase, ...], ...]
    num_qps: int = 1
    iterations: int = 1

    def __post_init__(self) -> None:
        if len(set(self.hosts)) != len(self.hosts):
            raise UserError(f"workload {self.name}: a host appears twice in {list(self.hosts)}")
        if self.iterations < 1:
            raise UserError(f"workload {self.name}: iterations must be >= 1")

    def rank_pairs(self) -> list[tuple[int, int]]:
        """Sorted unordered rank pairs that exchange data (one connection each)."""
        pairs = set()
        for r, phases in enumerate(self.schedule):
            for ph in phases:
                for t in ph.sends:
                    pairs.add((min(r, t.peer), max(r, t.peer)))
        return sorted(pairs)

    def conn_specs(self, ips: Mapping[str, str], seed: int = 0, id_base: int = 0) -> list[ConnSpec]:
        """Connection specs (ids ``id_base``, ``id_base``+1, ...) for ``ips`` (host -> IPv4)."""
        missing = [h for h in self.hosts if h not in ips]
        if missing:
            raise UserError(f"workload {self.name}: no address for hosts {missing}")
        return [
            ConnSpec(id_base + i, ips[self.hosts[a]], ips[self.hosts[b]], self.num_qps, seed)
            for i, (a, b) in enumerate(self.rank_pairs())
        ]

    @property
    def busbw_factor(self) -> float:
        """nccl-tests factor of this workload's collective."""
        return col.busbw_factor(self.collective, len(self.hosts))


def _sched(s: col.Schedule) -> tuple[tuple[col.Phase, ...], ...]:
    return tuple(tuple(p) for p in s)


def allreduce(
    hosts: Sequence[str],
    size_bytes: int,
    algorithm: str = "ring",
    num_qps: int = 1,
    iterations: int = 1,
) -> Workload:
    """AllReduce of ``size_bytes`` with ``ring`` or ``halving_doubling``."""
    if algorithm not in ("ring", "halving_doubling"):
        raise UserError(f"unknown AllReduce algorithm {algorithm!r} (ring, halving_doubling)")
    s = col.schedule(algorithm, len(hosts), size_bytes)
    name = f"allreduce-{algorithm}"
    return Workload(
        name, "allreduce", algorithm, tuple(hosts), size_bytes, _sched(s), num_qps, iterations
    )


def allreduce_half(
    half: str, hosts: Sequence[str], size_bytes: int, algorithm: str = "ring", num_qps: int = 1
) -> Workload:
    """ReduceScatter or AllGather (``half``) of ``size_bytes`` with ``ring``/``halving_doubling``."""
    s = col.allreduce_half(algorithm, len(hosts), size_bytes, half)
    return Workload(
        f"{half}-{algorithm}", half, algorithm, tuple(hosts), size_bytes, _sched(s), num_qps
    )


def alltoall(
    hosts: Sequence[str], size_bytes: int, num_qps: int = 1, iterations: int = 1
) -> Workload:
    """AllToAll: each rank sends ``size_bytes / n`` to every other rank."""
    s = col.alltoall(len(hosts), size_bytes)
    return Workload(
        "alltoall", "alltoall", "direct", tuple(hosts), size_bytes, _sched(s), num_qps, iterations
    )


def incast(senders: Sequence[str], receiver: str, size_bytes: int, num_qps: int = 1) -> Workload:
    """N:1 incast: every sender sends ``size_bytes`` to ``receiver`` at once."""
    hosts = (receiver, *senders)
    n = len(hosts)
    if n < 2:
        raise UserError("incast needs at least one sender")
    sched = [[col.Phase((), tuple(col.Transfer(p, size_bytes) for p in range(1, n)))]]
    sched += [[col.Phase((col.Transfer(0, size_bytes),), ())] for _ in range(1, n)]
    return Workload("incast", "incast", "direct", hosts, size_bytes, _sched(sched), num_qps)


def fat_flows(
    pairs: Sequence[tuple[str, str]], size_bytes: int, num_qps: int = 1, iterations: int = 1
) -> Workload:
    """Long-lived flows between (src, dst) host pairs, ``num_qps`` QPs each.

    Every flow sends ``size_bytes`` per iteration, ``iterations`` times back to back.
    """
    hosts: list[str] = []
    for a, b in pairs:
        for h in (a, b):
            if h not in hosts:
                hosts.append(h)
    if not pairs:
        raise UserError("fat_flows needs at least one (src, dst) pair")
    if len(set(pairs)) != len(pairs):
        raise UserError(f"fat_flows: a (src, dst) pair appears twice in {list(pairs)}")
    idx = {h: i for i, h in enumerate(hosts)}
    sends: dict[int, list[col.Transfer]] = {i: [] for i in range(len(hosts))}
    recvs: dict[int, list[col.Transfer]] = {i: [] for i in range(len(hosts))}
    for a, b in pairs:
        if a == b:
            raise UserError(f"fat flow from {a} to itself")
        sends[idx[a]].append(col.Transfer(idx[b], size_bytes))
        recvs[idx[b]].append(col.Transfer(idx[a], size_bytes))
    sched = [[col.Phase(tuple(sends[i]), tuple(recvs[i]))] for i in range(len(hosts))]
    return Workload(
        "fat_flows",
        "fat_flows",
        "direct",
        tuple(hosts),
        size_bytes,
        _sched(sched),
        num_qps,
        iterations,
    )


def concurrent(parts: Sequence[Workload], name: str | None = None) -> Workload:
    """Workloads on disjoint host sets run as one (e.g. the DP AllReduces of every TP rank).

    Ranks are renumbered in order (the hosts of ``parts[0]`` first); every part must have the
    same collective, QP count and iteration count.
    """
    if not parts:
        raise UserError("concurrent: no workloads")
    first = parts[0]
    hosts: list[str] = []
    sched: list[tuple[col.Phase, ...]] = []
    for w in parts:
        if (w.collective, w.num_qps, w.iterations) != (
            first.collective,
            first.num_qps,
            first.iterations,
        ):
            raise UserError(
                f"concurrent: {w.name} differs from {first.name} in kind, QPs or iterations"
            )
        off = len(hosts)
        hosts += w.hosts
        for phases in w.schedule:
            sched.append(tuple(_shift(ph, off) for ph in phases))
    return Workload(
        name or f"{first.name}x{len(parts)}",
        first.collective,
        first.algorithm,
        tuple(hosts),
        max(w.size_bytes for w in parts),
        tuple(sched),
        first.num_qps,
        first.iterations,
    )


def _shift(ph: col.Phase, off: int) -> col.Phase:
    return col.Phase(
        tuple(col.Transfer(t.peer + off, t.nbytes) for t in ph.sends),
        tuple(col.Transfer(t.peer + off, t.nbytes) for t in ph.recvs),
    )


class RankRunner:
    """Runs one rank's phases on its connections (keyed by peer rank)."""

    def __init__(self, rank: int, workload: Workload, conns: Mapping[int, Connection]) -> None:
        self.rank, self.w, self.conns = rank, workload, conns
        self.phases = workload.schedule[rank]
        self.total = len(self.phases) * workload.iterations
        self.index = -1
        self.pending_recvs = 0
        self.pending_sends = 0
        self.start_ns: int | None = None
        self.end_ns: int | None = None
        self.bytes_sent = 0
        self.bytes_received = 0
        self._advancing = False

    @property
    def done(self) -> bool:
        """True when every phase ran and every send completed."""
        return self.end_ns is not None

    def start(self, now_ns: int) -> None:
        """Begin the first phase."""
        self.start_ns = now_ns
        self._advance(now_ns)

    def _advance(self, now_ns: int) -> None:
        if self._advancing:  # a completion delivered while posting: the loop re-checks
            return
        self._advancing = True
        try:
            while self.pending_recvs == 0 and self.index + 1 < self.total:
                self.index += 1
                ph = self.phases[self.index % len(self.phases)]
                tag = self.index
                self.pending_recvs += len(ph.recvs)
                self.pending_sends += len(ph.sends)
                for t in ph.recvs:
                    self.conns[t.peer].recv(t.nbytes, tag, now_ns)
                for t in ph.sends:
                    self.conns[t.peer].send(t.nbytes, tag, now_ns)
        finally:
            self._advancing = False
        self._check_done(now_ns)

    def _check_done(self, now_ns: int) -> None:
        if (
            self.end_ns is None
            and self.index + 1 == self.total
            and self.pending_recvs == 0
            and self.pending_sends == 0
        ):
            self.end_ns = now_ns

    def on_completion(self, c: Completion) -> None:
        """A send or receive of this rank finished."""
        if c.kind == "recv":
            self.bytes_received += c.nbytes
            self.pending_recvs -= 1
            self._advance(c.done_ns)
        else:
            self.bytes_sent += c.nbytes
            self.pending_sends -= 1
            self._check_done(c.done_ns)


class Deployment:
    """A workload bound to the RNICs of the local hosts."""

    def __init__(
        self,
        workload: Workload,
        nics: Mapping[str, Rnic],
        ips: Mapping[str, str],
        seed: int = 0,
        conn_id_base: int = 0,
    ) -> None:
        self.workload = workload
        self.specs = workload.conn_specs(ips, seed, conn_id_base)
        rank_of = {h: r for r, h in enumerate(workload.hosts)}
        conns: dict[int, dict[int, Connection]] = {}
        self.connections: list[Connection] = []
        for spec, (ra, rb) in zip(self.specs, workload.rank_pairs()):
            for side, me, peer in (("a", ra, rb), ("b", rb, ra)):
                host = workload.hosts[me]
                if host in nics:
                    conn = Connection(nics[host], spec, side)
                    conns.setdefault(me, {})[peer] = conn
                    self.connections.append(conn)
        self.runners: dict[str, RankRunner] = {}
        for host, nic in nics.items():
            if host not in rank_of:
                continue
            r = rank_of[host]
            runner = RankRunner(r, workload, conns.get(r, {}))
            self.runners[host] = runner
            self._hook(nic, runner)

    def _hook(self, nic: Rnic, runner: RankRunner) -> None:
        ids = {s.conn_id for s in self.specs}
        previous = nic.completion_handler

        def handler(c: Completion) -> None:
            if c.conn_id in ids:
                runner.on_completion(c)
            elif previous is not None:
                previous(c)
            else:
                nic.completions.append(c)

        nic.completion_handler = handler

    def start(self, now_ns: int) -> None:
        """Start every local rank."""
        for runner in self.runners.values():
            runner.start(now_ns)

    @property
    def done(self) -> bool:
        """True when every local rank finished."""
        return all(r.done for r in self.runners.values())

    def record(self) -> CollectiveRecord | None:
        """nccl-tests style record over the local ranks (None until all are done)."""
        if not self.runners or not self.done:
            return None
        w = self.workload
        start = min(r.start_ns or 0 for r in self.runners.values())
        end = max(r.end_ns or 0 for r in self.runners.values())
        return CollectiveRecord(
            w.name,
            w.collective,
            w.algorithm,
            len(w.hosts),
            w.size_bytes,
            w.iterations,
            start,
            end,
            w.busbw_factor,
            w.num_qps,
        )

    def flow_records(self) -> list[FlowRecord]:
        """One record per data QP that received bytes on the local RNICs."""
        out = []
        for conn in self.connections:
            for qp in conn.data:
                if qp.rx_payload and qp.first_rx_ns is not None and qp.last_rx_ns is not None:
                    out.append(
                        FlowRecord(
                            conn.peer,
                            conn.nic.ip,
                            FlowId(qp.remote_qpn, qp.qpn),
                            qp.rx_payload,
                            qp.first_rx_ns,
                            qp.last_rx_ns,
                        )
                    )
        return out


def _need(d: Mapping[str, object], key: str, where: str) -> object:
    if key not in d:
        raise UserError(f"{where}: missing key '{key}'")
    return d[key]


def _int(d: Mapping[str, object], key: str, where: str, default: int | None = None) -> int:
    v = d.get(key, default) if default is not None else _need(d, key, where)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise UserError(f"{where}.{key}: want a positive integer, got {v!r}")
    return v


def _hosts(v: object, where: str) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(h, str) for h in v):
        raise UserError(f"{where}: want a list of host names, got {v!r}")
    return list(v)


def workload_from_dict(d: Mapping[str, object], where: str = "workload") -> Workload:
    """Build a workload from a plain mapping (scenario YAML / rnic_process JSON).

    kinds: ``allreduce`` (hosts, size_bytes, algorithm ring|halving_doubling), ``alltoall``
    (hosts, size_bytes), ``incast`` (senders, receiver, size_bytes), ``fat_flows``
    (pairs: [[src, dst], ...], size_bytes), ``reducescatter``/``allgather`` (as allreduce, one
    iteration); all take num_qps, allreduce/alltoall iterations. ``groups`` (a list of host
    lists) instead of ``hosts`` runs one collective per group at once (:func:`concurrent`).
    """
    if not isinstance(d, Mapping):
        raise UserError(f"{where}: want a mapping, got {type(d).__name__}")
    if "groups" in d:  # one collective per host group, all at once
        groups = d["groups"]
        if not isinstance(groups, list) or not groups:
            raise UserError(f"{where}.groups: want a non-empty list of host lists")
        rest = {k: v for k, v in d.items() if k not in ("groups", "name")}
        parts = [
            workload_from_dict(rest | {"hosts": g}, f"{where}.groups[{i}]")
            for i, g in enumerate(groups)
        ]
        name = d.get("name")
        return concurrent(parts, name if isinstance(name, str) else None)
    kind = _need(d, "kind", where)
    size = _int(d, "size_bytes", where)
    qps = _int(d, "num_qps", where, 1)
    if kind == "allreduce":
        algo = d.get("algorithm", "ring")
        if not isinstance(algo, str):
            raise UserError(f"{where}.algorithm: want a string")
        return allreduce(
            _hosts(_need(d, "hosts", where), f"{where}.hosts"),
            size,
            algo,
            qps,
            _int(d, "iterations", where, 1),
        )
    if kind in ("reducescatter", "allgather"):
        algo = d.get("algorithm", "ring")
        hosts = _hosts(_need(d, "hosts", where), f"{where}.hosts")
        return allreduce_half(str(kind), hosts, size, str(algo), qps)
    if kind == "alltoall":
        return alltoall(
            _hosts(_need(d, "hosts", where), f"{where}.hosts"),
            size,
            qps,
            _int(d, "iterations", where, 1),
        )
    if kind == "incast":
        rx = _need(d, "receiver", where)
        if not isinstance(rx, str):
            raise UserError(f"{where}.receiver: want a host name")
        return incast(_hosts(_need(d, "senders", where), f"{where}.senders"), rx, size, qps)
    if kind == "fat_flows":
        pairs = _need(d, "pairs", where)
        if not isinstance(pairs, list) or not all(
            isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(h, str) for h in p)
            for p in pairs
        ):
            raise UserError(f"{where}.pairs: want a list of [src, dst] host pairs")
        return fat_flows([(a, b) for a, b in pairs], size, qps, _int(d, "iterations", where, 1))
    raise UserError(
        f"{where}.kind: unknown workload {kind!r} "
        "(allreduce, reducescatter, allgather, alltoall, incast, fat_flows)"
    )
