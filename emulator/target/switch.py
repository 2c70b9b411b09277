"""The built-in switch: BMv2 ``simple_switch`` (v1model) packet flow around a compiled program.

::

    receive(port, frame)
      └─ parser ─ verify checksums ─ ingress ─┬─ I2E clone  ──► mirror session ─┐
                    ▲                         ├─ resubmit   ──► ingress again   │
                    │                         ├─ multicast  ──► replicas        ├─► TM enqueue
                    │                         └─ unicast egress_spec (511 drop) ┘
    transmit(port)  │
      └─ TM dequeue ─ egress ─┬─ E2E clone ──► mirror session ──► TM enqueue
                              ├─ mark_to_drop ──► dropped (None)
                              └─ update checksums ─ deparse ─┬─ recirculate ──► ingress
                                                             └─ frame out (truncated)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from emulator import speedups
from emulator.target import fastmatch, flowcache, framereplay
from emulator.target import packet as pk
from emulator.target.errors import CliError
from emulator.target.externs import CounterArray, Digest, RegisterArray
from emulator.target.flowcache import PipelineCaches
from emulator.target.framereplay import FrameReplay
from emulator.target.packet import Pkt
from emulator.target.pipeline import CompiledProgram, run
from emulator.target.primitives import P4AssertionFailure
from emulator.target.program import load_json
from emulator.target.runtime_cli import RuntimeCli
from emulator.target.tables import Table
from emulator.target.tm import TrafficManager
from emulator.vocab import EtherType

DROP_PORT = 511
MAC_CONTROL = EtherType.MAC_CONTROL.to_bytes(2, "big")  # 802.3x/802.1Qbb (PFC)
#: resubmit chains longer than this are dropped; BMv2 has no bound (a packet resubmitted
#: for ever loops for ever), so it is far above any chain that ends (40 on simple_switch)
MAX_REENTRIES = 1024
MAX_WORK = 4096  # packets one process() call may handle (bounds clone/recirc storms)

Item = tuple[int, int, Pkt]  # (egress port, queue priority, packet)


class Switch:
    """One v1model switch running a BMv2 JSON program; see the module diagram."""

    def __init__(
        self,
        program: dict[str, Any] | str,
        device_id: int = 0,
        priority_queues: int = 1,
        clock: Callable[[], int] | None = None,
        port_speed_bps: dict[int, float] | None = None,
        seed: int = 0,
        log: Callable[[str], None] | None = None,
        tm: Any = None,
        pfc_to_pipeline: bool = True,
        flow_cache: bool | None = None,
    ) -> None:
        self.device_id = device_id
        self.pfc_to_pipeline = pfc_to_pipeline
        # without a clock given, time stands at 1 us: simple_switch's timestamps count
        # microseconds since it started, so a packet never sees 0 there either
        self.now_ns = 1000
        self.clock: Callable[[], int] = clock or (lambda: self.now_ns)
        self.log_lines: deque[str] = deque(maxlen=1000)
        self._log = log or self.log_lines.append
        self.program = CompiledProgram(program, self._now_us, seed, self._log)
        inline = speedups.enabled("FASTACTIONS")  # inlines into FASTMATCH's nodes: implies it
        fast = speedups.enabled("FASTMATCH") or (inline and not speedups.turned_off("FASTMATCH"))
        self.fast = fastmatch.attach(self.program, inline) if fast else None
        self.replay = self._replay(program, flow_cache)
        self.caches = None if self.replay else self._caches(flow_cache)
        if self.fast is not None and (self.caches is not None or self.replay is not None):
            self.fast.watch_changes()  # the caches replaced the tables' change hooks
            self.fast.watched = True  # ... and watch the externs while recording
        prog = self.program
        self._run_ingress: Callable[[list[int], Pkt], None] = (
            self.caches.ingress.run if self.caches else self._runner("ingress", prog.ingress)
        )
        self._run_egress: Callable[[list[int], Pkt], None] = (
            self.caches.egress.run if self.caches else self._runner("egress", prog.egress)
        )
        self._parse: Callable[[list[int], Pkt], None] = prog.parser.fused or prog.parser.parse
        layout = self.program.layout
        self._template = layout.template
        self._std = layout.std
        self._std_mask = {k: (1 << w) - 1 for k, w in layout.std_width.items()}
        self._metadata_slots = layout.metadata_slots
        sm = {k: (layout.std[k], self._std_mask[k]) for k in self._std}
        self._in_slots = (sm["ingress_port"], sm["instance_type"], sm["packet_length"])
        self._ts_in = sm["ingress_global_timestamp"]
        self._eg_slots = (sm["egress_port"], sm["egress_spec"], sm["egress_global_timestamp"])
        #: (slot, mask) of packet_length, enq_timestamp, enq_qdepth, deq_qdepth, deq_timedelta
        self._eg_meta = tuple(
            sm[k]
            for k in ("packet_length", "enq_timestamp", "enq_qdepth", "deq_qdepth", "deq_timedelta")
        )
        self._s_mcast, self._s_espec = layout.std["mcast_grp"], layout.std["egress_spec"]
        self._s_itype, self._s_prio = layout.std["instance_type"], layout.std["priority"]
        self._s_iport = layout.std["ingress_port"]
        if tm is None:
            tm = TrafficManager(self.clock, priority_queues)
        self.tm = tm
        self.priority_queues = int(getattr(tm, "priority_queues", priority_queues))
        self.ports: set[int] = set()
        for port, speed in (port_speed_bps or {}).items():
            self.add_port(port, speed)
        self.mirror: dict[int, tuple[int | None, int | None]] = {}
        #: mirror session -> egress queue of its copies (built-in target extension, like a
        #: Tofino session's queue); without an entry, simple_switch's: the reset priority 0
        self.mirror_priority: dict[int, int] = {}
        self.mc_groups: dict[int, list[int]] = {}
        self.mc_nodes: dict[int, tuple[int, list[int]]] = {}
        self._next_node = 0
        self.digests: deque[Digest] = deque(maxlen=65536)
        self.stats = {
            "dropped": 0,
            "unknown_port": 0,
            "tail_dropped": 0,
            "errors": 0,
            "assert_failures": 0,
            "reentry_limit": 0,
            "bad_priority": 0,
        }
        self._cli: Any = None

    # -- helpers ---------------------------------------------------------------------------

    def _caches(self, wanted: bool | None) -> PipelineCaches | None:
        """The decision caches, unless turned off (argument or FABEMU_FLOWCACHE=0) or unsafe."""
        if not (flowcache.enabled_by_env() if wanted is None else wanted):
            return None
        if flowcache.uncacheable_reason(self.program.cg.ns) is not None:
            return None
        return PipelineCaches(self.program)

    def _replay(self, program: dict[str, Any] | str, flow_cache: bool | None) -> Any:
        """The whole-switch replay, unless turned off (FABEMU_REPLAY=0, or ``flow_cache``
        given: the decision cache asked for or all caching refused) or the program is
        outside what it can replay (:func:`framereplay.replay_reason`)."""
        if flow_cache is not None or flowcache.enabled_by_env():
            return None
        if not framereplay.enabled_by_env():
            return None
        doc = load_json(program)
        if framereplay.replay_reason(self.program, doc) is not None:
            return None
        return FrameReplay(self.program, DROP_PORT)

    def _runner(self, which: str, start: Any) -> Callable[[list[int], Pkt], None]:
        """The function running pipeline ``which`` from ``start``: fastmatch's own runner
        when it has one (no trampoline step), else ``run``."""
        runner = self.fast.runners.get(which) if self.fast is not None else None
        return runner or partial(run, start)

    def flush_caches(self) -> None:
        """Forget every cached pipeline outcome (after any control-plane change)."""
        if self.caches is not None:
            self.caches.flush()
        if self.replay is not None:
            self.replay.flush()

    def _now_us(self) -> float:
        return self.clock() / 1000

    @property
    def tables(self) -> dict[str, Table]:
        """Match tables by JSON name."""
        return self.program.tables

    @property
    def registers(self) -> dict[str, RegisterArray]:
        """Register arrays by JSON name."""
        return self.program.registers

    @property
    def counters(self) -> dict[str, CounterArray]:
        """Counter arrays by JSON name (direct ones count per table entry instead)."""
        return self.program.counters

    def add_port(self, port: int, speed_bps: float | None = None) -> None:
        """Create an egress port (and its queues)."""
        self.ports.add(port)
        if speed_bps is None:
            self.tm.add_port(port)
        else:
            self.tm.add_port(port, speed_bps)

    def cli(self, line: str) -> str:
        """Run one simple_switch_CLI command; return its output text."""
        self.flush_caches()
        if self._cli is None:
            self._cli = RuntimeCli(self)
        return self._cli.run(line)

    def cli_file(self, path: str) -> list[str]:
        """Run a file of simple_switch_CLI commands; errors name the file and line."""
        self.cli("")
        try:
            return self._cli.run_file(path)
        finally:
            self.flush_caches()

    def is_copy(self, item: object) -> bool:
        """True if ``item`` (a packet the TM queued) is a copy this switch made: a clone, a
        mirror or a multicast replica, not a frame it received (or recirculated)."""
        f = getattr(item, "f", None)
        return f is not None and f[self._std["instance_type"]] != pk.PKT_INSTANCE_TYPE_NORMAL

    def pop_digests(self) -> list[Digest]:
        """Take every pending digest message."""
        out = list(self.digests)
        self.digests.clear()
        return out

    def _set(self, f: list[int], name: str, value: int) -> None:
        f[self._std[name]] = value & self._std_mask[name]

    # -- ingress ---------------------------------------------------------------------------

    def _ingress(
        self,
        port: int,
        frame: bytes,
        itype: int = pk.PKT_INSTANCE_TYPE_NORMAL,
        preserved: list[tuple[int, int]] | None = None,
    ) -> list[Item]:
        prog = self.program
        out: list[Item] = []
        for _ in range(MAX_REENTRIES):
            f = self._template.copy()
            p = Pkt(frame, f)
            p.rx_port = port
            if preserved is None:  # a new frame from a port
                (s_port, m_port), (s_type, m_type), (s_len, m_len) = self._in_slots
                f[s_port], f[s_type], f[s_len] = port & m_port, itype & m_type, len(frame) & m_len
                slot, mask = self._ts_in
                f[slot] = (self.clock() // 1000) & mask
            else:  # resubmit / recirculate: metadata reset (ingress_port 0 too) + field list
                for slot, value in preserved:
                    f[slot] = value
                self._set(f, "instance_type", itype)
                self._set(f, "packet_length", len(frame))
            try:
                if preserved is None and self.replay is not None:
                    self.replay.ingress(f, p)
                else:
                    self._parse(f, p)
                    prog.checksums.verify_fn(f, p)
                    self._run_ingress(f, p)
            except P4AssertionFailure as exc:
                return self._fail("assert_failures", f"ingress: {exc}", out)
            except Exception as err:  # never let a packet crash the switch (own name: mypyc)
                return self._fail("errors", f"ingress: {type(err).__name__}: {err}", out)
            if p.clone_session is not None:
                out += self._clone_i2e(port, frame, f, p)
            if p.digest is not None:
                self._digest(f, p)
            if p.resubmit_fl is not None:
                preserved = self._preserve(f, p.resubmit_fl)
                itype = pk.PKT_INSTANCE_TYPE_RESUBMIT
                continue
            mgid = f[self._s_mcast]
            if mgid:
                out += self._replicate(f, p, mgid, pk.PKT_INSTANCE_TYPE_REPLICATION)
            elif f[self._s_espec] == DROP_PORT:
                self.stats["dropped"] += 1
            else:  # simple_switch marks every unicast packet NORMAL here
                f[self._s_itype] = pk.PKT_INSTANCE_TYPE_NORMAL
                out.append((f[self._s_espec], f[self._s_prio], p))
            return out
        self.stats["reentry_limit"] += 1
        return out

    def _fail(self, stat: str, msg: str, out: list[Item]) -> list[Item]:
        self.stats[stat] += 1
        self._log(msg)
        return out

    def _preserve(self, f: list[int], fl_id: int | None) -> list[tuple[int, int]]:
        slots = self.program.field_lists.get(int(fl_id or 0), [])
        return [(s, f[s]) for s in slots]

    def _digest(self, f: list[int], p: Pkt) -> None:
        name, slots = self.program.learn_lists.get(int(p.digest or 0), ("", []))
        self.digests.append(Digest(p.digest_receiver, name, tuple(f[s] for s in slots)))

    def _fork(self, f: list[int], p: Pkt) -> Pkt:
        """A copy of ``p`` with fields ``f`` (a multicast replica or an E2E clone): as on
        simple_switch, a copy keeps none of the original's ``truncate``."""
        q = Pkt(p.buf, f)
        q.off, q.payload = p.off, p.payload
        q.length_register = p.length_register
        q.rx_port = p.rx_port
        return q

    def _replicate(self, f: list[int], p: Pkt, mgid: int, itype: int) -> list[Item]:
        out: list[Item] = []
        for handle in self.mc_groups.get(mgid, []):
            rid, ports = self.mc_nodes[handle]
            for port in ports:
                g = f.copy()
                self._set(g, "egress_rid", rid)
                self._set(g, "instance_type", itype)
                out.append((port, g[self._std["priority"]], self._fork(g, p)))
        return out

    def _to_session(self, session: int, f: list[int], p: Pkt) -> list[Item]:
        cfg = self.mirror.get(session)
        if cfg is None:
            return []
        port, mgid = cfg
        out: list[Item] = []
        if port is not None:
            out.append((port, self.mirror_priority.get(session, f[self._std["priority"]]), p))
        if mgid is not None:
            out += self._replicate(f, p, mgid, f[self._std["instance_type"]])
        return out

    def _clone_i2e(self, port: int, frame: bytes, f: list[int], p: Pkt) -> list[Item]:
        g = self._template.copy()
        q = Pkt(frame, g)
        q.rx_port = port
        self._set(g, "ingress_port", port)  # the parser may branch on it: the receive port
        try:
            self.program.parser.parse(g, q)
        except Exception as exc:
            return self._fail("errors", f"clone parse: {exc}", [])
        for s in self._metadata_slots:  # re-parsed, then metadata reset (as simple_switch)
            g[s] = self._template[s]
        for slot, value in self._preserve(f, p.clone_fl):
            g[slot] = value
        self._set(g, "instance_type", pk.PKT_INSTANCE_TYPE_INGRESS_CLONE)
        return self._to_session(int(p.clone_session or 0), g, q)

    # -- egress ----------------------------------------------------------------------------

    def _egress(
        self, port: int, p: Pkt, deq: Any = None
    ) -> tuple[bytes | None, list[Item], list[tuple[int, bytes, Any]]]:
        prog, f = self.program, p.f
        p.clear_requests()
        (s_port, m_port), (s_spec, _), (s_ts, m_ts) = self._eg_slots
        f[s_port], f[s_spec], f[s_ts] = port & m_port, 0, (self.clock() // 1000) & m_ts
        (s_len, m_len), (s_enq, m_enq), (s_eqd, m_eqd), (s_dqd, m_dqd), (s_td, m_td) = self._eg_meta
        f[s_len] = p.length_register & m_len
        if deq is not None:
            f[s_enq] = (deq.enq_timestamp_ns // 1000) & m_enq
            f[s_eqd] = deq.enq_qdepth & m_eqd
            f[s_dqd] = deq.deq_qdepth & m_dqd
            f[s_td] = (deq.deq_timedelta_ns // 1000) & m_td
        else:  # no queue (process()): enqueued now, as simple_switch's timestamps say
            f[s_enq] = (self.clock() // 1000) & m_enq
        clones: list[Item] = []
        try:
            if p.origin is not None:
                done = self.replay.egress(f, p)  # type: ignore[union-attr]
                if done is True:
                    self.stats["dropped"] += 1
                    return None, [], []
                if done:
                    return done, [], []  # type: ignore[return-value]
                f = p.f
            else:
                self._run_egress(f, p)
            if p.clone_session is not None:
                g = f.copy()
                for s in self._metadata_slots:
                    g[s] = self._template[s]
                for slot, value in self._preserve(f, p.clone_fl):
                    g[slot] = value
                self._set(g, "instance_type", pk.PKT_INSTANCE_TYPE_EGRESS_CLONE)
                clones = self._to_session(int(p.clone_session), g, self._fork(g, p))
            if f[self._s_espec] == DROP_PORT:
                self.stats["dropped"] += 1
                return None, clones, []
            prog.checksums.update_fn(f, p)
            frame = prog.deparser.deparse(f, p)
        except P4AssertionFailure as exc:
            self._fail("assert_failures", f"egress: {exc}", [])
            return None, clones, []
        except Exception as err:  # never let a packet crash the switch (own name: mypyc)
            self._fail("errors", f"egress: {type(err).__name__}: {err}", [])
            return None, [], []
        if p.recirc_fl is not None:  # whole: simple_switch truncates only what it sends
            preserved = self._preserve(f, p.recirc_fl)
            return None, clones, [(p.rx_port, frame, preserved)]
        if p.truncate >= 0 and len(frame) > p.truncate:
            frame = frame[: p.truncate]
        return frame, clones, []

    # -- public data path ------------------------------------------------------------------

    def receive(self, port: int, frame: bytes) -> list[int]:
        """A frame arrives on ``port``: PFC, parser, ingress, enqueue. Returns egress ports.

        An 802.1Qbb frame is honoured by the TM and, when ``pfc_to_pipeline`` (the default),
        still parsed so the program can count pauses; otherwise the MAC consumes it.
        """
        mac_control = frame[12:14] == MAC_CONTROL  # tested here: one call less per frame
        if mac_control and self._mac_control(port, frame) and not self.pfc_to_pipeline:
            return []
        return self._enqueue_all(self._ingress(port, bytes(frame)))

    def _mac_control(self, port: int, frame: bytes) -> bool:
        """Offer a MAC control frame (EtherType 0x8808) to the TM; True if it was PFC."""
        return frame[12:14] == MAC_CONTROL and bool(self.tm.on_pfc_frame(port, frame))

    def _enqueue_all(self, items: list[Item]) -> list[int]:
        ports = []
        enqueue, known, s_iport = self.tm.enqueue, self.ports, self._s_iport
        for eport, prio, pkt in items:
            if eport not in known:
                self.stats["unknown_port"] += 1
                continue
            if enqueue(eport, prio, pkt, len(pkt.buf), pkt.f[s_iport]):
                ports.append(eport)
            else:
                self.stats["tail_dropped"] += 1
        return ports

    def transmit_ready(self, port: int) -> int | None:
        """Earliest ns at which ``port`` may send (the TM's view), or None."""
        return self.tm.ready_time(port)

    def transmit(self, port: int) -> bytes | None:
        """Dequeue one packet for ``port``, run egress; the frame, or None if none/dropped."""
        deq = self.tm.dequeue(port)
        if deq is None:
            return None
        return self.transmit_dequeued(port, deq)

    def transmit_dequeued(self, port: int, deq: Any) -> bytes | None:
        """Egress of ``deq`` (what the TM released for ``port``, with ``Dequeued``'s
        fields): the frame, or None if dropped; its clones and recirculations queued."""
        frame, clones, recircs = self._egress(port, deq.item, deq)
        if clones or recircs:
            self.requeue(clones, recircs)
        return frame

    def requeue(self, clones: list[Item], recircs: list[tuple[int, bytes, Any]]) -> None:
        """Queue egress's clones; run its recirculated frames through ingress again."""
        self._enqueue_all(clones)
        for iport, rframe, preserved in recircs:
            self._enqueue_all(self._ingress(iport, rframe, pk.PKT_INSTANCE_TYPE_RECIRC, preserved))

    def process(self, port: int, frame: bytes) -> list[tuple[int, bytes]]:
        """Receive then run every resulting packet through egress now (no queues, no rates)."""
        if self._mac_control(port, frame) and not self.pfc_to_pipeline:
            return []
        work = deque(self._ingress(port, bytes(frame)))
        out: list[tuple[int, bytes]] = []
        done = 0
        while work and done < MAX_WORK:
            done += 1
            eport, prio, pkt = work.popleft()
            if not 0 <= eport < DROP_PORT:
                continue
            if not 0 <= prio < self.priority_queues:  # simple_switch drops it at enqueue
                self.stats["bad_priority"] += 1
                continue
            res, clones, recircs = self._egress(eport, pkt)
            if res is not None:
                out.append((eport, res))
            work.extend(clones)
            for iport, rframe, preserved in recircs:
                work.extend(self._ingress(iport, rframe, pk.PKT_INSTANCE_TYPE_RECIRC, preserved))
        return out

    # -- PRE / mirroring (used by the runtime CLI) -----------------------------------------

    def mc_node_create(self, rid: int, ports: list[int]) -> int:
        """Create a multicast node; return its handle."""
        h = self._next_node
        self._next_node += 1
        self.mc_nodes[h] = (rid, sorted(set(ports)))
        return h

    def mc_reset(self) -> None:
        """No multicast groups or nodes; node handles from 0 (``reset_state``)."""
        self.mc_groups.clear()
        self.mc_nodes.clear()
        self._next_node = 0

    def mc_node_associate(self, mgid: int, handle: int) -> None:
        """Add node ``handle`` to group ``mgid``."""
        if mgid not in self.mc_groups:
            raise CliError(f"multicast group {mgid} does not exist")
        if handle not in self.mc_nodes:
            raise CliError(f"multicast node {handle} does not exist")
        if any(handle in nodes for nodes in self.mc_groups.values()):
            raise CliError(f"multicast node {handle} is already associated with a group")
        self.mc_groups[mgid].append(handle)
