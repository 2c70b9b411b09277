"""Stateful v1model externs: registers, counters, meters (trTCM) and digests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.target.errors import CliError

GREEN, YELLOW, RED = 0, 1, 2


class RegisterArray:
    """``register<bit<W>>(N)``: N cells of W bits (out-of-range writes are ignored)."""

    def __init__(self, name: str, size: int, width: int) -> None:
        self.name, self.size, self.width = name, size, width
        self.mask = (1 << width) - 1
        self.values = [0] * size

    def read(self, index: int, old: int = 0) -> int:
        """Cell ``index``; ``old`` (the destination's value) when out of range, as BMv2's
        ``register_read`` then leaves its destination as it was."""
        return self.values[index] if 0 <= index < self.size else old

    def write(self, index: int, value: int) -> None:
        """Store ``value`` truncated to the cell width."""
        if 0 <= index < self.size:
            self.values[index] = value & self.mask

    def reset(self) -> None:
        """Zero every cell."""
        self.values[:] = [0] * self.size


class CounterArray:
    """Packet-and-byte counters (BMv2 counters always count both)."""

    def __init__(self, name: str, size: int, direct_table: str | None = None) -> None:
        self.name, self.size, self.direct_table = name, size, direct_table
        self.packets = [0] * size
        self.bytes = [0] * size

    def count(self, index: int, length: int) -> None:
        """Add one packet of ``length`` bytes to cell ``index`` (ignored if out of range)."""
        if 0 <= index < self.size:
            self.packets[index] += 1
            self.bytes[index] += length

    def reset(self) -> None:
        """Zero every cell."""
        self.packets[:] = [0] * self.size
        self.bytes[:] = [0] * self.size


@dataclass
class _Rate:
    rate: float  # tokens per microsecond
    burst: int
    tokens: int
    last: int  # tokens credited since time 0 when last updated
    color: int


@dataclass
class Meter:
    """BMv2's N-rate N+1-colour marker; with 2 rates the RFC 2698 trTCM.

    As in BMv2 (bm_sim/meters.cpp): integer token buckets, credited from the microseconds
    elapsed since time 0, checked from the highest rate down; a packet that does not fit a
    bucket gets that bucket's colour (RED for the peak rate, YELLOW for the committed one).
    """

    rates: list[_Rate] = field(default_factory=list)

    def set_rates(self, rates: list[tuple[float, float]]) -> None:
        """``[(cir, cbs), (pir, pbs)]`` (lowest rate first), per microsecond; buckets full."""
        for (r0, _), (r1, _) in itertools.pairwise(rates):
            if r0 > r1:
                raise CliError("meter rates must be given from the lowest to the highest")
        self.rates = [_Rate(r, int(b), int(b), 0, i + 1) for i, (r, b) in enumerate(rates)]
        self.rates.reverse()  # tokens are credited from time 0, as in BMv2

    def execute(self, amount: int, now_us: float) -> int:
        """Colour of a packet of ``amount`` units (bytes or 1); unconfigured = GREEN."""
        color = GREEN
        micros = int(now_us)
        for r in self.rates:
            credited = int(micros * r.rate)
            r.tokens = min(r.tokens + max(0, credited - r.last), r.burst)
            r.last = credited
            if r.tokens < amount:
                color = r.color
                break
            r.tokens -= amount
        return color


class MeterArray:
    """``meter(N, MeterType)``: N trTCM meters counting bytes or packets."""

    def __init__(
        self, name: str, size: int, by_bytes: bool, rate_count: int, clock_us: Callable[[], float]
    ) -> None:
        self.name, self.size, self.by_bytes, self.rate_count = name, size, by_bytes, rate_count
        self.meters = [Meter() for _ in range(size)]
        self.clock_us = clock_us

    def execute(self, index: int, length: int) -> int | None:
        """Colour for a packet of ``length`` bytes on meter ``index``; None for an index out
        of range (BMv2 then leaves the destination as it was)."""
        if not 0 <= index < self.size:
            return None
        return self.meters[index].execute(length if self.by_bytes else 1, self.clock_us())

    def set_rates(self, rates: list[tuple[float, float]], index: int | None = None) -> None:
        """Configure one meter (``index``) or all of them."""
        if len(rates) != self.rate_count:
            raise CliError(f"meter {self.name} needs {self.rate_count} rates, got {len(rates)}")
        targets = self.meters if index is None else [self.meter(index)]
        for m in targets:
            m.set_rates(rates)

    def reset(self) -> None:
        """Every meter unconfigured (GREEN) again."""
        self.meters = [Meter() for _ in range(self.size)]

    def meter(self, index: int) -> Meter:
        """The meter at ``index`` (CliError when out of range)."""
        if not 0 <= index < self.size:
            raise CliError(f"meter {self.name}: index {index} out of range (size {self.size})")
        return self.meters[index]


@dataclass(frozen=True)
class Digest:
    """One ``digest()`` message: the learn list's name and its field values in order."""

    receiver: int
    name: str
    values: tuple[int, ...]
