"""RoCEv2 flow keys for every flow of a traffic pattern, as numpy arrays.

The ONE place where the scaler defines how a flow looks on the wire (until
:mod:`emulator.traffic` and ``docs/p4-programs.md`` pin it for everyone):

* IPv4 of GPU (zone z, rack r, slot s) = ``10.z.r.(s+1)`` (the topology address plan);
* UDP dport 4791 (RoCEv2), IP protocol 17;
* UDP sport from the QP pair, as the Linux kernel does (``rdma_calc_flow_label`` then
  ``rdma_flow_label_to_udp_sport``): ``v = lqpn*rqpn; fl = (v ^ v>>20 ^ v>>40) & 0xFFFFF;
  sport = 0xC000 | ((fl & 0x3FFF) ^ (fl >> 14))``;
* QPNs: every NIC gets a seeded random 24-bit base; connection slot ``c``, QP ``q`` of ``k``
  uses ``base + c*k + q`` at the sender and ``base + RECV_OFFSET + c*k + q`` at the receiver.

Hash inputs (what the RoCE fabric program feeds its selectors)::

    ECMP   : src_ip(32) dst_ip(32) proto(8) sport(16) dport(16)              13 bytes
    E-ECMP : the same 13 bytes + BTH dest QP(24)                             16 bytes
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.vhash import pack_fields_np
from emulator.vocab import IP_PROTO_UDP, UDP_PORT_ROCEV2

ROCEV2_UDP_PORT = UDP_PORT_ROCEV2  # the names the scaler's tests use
RECV_OFFSET = 0x8000
QPN_MASK = 0xFFFFFF


def gpu_ipv4(fabric: ClosFabric, gpu: np.ndarray) -> np.ndarray:
    """IPv4 addresses (as uint64 ints) of GPUs by global index: ``10.zone.rack.(slot+1)``."""
    gpu = np.asarray(gpu, dtype=np.int64)
    slot = gpu % fabric.gpus_per_rack
    rack = (gpu // fabric.gpus_per_rack) % fabric.racks_per_zone
    zone = gpu // fabric.gpus_per_zone
    ip = (10 << 24) | (zone << 16) | (rack << 8) | (slot + 1)
    return ip.astype(np.uint64)


def udp_sport(src_qpn: np.ndarray | int, dst_qpn: np.ndarray | int) -> np.ndarray:
    """RoCEv2 UDP source port from the local and remote QPN (Linux kernel formula)."""
    v = np.asarray(src_qpn, dtype=np.uint64) * np.asarray(dst_qpn, dtype=np.uint64)
    v = v ^ (v >> np.uint64(20))
    v = v ^ (v >> np.uint64(40))
    fl = v & np.uint64(0xFFFFF)
    low = (fl & np.uint64(0x3FFF)) ^ ((fl & np.uint64(0xFC000)) >> np.uint64(14))
    return low | np.uint64(0xC000)


def qpn_bases(gpus: int, seed: int) -> np.ndarray:
    """A seeded random base QPN per NIC (what the driver happens to hand out)."""
    rng = np.random.default_rng([seed, 0x51])
    return rng.integers(0x100, 0xFF0000, size=gpus, dtype=np.uint64)


@dataclass(frozen=True)
class FlowKeys:
    """Header fields of ``n`` flows (one row per flow, i.e. per QP)."""

    src_ip: np.ndarray
    dst_ip: np.ndarray
    sport: np.ndarray
    dst_qpn: np.ndarray

    def rows(self, with_qp: bool) -> np.ndarray:
        """Hash input rows: 13-byte 5-tuple, plus the 3-byte dest QP when ``with_qp``."""
        fields: list[tuple[np.ndarray | int, int]] = [
            (self.src_ip, 32),
            (self.dst_ip, 32),
            (IP_PROTO_UDP, 8),
            (self.sport, 16),
            (ROCEV2_UDP_PORT, 16),
        ]
        if with_qp:
            fields.append((self.dst_qpn, 24))
        return pack_fields_np(fields)


def flow_keys(
    fabric: ClosFabric,
    src: np.ndarray,
    dst: np.ndarray,
    slot: np.ndarray | int,
    qp: np.ndarray | int,
    qps: int,
    seed: int,
) -> FlowKeys:
    """Keys of flows ``src[i] -> dst[i]`` on connection ``slot`` using QP ``qp`` of ``qps``."""
    bases = qpn_bases(fabric.gpus, seed)
    slot = np.asarray(slot, dtype=np.uint64)
    qp = np.asarray(qp, dtype=np.uint64)
    offset = slot * np.uint64(qps) + qp
    mask = np.uint64(QPN_MASK)
    src_qpn = (bases[src] + offset) & mask
    dst_qpn = (bases[dst] + np.uint64(RECV_OFFSET) + offset) & mask
    return FlowKeys(
        src_ip=gpu_ipv4(fabric, src),
        dst_ip=gpu_ipv4(fabric, dst),
        sport=udp_sport(src_qpn, dst_qpn),
        dst_qpn=dst_qpn,
    )
