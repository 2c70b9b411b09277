"""Where every flow goes under each load-balancing mode, and the resulting link loads.

Path of a flow from GPU ``s`` to GPU ``d`` (choices marked ``*``)::

    nic_up[s] -> leaf_up[rack(s), u*] -> (spine u % S)
        same zone : -> leaf_down[rack(d), v]                     (spine -> leaf)
        other zone: -> spine_up[zone(s), u % S, a*] -> agg_down[zone(d), s'*, a]
                    -> leaf_down[rack(d), v]
    -> nic_down[d]

Choices per mode (``U`` uplinks per leaf, ``S`` spines, ``A`` ATSWs, ``m = U / S``):

    ecmp / eecmp : h16 = crc16(key) on the RTSW, h32 = crc32(key) % 65536 on CTSW/ATSW
                   (p4/roce_fabric.p4: lb_hash = H % 65536, member = lb_hash % group size)
                   u = h16 % U; a = h32 % A; s' = h32 % S; spine->leaf parallel link h32 % m
                   key = 13-byte 5-tuple (ecmp) or 5-tuple + 24-bit dest QP (eecmp)
    pinning      : u = slot(d) % U (the destination's RTSW downlink index); above the
                   leaf the program falls back to the 5-tuple hash, as ecmp
    ib_static    : d-mod-k on the destination LID (= global GPU index): u = d % U,
                   a = (d // U) % A, s' = u % S, v = u      (OpenSM ftree-like, min-hop)
    ib_adaptive  : fluid: every flow is spread evenly over all equal-cost choices

Loads are in *connections*: an E-ECMP sub-flow on one of ``k`` QPs weighs ``1/k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from emulator.errors import UserError
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.flowkeys import flow_keys
from emulator.scaler.model.vhash import crc_rows
from emulator.target.hashes import CRC16_ARC, CRC32_ISO_HDLC, CrcParams

ROCE_MODES = ("ecmp", "eecmp", "pinning")
IB_MODES = ("ib_static", "ib_adaptive")
MODES = ROCE_MODES + IB_MODES
HASHED_MODES = ("ecmp", "eecmp")

#: which v1model hash each switch layer uses: p4/roce_fabric.p4's control-plane default
#: (crc16 on RTSWs, crc32 on CTSWs and ATSWs, same field list, no salt; docs/p4-programs.md)
LAYER_HASH = {"leaf": CRC16_ARC, "spine": CRC32_ISO_HDLC, "agg": CRC32_ISO_HDLC}

LINK_CLASSES = ("nic_up", "nic_down", "leaf_up", "leaf_down", "spine_up", "agg_down")


def modes_for(kind: str) -> tuple[str, ...]:
    """Load-balancing modes that exist on a fabric kind."""
    return ROCE_MODES if kind == "roce" else IB_MODES


@dataclass(frozen=True)
class LinkLoads:
    """Per-link load (connections), flow count and capacity (bit/s) of each link class."""

    load: dict[str, np.ndarray]
    count: dict[str, np.ndarray]
    capacity: dict[str, float]
    nic_bps: float
    group: dict[str, int]  # links per equal-cost group (an RTSW's uplinks, ...)

    def slowdown(self) -> float:
        """max over links of load * nic_rate / capacity: 1.0 = every connection at line rate."""
        worst = 0.0
        for name, load in self.load.items():
            if load.size:
                worst = max(worst, float(load.max()) * self.nic_bps / self.capacity[name])
        return worst

    def layer_stats(self, name: str) -> dict[str, float]:
        """Max load, mean load over the groups carrying traffic, max/mean and max flows.

        The mean is over every link of each equal-cost group (e.g. an RTSW's uplinks) that
        carries any traffic, so max/mean is the balls-into-bins imbalance of that layer.
        """
        load = self.load[name].reshape(-1, self.group[name])
        active = load[load.sum(axis=1) > 0]
        if not active.size:
            return {"max": 0.0, "mean": 0.0, "max_over_mean": 0.0, "max_flows": 0}
        mean = float(active.mean())
        return {
            "max": float(active.max()),
            "mean": mean,
            "max_over_mean": float(active.max()) / mean,
            "max_flows": int(self.count[name].max()),
        }

    def load_histogram(self, name: str) -> dict[float, int]:
        """Load-per-link distribution (connections, 4 decimals): {load: links} for used links."""
        load = np.round(self.load[name], 4)
        values, freq = np.unique(load[load > 0], return_counts=True)
        return {float(v): int(f) for v, f in zip(values, freq)}

    def flows_per_group(self, name: str) -> dict[int, int]:
        """{flows entering a group: number of groups} for groups that carry traffic."""
        per = self.count[name].reshape(-1, self.group[name]).sum(axis=1)
        values, freq = np.unique(per[per > 0], return_counts=True)
        return {int(v): int(f) for v, f in zip(values, freq)}

    def histogram(self, name: str) -> dict[int, int]:
        """Flows-per-link distribution of one link class: {flows: links} (links with >= 1)."""
        counts = self.count[name]
        values, freq = np.unique(counts[counts > 0], return_counts=True)
        return {int(v): int(f) for v, f in zip(values, freq)}


def expand_qps(
    src: np.ndarray, dst: np.ndarray, qps: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per (connection, QP): repeated src/dst and the QP index."""
    qp = np.tile(np.arange(qps, dtype=np.int64), len(src))
    return np.repeat(src, qps), np.repeat(dst, qps), qp


def _coords(fabric: ClosFabric, gpu: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rack = gpu // fabric.gpus_per_rack
    return rack, rack // fabric.racks_per_zone, gpu % fabric.gpus_per_rack


def choose_paths(
    fabric: ClosFabric,
    mode: str,
    src: np.ndarray,
    dst: np.ndarray,
    qp: np.ndarray,
    qps: int,
    slot: int,
    seed: int,
) -> dict[str, np.ndarray]:
    """Uplink ``u``, ATSW ``a``, destination spine ``s2`` and leaf downlink ``v`` of every flow."""
    U, S, A = fabric.uplinks_per_leaf, fabric.spines, fabric.aggs
    m = U // S
    d_slot = dst % fabric.gpus_per_rack
    if mode in ("ecmp", "eecmp", "pinning"):
        rows = flow_keys(fabric, src, dst, slot, qp, qps, seed).rows(with_qp=mode == "eecmp")
        if mode == "pinning":  # leaf pins on the destination slice; spines/ATSWs hash
            u = d_slot % U
        else:
            u = lb_hash(LAYER_HASH["leaf"], rows) % U
        h_sp = lb_hash(LAYER_HASH["spine"], rows)
        h_ag = (
            h_sp if LAYER_HASH["agg"] == LAYER_HASH["spine"] else lb_hash(LAYER_HASH["agg"], rows)
        )
        j = h_sp % m
        s2 = h_ag % S
        return {"u": u, "a": h_sp % A, "s2": s2, "v_same": u % S + S * j, "v_cross": s2 + S * j}
    if mode != "ib_static":
        raise UserError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    u = dst % U
    s2 = u % S
    return {"u": u, "a": (dst // U) % A, "s2": s2, "v_same": u, "v_cross": u}


def lb_hash(params: CrcParams, rows: np.ndarray) -> np.ndarray:
    """The program's 16-bit ``lb_hash = H(bytes) % 65536`` of every row, as int64."""
    return (crc_rows(params, rows) & np.uint64(0xFFFF)).astype(np.int64)


def link_sizes(fabric: ClosFabric) -> dict[str, int]:
    """Number of links of every link class (in ``LINK_CLASSES`` order)."""
    U, S, A = fabric.uplinks_per_leaf, fabric.spines, fabric.aggs
    return {
        "nic_up": fabric.gpus,
        "nic_down": fabric.gpus,
        "leaf_up": fabric.racks * U,
        "leaf_down": fabric.racks * U,
        "spine_up": fabric.zones * S * A,
        "agg_down": fabric.zones * S * A,
    }


def link_capacities(fabric: ClosFabric) -> dict[str, float]:
    """Rate (bit/s) of the links of every class."""
    return {
        "nic_up": fabric.nic_bps,
        "nic_down": fabric.nic_bps,
        "leaf_up": fabric.leaf_uplink_bps,
        "leaf_down": fabric.leaf_uplink_bps,
        "spine_up": fabric.agg_link_bps,
        "agg_down": fabric.agg_link_bps,
    }


def flow_paths(
    fabric: ClosFabric,
    mode: str,
    src: np.ndarray,
    dst: np.ndarray,
    k: int,
    slot: int = 0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-flow link indices, one column per class of ``LINK_CLASSES`` (-1: hop not taken).

    Every connection ``src[i] -> dst[i]`` becomes ``k`` flows (QPs); also returns the
    connection index of every flow.  Not for ``ib_adaptive`` (which splits flows).
    """
    U, S, A = fabric.uplinks_per_leaf, fabric.spines, fabric.aggs
    fs, fd, qp = expand_qps(src, dst, k)
    conn = np.repeat(np.arange(len(src)), k)
    paths = np.full((len(fs), len(LINK_CLASSES)), -1, dtype=np.int64)
    paths[:, 0], paths[:, 1] = fs, fd
    s_rack, s_zone, _ = _coords(fabric, fs)
    d_rack, d_zone, _ = _coords(fabric, fd)
    off = np.flatnonzero(s_rack != d_rack)
    if off.size:
        ch = choose_paths(fabric, mode, fs[off], fd[off], qp[off], k, slot, seed)
        xz = s_zone[off] != d_zone[off]
        paths[off, 2] = s_rack[off] * U + ch["u"]
        paths[off, 3] = d_rack[off] * U + np.where(xz, ch["v_cross"], ch["v_same"])
        cz = off[xz]
        paths[cz, 4] = (s_zone[cz] * S + ch["u"][xz] % S) * A + ch["a"][xz]
        paths[cz, 5] = (d_zone[cz] * S + ch["s2"][xz]) * A + ch["a"][xz]
    return paths, conn


def link_loads(
    fabric: ClosFabric,
    mode: str,
    src: np.ndarray,
    dst: np.ndarray,
    qps: int = 1,
    slot: int = 0,
    seed: int = 0,
    channels: int = 1,
) -> LinkLoads:
    """Loads of every link when connections ``src[i] -> dst[i]`` run at once under ``mode``.

    Every connection is carried by ``channels`` QPs (NCCL channels, in every mode) times
    ``qps`` QPs per channel in E-ECMP (QP scaling); each QP carries an equal share.
    """
    if mode not in MODES:
        raise UserError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    if qps < 1 or channels < 1:
        raise UserError(f"--qps and --channels must be >= 1, got {qps} and {channels}")
    k = channels * (qps if mode == "eecmp" else 1)
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    U, S, A = fabric.uplinks_per_leaf, fabric.spines, fabric.aggs
    sizes = link_sizes(fabric)
    load = {name: np.zeros(n) for name, n in sizes.items()}
    count = {name: np.zeros(n, dtype=np.int64) for name, n in sizes.items()}

    def add(name: str, index: np.ndarray, weight: float) -> None:
        load[name] += np.bincount(index, minlength=sizes[name]) * weight
        count[name] += np.bincount(index, minlength=sizes[name])

    paths = None
    if mode == "ib_adaptive":
        s_rack, s_zone, _ = _coords(fabric, src)
        d_rack, d_zone, _ = _coords(fabric, dst)
        add("nic_up", src, 1.0)
        add("nic_down", dst, 1.0)
        off, cross = s_rack != d_rack, s_zone != d_zone
        _adaptive(fabric, add, s_rack[off], d_rack[off], s_zone[cross], d_zone[cross])
    else:
        paths, _ = flow_paths(fabric, mode, src, dst, k, slot, seed)
        for col, name in enumerate(LINK_CLASSES):
            index = paths[:, col]
            add(name, index[index >= 0], 1.0 / k)
    groups = {
        "nic_up": 1,
        "nic_down": 1,
        "leaf_up": U,
        "leaf_down": U,
        "spine_up": A,
        "agg_down": S * A,
    }
    return LinkLoads(load, count, link_capacities(fabric), fabric.nic_bps, groups)


def _adaptive(fabric: ClosFabric, add, s_rack, d_rack, s_zone, d_zone) -> None:  # type: ignore[no-untyped-def]
    """Fluid adaptive routing: each flow split evenly over every equal-cost next hop."""
    U, S, A = fabric.uplinks_per_leaf, fabric.spines, fabric.aggs
    lanes = np.arange(U)
    add("leaf_up", (s_rack[:, None] * U + lanes).ravel(), 1.0 / U)
    add("leaf_down", (d_rack[:, None] * U + lanes).ravel(), 1.0 / U)
    sa = np.arange(S * A)
    add("spine_up", (s_zone[:, None] * S * A + sa).ravel(), 1.0 / (S * A))
    add("agg_down", (d_zone[:, None] * S * A + sa).ravel(), 1.0 / (S * A))
