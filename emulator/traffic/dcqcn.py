"""DCQCN reaction point (sender rate control on CNPs); off by default, as in Meta's fabric.

Simplified from Zhu et al., SIGCOMM 2015: on a CNP the current rate is cut by alpha/2 and
alpha grows; every ``period_ns`` without a CNP alpha decays and the rate recovers (fast
recovery towards the target for ``fast_recovery_steps`` periods, then additive increase).
Time is applied lazily when the rate is read, so the reaction point needs no timers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DcqcnConfig:
    """DCQCN parameters (rates in bit/s, times in ns)."""

    g: float = 1 / 256
    period_ns: int = 55_000
    fast_recovery_steps: int = 5
    rate_ai_bps: float = 40e6
    min_rate_bps: float = 10e6
    cnp_interval_ns: int = 50_000  # notification point: at most one CNP per QP per interval


class DcqcnRate:
    """Per-QP DCQCN rate state."""

    def __init__(self, cfg: DcqcnConfig, line_bps: float, now_ns: int = 0) -> None:
        self.cfg = cfg
        self.line = line_bps
        self.rc = line_bps
        self.rt = line_bps
        self.alpha = 1.0
        self.stage = 0
        self.last_update = now_ns
        self.cnps = 0

    def on_cnp(self, now_ns: int) -> None:
        """React to a congestion notification."""
        self.rate(now_ns)
        self.rt = self.rc
        self.rc = max(self.cfg.min_rate_bps, self.rc * (1 - self.alpha / 2))
        self.alpha = (1 - self.cfg.g) * self.alpha + self.cfg.g
        self.stage = 0
        self.last_update = now_ns
        self.cnps += 1

    def rate(self, now_ns: int) -> float:
        """Current sending rate, after applying the periods elapsed since the last update."""
        cfg = self.cfg
        steps = (now_ns - self.last_update) // cfg.period_ns
        if steps <= 0:
            return self.rc
        self.last_update += steps * cfg.period_ns
        for _ in range(min(steps, 10_000)):
            if self.rc >= self.line:
                break
            self.alpha *= 1 - cfg.g
            if self.stage >= cfg.fast_recovery_steps:
                self.rt = min(self.line, self.rt + cfg.rate_ai_bps)
            self.rc = min(self.line, (self.rt + self.rc) / 2)
            self.stage += 1
        return self.rc
