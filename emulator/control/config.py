"""What the control plane configures besides routes: LB mode, hashes, QoS, PFC, ECN."""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator import vocab
from emulator.control.errors import ControlError
from emulator.traffic.qos import dscp_to_tc_entries
from emulator.vocab import HashAlgo, LbMode


def _default_hashes() -> dict[str, str]:
    # different algorithms per tier avoid hash polarisation between layers
    return {"leaf": "crc16", "spine": "crc32", "agg": "crc32"}


@dataclass(frozen=True)
class PfcConfig:
    """PFC generation: thresholds in packets of queue depth, pause time in 512-bit quanta.

    ``xoff``/``xon`` None (the default, and the only default anywhere): derived by the
    controller from the topology's rates and delays, ``mtu``, the queue depth and
    ``response_ns`` (emulator.control.pfc_headroom).
    """

    enabled: bool = True
    priorities: tuple[int, ...] = (vocab.TC_BULK,)
    xoff: int | None = None
    xon: int | None = None
    #: pause time per XOFF in 512-bit quanta; None: derived (pfc_headroom.pause_quanta)
    quanta: int | None = None
    #: largest payload of the lossless class (RoCE path MTU) and the neighbours' response
    #: time beyond finishing their current frame; both only feed the derivation
    mtu: int = 1024
    response_ns: int = 0
    #: XOFF refresh interval; None = half the pause time at the switch's slowest port
    refresh_us: int | None = None

    def refresh_for(self, rate_bps: float) -> int:
        """Refresh interval in microseconds for a port of ``rate_bps``."""
        if self.refresh_us is not None:
            return self.refresh_us
        quanta = self.quanta if self.quanta is not None else 0xFFFF
        pause_us = quanta * 512 / rate_bps * 1e6
        return max(1, int(pause_us / 2))


@dataclass(frozen=True)
class FabricConfig:
    """Per-fabric control-plane settings; the defaults follow Meta's RoCE fabric."""

    lb_mode: LbMode = LbMode.EECMP
    #: hash algorithm per role (leaf, spine, agg)
    hash_algos: dict[str, str] = field(default_factory=_default_hashes)
    flowlet_gap_us: int = 100
    #: (dscp, traffic class) pairs; other DSCPs get TC 0
    dscp_to_tc: tuple[tuple[int, int], ...] = tuple(dscp_to_tc_entries())
    #: traffic class -> egress queue (identity: the TC is the queue and the PFC priority)
    tc_to_queue: tuple[tuple[int, int], ...] = tuple((tc, tc) for tc in range(vocab.NUM_TCS))
    pfc: PfcConfig = field(default_factory=PfcConfig)
    #: ECN CE-marking threshold (packets) per priority; empty = off (Meta runs DCQCN off)
    ecn_thresholds: tuple[tuple[int, int], ...] = ()
    #: set_queue_depth for every queue (packets); None keeps the target's default (64)
    queue_depth: int | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "lb_mode", LbMode(self.lb_mode))
        except ValueError:
            modes = [str(m) for m in LbMode]
            raise ControlError(f"lb_mode {self.lb_mode!r}: expected one of {modes}") from None
        for role, algo in self.hash_algos.items():
            if algo not in set(HashAlgo):
                algos = [str(h) for h in HashAlgo]
                raise ControlError(f"hash_algos[{role!r}] = {algo!r}: expected one of {algos}")
        if self.flowlet_gap_us < 0:
            raise ControlError(f"flowlet_gap_us must be >= 0, got {self.flowlet_gap_us}")
        for dscp, tc in self.dscp_to_tc:
            if not (0 <= dscp < 64 and 0 <= tc < 8):
                raise ControlError(f"dscp_to_tc entry ({dscp}, {tc}): dscp 0-63, tc 0-7")
        for tc, queue in self.tc_to_queue:
            if not (0 <= tc < 8 and 0 <= queue < 8):
                raise ControlError(f"tc_to_queue entry ({tc}, {queue}): both 0-7")
        p = self.pfc
        if not all(0 <= prio < 8 for prio in p.priorities):
            raise ControlError(f"pfc.priorities {p.priorities}: each 0-7")
        if (p.xoff is None) != (p.xon is None):
            raise ControlError("pfc thresholds: give both xoff and xon, or neither (derived)")
        if p.xoff is not None and p.xon is not None and not (0 <= p.xon < p.xoff < 1 << 19):
            raise ControlError(f"pfc thresholds: need 0 <= xon < xoff, got {p.xon}, {p.xoff}")
        if p.mtu <= 0 or p.response_ns < 0:
            raise ControlError("pfc.mtu must be > 0 and pfc.response_ns >= 0")
        if p.quanta is not None and not (0 < p.quanta < 1 << 16):
            raise ControlError(f"pfc.quanta must be 1-65535, got {p.quanta}")
        for prio, threshold in self.ecn_thresholds:
            if not (0 <= prio < 8 and 0 <= threshold < 1 << 19):
                raise ControlError(f"ecn threshold ({prio}, {threshold}) out of range")
        if self.queue_depth is not None and self.queue_depth <= 0:
            raise ControlError(f"queue_depth must be > 0, got {self.queue_depth}")

    def hash_for(self, role: str) -> str:
        """The hash algorithm a switch of ``role`` uses (crc16 when unspecified)."""
        return self.hash_algos.get(role, "crc16")
