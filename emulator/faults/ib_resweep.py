"""InfiniBand recovery: the link goes down in ibsim, OpenSM re-sweeps, the new LFTs go in.

    runtime LinkEvent ─► IbRepair ─ call_at(t + delay) ─► ibsim console: Unlink "a"[port] / ReLink
                                                    ─► OpenSM -o (a heavy sweep; wall time kept)
                                                    ─► LFT diff ─► table_modify / add / delete

:class:`LiveIbSubnet` is :class:`emulator.ib.subnet.IbSubnet` with ibsim's console on a pipe,
so links can be cut and restored while it runs, and OpenSM can sweep again. LFT entries are
kept by handle (BMv2 numbers a table's entries from 0 in insertion order, as the run's
commands added them: ``emulator.ib.commands.switch_commands``; a deleted entry's number
comes back one version up, ``LftEntries``). With adaptive routing the
AR port sets follow too (``emulator.ib.commands.ar_diff``: the ports of a dead link leave
every group, a restored link's come back), as a real SM with AR reprograms the switches' AR
groups in the same sweep.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.control.live import LinkEvent
from emulator.ib.commands import ArGroups, ar_diff, equal_cost_ports
from emulator.ib.netfile import ib_port
from emulator.ib.routing import IbRouting
from emulator.ib.subnet import IbRoutingError, IbSubnet, SmOptions
from emulator.target.handles import EntryHandles


class LiveIbSubnet(IbSubnet):
    """ibsim with its console on a pipe: :meth:`set_link` and repeated :meth:`sweep`."""

    console = True

    def command(self, line: str) -> None:
        """One ibsim console command (``Unlink "rtsw0"[3]``)."""
        assert self.ibsim is not None and self.ibsim.stdin is not None
        self.ibsim.stdin.write(line.encode() + b"\n")
        self.ibsim.stdin.flush()

    def set_link(self, a: str, b: str, up: bool) -> None:
        """Cut (or restore) every link between nodes ``a`` and ``b`` in the simulated fabric."""
        for lk in self.topo.links_between(a, b):
            node, port = (lk.a, lk.a_port) if not self.topo.is_host(lk.a) else (lk.b, lk.b_port)
            cmd = "ReLink" if up else "Unlink"
            self.command(f'{cmd} "{node}"[{ib_port(self.topo, node, port)}]')
        pair = frozenset((a, b))
        self.cut = self.cut - {pair} if up else self.cut | {pair}

    #: node pairs whose links are cut in the simulated fabric now
    cut: frozenset[frozenset[str]] = frozenset()

    def _sm_on_a_live_port(self) -> None:
        """Put the SM on the first host whose link is not cut: with its own port down,
        OpenSM waits for it and never sweeps (a cluster's standby SM takes over; the LIDs
        stay, from guid2lid)."""
        for host in self.topo.hosts:
            if not any(host.name in pair for pair in self.cut):
                self.sm_host = host.name
                return
        raise IbRoutingError("every host's link is cut: no port left for the subnet manager")

    #: sweeps where OpenSM fell back to another engine (ftree on a fabric that lost a link
    #: is no longer a fat tree: OpenSM routes it with minhop, as on a real cluster)
    fallbacks: int = 0

    def sweep(self, opts: SmOptions) -> tuple[IbRouting, float]:
        """OpenSM once more (a full sweep of the current fabric); routing and wall seconds."""
        self._routed = False
        self.keep_lids = True  # a re-sweep: the LIDs the run was programmed with stay
        self._sm_on_a_live_port()
        t0 = time.monotonic()
        try:
            routing = self.route(opts)
        except IbRoutingError as exc:
            if "exited 0, routed with " not in str(exc):
                raise
            self.fallbacks += 1
            routing = self._read_back(opts)
        return routing, time.monotonic() - t0


@dataclass
class LftEntries:
    """One switch's LFT entries: the handle of each LID's entry, and the allocator that
    gives the next handles as BMv2 does (a deleted entry's index comes back one version
    up: ``emulator.target.tables.EntryHandles``)."""

    handles: dict[int, int] = field(default_factory=dict)
    alloc: EntryHandles = field(default_factory=EntryHandles)


def lft_handles(routing: IbRouting) -> dict[str, LftEntries]:
    """switch -> its LFT entries as the run's initial ``table_add lft`` lines made them."""
    out = {}
    for sw, lft in routing.lfts.items():
        entries = LftEntries()
        for lid in sorted(lid for lid, p in lft.items() if p):
            entries.handles[lid] = entries.alloc.new()
        out[sw] = entries
    return out


def lft_diff(old: Mapping[int, int], new: Mapping[int, int], entries: LftEntries) -> list[str]:
    """Commands taking one switch's LFT from ``old`` to ``new`` (``entries`` updated)."""
    lines = []
    handles = entries.handles
    for lid in sorted(set(old) | set(new)):
        was, now = old.get(lid, 0), new.get(lid, 0)
        if was == now:
            continue
        if now and lid in handles:
            lines.append(f"table_modify lft forward {handles[lid]} => {now}")
        elif now:
            handles[lid] = entries.alloc.new()
            lines.append(f"table_add lft forward {lid} => {now}")
        elif lid in handles:
            lines.append(f"table_delete lft {handles[lid]}")
            entries.alloc.free(handles.pop(lid))
    return lines


@dataclass(frozen=True)
class IbRepairRecord:
    """One re-sweep installed: the link event, when the LFTs went in (virtual time: at the
    detection delay; Mininet: the wall clock after the sweep and the commands), which switches."""

    event: LinkEvent
    at_ns: int
    switches: tuple[str, ...]
    commands: int
    sweep_s: float
    #: AR register writes among ``commands`` (0 without adaptive routing)
    ar_writes: int = 0


@dataclass
class IbRepair:
    """Hears the runtime's link events; re-sweeps with OpenSM after the detection delay and
    installs the LFT differences and, with adaptive routing, the AR port-set differences
    (the InfiniBand counterpart of the live controller)."""

    subnet: LiveIbSubnet
    opts: SmOptions
    runtime: Any
    detection_delay_ns: int = 0
    #: the run's switches use adaptive routing: repair their AR port sets too
    adaptive: bool = False
    routing: IbRouting | None = None
    handles: dict[str, LftEntries] = field(default_factory=dict)
    repairs: list[IbRepairRecord] = field(default_factory=list)
    #: node pairs whose links are down (as the SM last saw them) and the AR groups installed
    down: set[frozenset[str]] = field(default_factory=set)
    ar_groups: ArGroups = field(default_factory=dict)

    def start(self) -> None:
        """The first sweep (the LFTs the run was programmed with: ftree is deterministic);
        from now on every link event of the runtime reaches :meth:`on_link_event`."""
        self.routing, _ = self.subnet.sweep(self.opts)
        self.handles = lft_handles(self.routing)
        if self.adaptive:
            self.ar_groups = equal_cost_ports(self.subnet.topo, self.routing)
        self.runtime.subscribe(self)

    def on_link_event(self, event: LinkEvent) -> None:
        """Schedule the re-sweep of ``event`` after the detection delay."""
        at = event.t_ns + self.detection_delay_ns
        self.runtime.call_at(at, lambda: self._install(event, at))

    def _install(self, event: LinkEvent, at_ns: int) -> None:
        assert self.routing is not None
        self.subnet.set_link(event.a, event.b, event.up)
        new, secs = self.subnet.sweep(self.opts)
        diffs = {}
        for sw, lft in new.lfts.items():
            entries = self.handles.setdefault(sw, LftEntries())
            lines = lft_diff(self.routing.lfts.get(sw, {}), lft, entries)
            for line in lines:
                self.runtime.switch_cli(sw, line)
            if lines:
                diffs[sw] = lines
        self.routing = new
        ar = self._repair_ar(event, new)
        for sw, lines in ar.items():
            diffs.setdefault(sw, []).extend(lines)
        n = sum(len(v) for v in diffs.values())
        n_ar = sum(len(v) for v in ar.values())
        # real time (Mininet): the LFTs are in only after the sweep and the CLI commands
        done = self.runtime.now_ns() if hasattr(self.runtime, "now_ns") else at_ns
        self.repairs.append(IbRepairRecord(event, done, tuple(sorted(diffs)), n, secs, n_ar))

    def _repair_ar(self, event: LinkEvent, routing: IbRouting) -> dict[str, list[str]]:
        """Install the AR port-set changes of ``event``; switch -> command lines."""
        pair = frozenset((event.a, event.b))
        if event.up:
            self.down.discard(pair)
        else:
            self.down.add(pair)
        if not self.adaptive:
            return {}
        new = equal_cost_ports(self.subnet.topo, routing, self.down)
        out = {}
        for sw, groups in new.items():
            lines = [op.cli() for op in ar_diff(self.ar_groups.get(sw, {}), groups)]
            for line in lines:
                self.runtime.switch_cli(sw, line)
            if lines:
                out[sw] = lines
        self.ar_groups = new
        return out
