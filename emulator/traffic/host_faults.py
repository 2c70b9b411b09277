"""The RNIC process's side of fault injection: when its RNIC retransmitted, and what a
fault does to the frames its host sends.

:class:`EventLog` keeps a bounded log of when the RNIC's retransmission and timeout
counters rose (CLOCK_MONOTONIC ns), written with the process's report, so the Mininet
runtime can attribute them to fault windows as the virtual runtime does
(``emulator.faults.report``). Events less than ``RESOLUTION_NS`` after the entry they
would follow join it (``[t_ns, n]``: ``n`` events from ``t_ns`` on); at ``MAX_ENTRIES``
further events join the last entry, so nothing is lost and the log stays bounded.

:class:`HostImpair` is a seeded loss / corruption of the data frames the host sends (the
host end of a ``loss`` / ``corrupt`` fault on its link: the switch end is the switch
process's ``set_port_impair``). The runtime writes the setting to the process's impair
file and sends it ``SIGHUP``; the process reads it before its next frame::

    {"fault": 1, "mode": "loss" | "corrupt" | "off", "probability": 0.05, "seed": 123}

As on a virtual link, one impairment acts at a time: a newer fault's replaces it, and
"off" ends only the fault's own.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from emulator.target.impair import Impairment

RESOLUTION_NS = 100_000
MAX_ENTRIES = 65_536
#: RnicCounters field -> the event log's key
LOGGED = {"retransmitted_pkts": "retransmissions", "timeouts": "timeouts"}
ETH_MAC_CONTROL = b"\x88\x08"  # PFC frames: exempt, as on every impaired link


class EventLog:
    """When the RNIC's retransmission and timeout counters rose (bounded, see module doc)."""

    def __init__(self) -> None:
        self._last = dict.fromkeys(LOGGED, 0)
        self.entries: dict[str, list[list[int]]] = {k: [] for k in LOGGED.values()}

    def observe(self, counters: Any, now_ns: int) -> None:
        """Log what rose since the last call, at ``now_ns``."""
        for field, key in LOGGED.items():
            value = int(getattr(counters, field))
            rise = value - self._last[field]
            if rise <= 0:
                continue
            self._last[field] = value
            log = self.entries[key]
            if log and (now_ns - log[-1][0] < RESOLUTION_NS or len(log) >= MAX_ENTRIES):
                log[-1][1] += rise
            else:
                log.append([now_ns, rise])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``resolution_ns`` and ``[t_ns, n]`` lists per counter."""
        return {"resolution_ns": RESOLUTION_NS, **self.entries}


def impair_file(out: str | Path) -> str:
    """The impair control file next to an RNIC process's report ``out``."""
    return f"{out}.impair"


def write_impair(path: str | Path, fault: int, mode: str, probability: float, seed: int) -> None:
    """Write an impair setting atomically (the process may read it at any time)."""
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps({"fault": fault, "mode": mode, "probability": probability,
                               "seed": seed}))  # fmt: skip
    tmp.replace(path)


class HostImpair:
    """Loss or corruption of the data frames the host sends, per fault (see module doc)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.pending = False
        self.current: Impairment | None = None
        self.by_fault: dict[int, Impairment] = {}

    def on_signal(self, _signum: int, _frame: object) -> None:
        """SIGHUP: the setting changed; read before the next frame."""
        self.pending = True

    def _reload(self) -> None:
        self.pending = False
        if self.path is None:
            return
        try:
            d = json.loads(Path(self.path).read_text())
        except (OSError, ValueError):
            return
        fault = int(d.get("fault", -1))
        if d.get("mode") == "off":  # only its own impairment (a later fault's replaced it)
            if self.current is not None and self.current.fault == fault:
                self.current.active = False
                self.current = None
            return
        if d.get("mode") in ("loss", "corrupt"):
            imp = Impairment(d["mode"], float(d["probability"]), random.Random(d["seed"]), fault)
            old = self.by_fault.get(fault)
            if old is not None:  # the same fault again: keep counting on
                imp.seen, imp.lost, imp.corrupted = old.seen, old.lost, old.corrupted
            self.by_fault[fault] = self.current = imp

    def __call__(self, frame: bytes) -> bytes | None:
        """The frame as the host's wire takes it: None (lost), corrupted or untouched."""
        if self.pending:
            self._reload()
        if self.current is None or frame[12:14] == ETH_MAC_CONTROL:
            return frame
        return self.current(frame)

    def report(self) -> dict[str, dict[str, int]]:
        """Per fault index: data frames ``lost`` and ``corrupted`` here."""
        return {
            str(f): {"lost": m.lost, "corrupted": m.corrupted} for f, m in self.by_fault.items()
        }
