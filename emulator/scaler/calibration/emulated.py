"""Read emulator runs (RunResult JSON) as calibration data for the analytic scaler.

One :class:`EmulatedRun` per collective of a run: the fabric shape and link rates from
``meta.topology``, the job (ranks, placement, algorithm, size, QPs, LB mode) from
``meta.settings``, the measured time / busbw from ``collectives``, and the *measured paths*
from ``flows`` (every data QP's bytes and the RTSW uplink it took).  The emulated endpoints
are 1-GPU hosts, so there is no NVLink stage.

Phases of the emulator's algorithms (``emulator.traffic.collectives``), ranks ``r`` on the
hosts the runner placed them on (``emulator.traffic.workloads.place``)::

    ring  n ranks, S bytes : 1 phase,  2(n-1) steps of S/n bytes, r -> r+1
    halving-doubling (2^k): k phases, level j: partner r xor n/2^(j+1), S/2^(j+1) bytes,
                             2 steps (reduce-scatter + the mirror all-gather)

The bottleneck ``B`` of a phase comes from the measured paths (``paths="measured"``: what
the run's switches really chose), from the RTSW hash replayed on the run's own QP keys
(``"replay"``: the P4 program's hash on the emulator's QPNs; it reproduces the measured
uplinks bit for bit, so it predicts a job's paths without running it), or from the scaler's
own seeded-QPN hash (``"model"``: what an extrapolation assumes).  Link classes counted: NIC up/down,
RTSW uplink, CTSW -> RTSW downlink (one group per spine/leaf pair).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from emulator.errors import UserError
from emulator.measure.flowid import FlowId
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import link_loads

PATHS = ("measured", "replay", "model")
_MODEL_MODES = ("ecmp", "eecmp", "pinning", "ib_static", "ib_adaptive")


def scaler_mode(lb: str) -> str:
    """A run's ``meta.lb`` as a scaler mode: ``ib-<engine>[-ar]`` -> ib_static / ib_adaptive."""
    if lb.startswith("ib-"):
        return "ib_adaptive" if lb.endswith("-ar") else "ib_static"
    return lb


_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:bps|b/s)?\s*$", re.IGNORECASE)
_UNIT = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_PORT = re.compile(r"^rtsw(\d+):(\d+)$")


def parse_rate(value: object, where: str) -> float:
    """Bits/s from a topology rate ('10Mbps', '400Gbps' or a number)."""
    if isinstance(value, int | float) and value > 0:
        return float(value)
    m = _RATE.match(str(value))
    if not m:
        raise UserError(f"{where}: cannot read link rate {value!r}")
    return float(m.group(1)) * _UNIT[m.group(2).lower()]


@dataclass(frozen=True)
class QpPath:
    """One data QP of a run: bytes moved and the RTSW uplink index taken (-1: rack-local)."""

    src: int  # host index
    dst: int
    bytes: int
    uplink: int
    replayed: int  # the uplink the RTSW's hash gives for the QP's key (-1: not hashed)


@dataclass(frozen=True)
class EmulatedRun:
    """One measured collective with everything the scaler needs to replay it."""

    source: str
    topology: str
    racks: int
    gpus_per_rack: int
    spines: int
    uplinks_per_leaf: int
    host_bps: float
    fabric_bps: float
    lb: str
    num_qps: int
    algorithm: str  # ring | halving_doubling
    placement: str
    size_bytes: int
    hosts: tuple[int, ...]  # rank -> host index
    time_s: float
    busbw_Bps: float
    seed: int
    qps: tuple[QpPath, ...]
    retransmissions: int = 0
    drops: int = 0

    @property
    def ranks(self) -> int:
        """Job size."""
        return len(self.hosts)

    @property
    def fabric_hosts(self) -> int:
        """Hosts in the fabric."""
        return self.racks * self.gpus_per_rack

    def scaler_fabric(self) -> ClosFabric:
        """The same fabric as a scaler :class:`ClosFabric` of 1-GPU hosts."""
        return ClosFabric(
            name=self.topology,
            kind="roce",
            gpus=self.fabric_hosts,
            gpus_per_host=1,
            gpus_per_rack=self.gpus_per_rack,
            uplinks_per_leaf=self.uplinks_per_leaf,
            spines=self.spines,
            racks_per_zone=self.racks,
            oversubscription=1.0,
            nic_bps=self.host_bps,
            fabric_link_bps=self.fabric_bps,
        )

    def label(self) -> str:
        """Short description for tables."""
        algo = "hd" if self.algorithm == "halving_doubling" else self.algorithm
        return (
            f"{self.topology} n={self.ranks} {algo} {self.lb} q{self.num_qps} "
            f"{self.size_bytes // 1024}KiB"
        )


@dataclass(frozen=True)
class RunPhase:
    """``steps`` steps of ``bytes_per_conn`` on every rank pair (src, dst) at once."""

    pairs: tuple[tuple[int, int], ...]  # host indices
    bytes_per_conn: float
    steps: int


def phases(run: EmulatedRun) -> list[RunPhase]:
    """The network phases of the run's algorithm (see the module docstring)."""
    n, size, h = run.ranks, run.size_bytes, run.hosts
    if run.algorithm == "ring":
        pairs = tuple((h[r], h[(r + 1) % n]) for r in range(n))
        return [RunPhase(pairs, size / n, 2 * (n - 1))]
    if run.algorithm == "halving_doubling":
        if n & (n - 1):
            raise UserError(f"{run.source}: halving-doubling needs a power-of-two job, got {n}")
        out, dist, level = [], n // 2, 1
        while dist >= 1:
            pairs = tuple((h[r], h[r ^ dist]) for r in range(n))
            out.append(RunPhase(pairs, size / 2**level, 2))
            dist, level = dist // 2, level + 1
        return out
    raise UserError(f"{run.source}: algorithm {run.algorithm!r} is not modelled")


def _slowdown_paths(run: EmulatedRun, ph: RunPhase, replay: bool) -> float:
    """Bottleneck of a phase from the QPs' measured (or hash-replayed) uplinks."""
    conn: dict[tuple[int, int], list[QpPath]] = {}
    for q in run.qps:
        conn.setdefault((q.src, q.dst), []).append(q)
    g, s = run.gpus_per_rack, run.spines
    load: dict[tuple[str, int, int], float] = {}
    for src, dst in ph.pairs:
        for key in (("nic_up", src, 0), ("nic_down", dst, 0)):
            load[key] = load.get(key, 0.0) + 1.0
        if src // g == dst // g:
            continue
        qps = conn.get((src, dst))
        if not qps:
            raise UserError(f"{run.source}: no measured flow from host {src} to host {dst}")
        total = sum(q.bytes for q in qps) or 1
        for q in qps:
            w = q.bytes / total
            up = q.replayed if replay and q.replayed >= 0 else q.uplink
            for key in (("leaf_up", src // g, up), ("spine_down", up % s, dst // g)):
                load[key] = load.get(key, 0.0) + w
    per_pair = run.uplinks_per_leaf // s  # parallel spine->leaf links share one group
    worst = 1.0
    for (cls, _, _), v in load.items():
        cap = run.host_bps if cls.startswith("nic") else run.fabric_bps
        if cls == "spine_down":
            cap *= per_pair
        worst = max(worst, v * run.host_bps / cap)
    return worst


def _slowdown_model(run: EmulatedRun, ph: RunPhase, seed: int) -> float:
    """Bottleneck of a phase with the scaler's own (seeded-QPN) hash replay."""
    src = np.array([p[0] for p in ph.pairs], dtype=np.int64)
    dst = np.array([p[1] for p in ph.pairs], dtype=np.int64)
    mode = run.lb if run.lb in _MODEL_MODES else "ecmp"
    loads = link_loads(run.scaler_fabric(), mode, src, dst, seed=seed, channels=run.num_qps)
    return float(loads.slowdown())


def slowdowns(run: EmulatedRun, paths: str = "measured", seed: int = 0) -> list[float]:
    """Bottleneck ``B`` of every phase, from measured paths or the scaler's hash."""
    if paths not in PATHS:
        raise UserError(f"paths {paths!r}: expected one of {', '.join(PATHS)}")
    if paths in ("measured", "replay") and run.lb != "ib_adaptive":
        return [_slowdown_paths(run, ph, paths == "replay") for ph in phases(run)]
    # adaptive routing splits a flow over uplinks per packet (the run records which, not how
    # much): its B is the model's fluid even split, which is what AR approximates
    return [_slowdown_model(run, ph, seed) for ph in phases(run)]


def _replay_uplink(
    src: str,
    dst: str,
    flow_id: FlowId,
    lb: str,
    algo: str,
    uplinks: int,
    sport: tuple[str, int] = ("qpn_hash", 0),
) -> int:
    """The RTSW uplink p4/roce_fabric.p4 picks for a QP's key (-1 for modes not hashed).

    Key as docs/p4-programs.md: 5-tuple with the UDP sport the RNIC sent (``sport`` = (policy,
    seed) as the run's ``rnic.udp_sport`` and seed), plus the 24-bit destination QP for
    E-ECMP; ``lb_hash = H % 65536``, member ``lb_hash % U``.
    """
    from ipaddress import ip_address

    from emulator.target.hashes import v1model_hash
    from emulator.traffic.connection import QP_SLOTS
    from emulator.traffic.seeding import flow_sport

    if lb not in ("ecmp", "eecmp"):
        return -1
    sq, dq = flow_id.src_qpn, flow_id.dst_qpn
    try:
        fields = [
            (int(ip_address(src)), 32),
            (int(ip_address(dst)), 32),
            (17, 8),
            (flow_sport(sport[0], sport[1], (src, sq), (dst, dq), QP_SLOTS), 16),
            (4791, 16),
        ]
    except ValueError:
        return -1  # not an IPv4 address pair: keep the measured path
    if lb == "eecmp":
        fields.append((dq, 24))
    return v1model_hash(algo, fields, 0, 65536) % uplinks


def _host_index(ip: str, racks: int, g: int, where: str) -> int:
    try:
        _, zone, rack, slot = (int(x) for x in ip.split("."))
    except ValueError:
        raise UserError(f"{where}: flow address {ip!r} is not a 10.zone.rack.slot host") from None
    return (zone * racks + rack) * g + slot - 1


def _placed_hosts(
    workload: dict[str, Any], racks: int, g: int, where: str, seed: int = 0
) -> tuple[int, ...]:
    from emulator.traffic.workloads import place

    if workload.get("hosts"):
        names = list(workload["hosts"])
    else:
        layout = {f"r{r}": [f"h{r * g + i}" for i in range(g)] for r in range(racks)}
        mode = str(workload.get("placement", "spread"))
        names = place(int(workload["ranks"]), layout, mode, seed)
    try:
        return tuple(int(str(n).removeprefix("h")) for n in names)
    except ValueError:
        raise UserError(f"{where}: workload hosts {names} are not h<index> names") from None


def runs_from_result(doc: dict[str, Any], source: str) -> list[EmulatedRun]:
    """Calibration runs from one RunResult document (already JSON-decoded)."""
    from emulator.measure.results import RunResult

    try:
        result = RunResult.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise UserError(f"{source}: not a RunResult: {where}: {err['msg']}") from None
    meta, topo = result.meta, result.meta.topology
    if not meta.complete:
        raise UserError(f"{source}: run incomplete ({meta.incomplete_reason}); not usable")
    if topo.get("kind", "clos") != "clos" or int(topo.get("zones", 1)) != 1:
        raise UserError(f"{source}: meta.topology: only single-zone Clos runs are modelled")
    try:
        racks, g = int(topo["racks"]), int(topo["gpus_per_rack"])
        spines, uplinks = int(topo["spines"]), int(topo["uplinks_per_leaf"])
        links = topo.get("links", {})
        host_bps = parse_rate(links["host"]["rate"], f"{source}: meta.topology.links.host.rate")
        fabric_bps = parse_rate(
            links["fabric"]["rate"], f"{source}: meta.topology.links.fabric.rate"
        )
        workload = dict(meta.settings["workload"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{source}: meta.topology/meta.settings: missing or bad {exc}") from None
    lb = scaler_mode(str(meta.lb or meta.settings.get("switch", {}).get("lb", "ecmp")))
    leaf_hash = str(meta.settings.get("switch", {}).get("hash") or "crc16")
    policy = str((meta.settings.get("rnic") or {}).get("udp_sport") or "qpn_hash")
    sport = (policy, int(meta.seed))
    qps = []
    for i, f in enumerate(result.flows):
        where = f"{source}: flows[{i}]"
        up = -1
        if f.uplinks:
            m = _PORT.match(f.uplinks[0])
            if not m:
                raise UserError(f"{where}.uplinks: cannot read {f.uplinks[0]!r}")
            up = int(m.group(2)) - g - 1
            if not 0 <= up < uplinks:
                raise UserError(f"{where}.uplinks: port {m.group(2)} is not an RTSW uplink")
        src = _host_index(f.src, racks, g, where)
        dst = _host_index(f.dst, racks, g, where)
        replayed = (
            _replay_uplink(f.src, f.dst, f.flow_id, lb, leaf_hash, uplinks, sport)
            if up >= 0
            else -1
        )
        qps.append(QpPath(src, dst, f.bytes, up, replayed))
    hosts = _placed_hosts(workload, racks, g, f"{source}: meta.settings.workload", int(meta.seed))
    out = []
    for c in result.collectives:
        if c.collective != "allreduce":
            continue
        out.append(
            EmulatedRun(
                source=source,
                topology=str(topo.get("name", "?")),
                racks=racks,
                gpus_per_rack=g,
                spines=spines,
                uplinks_per_leaf=uplinks,
                host_bps=host_bps,
                fabric_bps=fabric_bps,
                lb=lb,
                num_qps=int(c.num_qps),
                algorithm=c.algorithm,
                placement=str(meta.placement or workload.get("placement", "spread")),
                size_bytes=int(c.size_bytes),
                hosts=hosts[: c.ranks],
                time_s=float(c.time_ns) * 1e-9,
                busbw_Bps=float(c.busbw_Bps),
                seed=int(meta.seed),
                qps=tuple(qps),
                retransmissions=int(result.totals.retransmissions),
                drops=int(result.totals.drops),
            )
        )
    return out


def is_run_result(doc: object) -> bool:
    """Whether a decoded JSON document looks like a RunResult."""
    return isinstance(doc, dict) and "meta" in doc and "collectives" in doc


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given; a directory stands for every ``result.json`` below it (sorted)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.rglob("result.json")) + sorted(p.glob("*.result.json"))
            if not found:
                raise UserError(f"{p}: directory holds no result.json")
            out.extend(found)
        else:
            out.append(p)
    return out


def read_json(path: Path | str, what: str) -> Any:
    """The decoded JSON file ``path`` (a ``what``); a UserError naming the file if it cannot."""
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def read_runs(paths: list[Path]) -> list[EmulatedRun]:
    """Every AllReduce of the given RunResult files (or directories of them)."""
    runs: list[EmulatedRun] = []
    for path in expand_paths(paths):
        doc = read_json(path, "run result")
        if not is_run_result(doc):
            raise UserError(f"{path}: not a RunResult (no 'meta' and 'collectives')")
        runs.extend(runs_from_result(doc, str(path)))
    return runs
