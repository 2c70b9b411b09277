"""``VirtualRuntime``: the :class:`~emulator.runtime.base.NetworkRuntime` in virtual time.

The same topology, switch core (``emulator.target.switch.Switch`` running the compiled P4
program, programmed with the control plane's commands) and RNIC emulators as the Mininet
runtime, in one process under a discrete-event clock: no root, deterministic for a seed,
faster than real time for small fabrics.

    plan = build_plan(scenario, path)        # emulator.plan: topology, programs, switch ops ...
    with VirtualRuntime(plan) as rt:         # make_runtime("virtual", plan)
        rt.start()                           # switches, operations, RNICs, links, controller
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 65536})
        rt.schedule(2_000_000, lambda: rt.fail_link("rtsw0", "ctsw0"))   # mid-run events
        rt.run(until_ns=10**9)               # True as soon as every workload is done
        result = rt.result(meta)             # RunResult

::

    Engine (virtual.engine) ── clock ──► every Switch / TM / Rnic
      │ events: link arrivals, transmitter wake-ups, samples, scheduled callables
    HostBox (Rnic) ─LinkDir─► SwitchBox (Switch, TM, QueueWatch) ─LinkDir─► ... ─► HostBox
    Ledger + Sampler (virtual.measure) ──► virtual.observe ──► measure.assemble ──► RunResult

Time is integer ns since ``start()``. Each link direction serialises a frame in
``(len + 24) * 8 / rate`` then propagates it for ``delay_ns``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator import speedups
from emulator.control.live import LinkEvent, LinkEventSource
from emulator.errors import UserError
from emulator.measure.assemble import assemble
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.compat import incompatibility
from emulator.plan.spec import RunPlan
from emulator.runtime.virtual.engine import Engine
from emulator.runtime.virtual.fasthop import FastHostBox, FastLinkDir, FastSwitchBox
from emulator.runtime.virtual.lazysample import LazySampler
from emulator.runtime.virtual.links import LinkDir
from emulator.runtime.virtual.measure import Ledger, Sampler
from emulator.runtime.virtual.nodes import HostBox, SwitchBox
from emulator.runtime.virtual.observe import observe
from emulator.target.ops import SwitchOp, apply_ops, command_ops
from emulator.target.pcap import PcapWriter
from emulator.traffic.endpoints import build_rnics
from emulator.traffic.workloads import Deployment, workload_from_dict

SWITCH_SEED_STRIDE = 1009  # switch seed = run seed * stride + device id
PCAP_FLUSH_EVERY = 256


class VirtualRuntime(LinkEventSource):
    """A whole fabric in one process under a discrete-event clock."""

    name = "virtual"

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.engine = Engine()
        self.ledger = Ledger()
        self.boxes: dict[str, SwitchBox] = {}
        self.hosts: dict[str, HostBox] = {}
        self.links: list[LinkDir] = []  # topo.links order, the up direction first
        self._dirs: dict[tuple[str, int, str, int], tuple[LinkDir, LinkDir]] = {}
        self._link_class: type[LinkDir] = LinkDir
        self.sampler: Sampler | LazySampler = Sampler([], [])
        self.deployments: list[Deployment] = []
        #: next free connection id: workloads take consecutive ranges (distinct QPNs), so a
        #: run may add many small workloads one after another (a training step's stages)
        self._next_conn_id = 0
        self.workload_hosts: set[str] = set()
        self.events: list[str] = []
        self.wall_s = 0.0  # wall-clock seconds spent inside run()
        self._pending: list[Mapping[str, Any]] = []
        self._pcaps: list[PcapWriter] = []
        self.credits: Any = None  # emulator.ib.credits.CreditFabric when plan.credits
        self._started = False
        self._stopped = False

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> VirtualRuntime:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Build switches (programmed with their commands), RNICs and links."""
        if self._started:
            return
        plan, topo, opts = self.plan, self.plan.topo, self.plan.options
        problem = incompatibility(plan.fabric, plan.target, "virtual")
        if problem:
            raise UserError(problem)
        fast = speedups.enabled("FASTHOP")
        box_class = FastSwitchBox if fast else SwitchBox
        self._link_class = FastLinkDir if fast else LinkDir
        for s in topo.switches:
            box = box_class(
                self.engine,
                s,
                plan.programs[s.name],
                opts.priority_queues,
                seed=opts.seed * SWITCH_SEED_STRIDE + s.device_id,
            )
            apply_ops(box.sw, plan.switch_ops.get(s.name, ()), where=s.name)
            if opts.pfc:
                for p in s.ports:
                    box.tm.set_pfc(p.number, True)
            self.boxes[s.name] = box
        nics = build_rnics(topo.hosts, plan.rnic, opts.seed, framing=plan.framing)
        self.ledger.flow_key = getattr(plan.framing, "flow_key", None)
        for h in topo.hosts:
            host_class = FastHostBox if speedups.enabled("FASTHOP") else HostBox
            self.hosts[h.name] = host_class(self.engine, h.name, nics[h.name], self.ledger)
        for link in topo.links:
            up = self._wire(link.a, link.a_port, link.b, link.b_port, link, True)
            down = self._wire(link.b, link.b_port, link.a, link.a_port, link, False)
            self._dirs[(link.a, link.a_port, link.b, link.b_port)] = (up, down)
        if plan.credits is not None:
            from emulator.ib.credits import CreditFabric

            self.credits = CreditFabric(self, plan.credits)
        if opts.pcap_dir:
            self._open_pcaps(Path(opts.pcap_dir))
        sampler = LazySampler if speedups.enabled("LAZYSAMPLE") else Sampler
        self.sampler = sampler(self.links, list(self.boxes.values()))
        if opts.sample_interval_ns > 0:
            self.engine.at(opts.sample_interval_ns, self._sample, None)
        self._started = True
        if plan.controller is not None:
            plan.controller.attach(self)
        for w in self._pending:
            self._deploy(w)
        self._pending.clear()

    def _wire(self, src: str, sp: int, dst: str, dp: int, link: Any, up: bool) -> LinkDir:
        box = self.boxes.get(src)
        uplink = f"{src}:{sp}" if up and box is not None and box.role == "leaf" else None
        ld = self._link_class(
            self.engine,
            self.ledger,
            src,
            sp,
            dst,
            dp,
            kind=link.kind,
            up=up,
            rate_bps=link.rate_bps,
            delay_ns=link.delay_ns,
            uplink=uplink if link.kind == "fabric" else None,
        )
        if box is not None:
            box.attach(sp, ld)
        else:
            self.hosts[src].link = ld
        ld.deliver = self.boxes[dst].on_frame if dst in self.boxes else self.hosts[dst].on_frame
        self.links.append(ld)
        return ld

    def _open_pcaps(self, folder: Path) -> None:
        """``<intf>_in.pcap`` / ``<intf>_out.pcap`` per switch port, as ``fabemu switch``."""
        folder.mkdir(parents=True, exist_ok=True)
        intf = {(s.name, p.number): p.intf for s in self.plan.topo.switches for p in s.ports}
        for ld in self.links:
            if ld.src in self.boxes:
                ld.pcap_out = self._pcap(folder / f"{intf[(ld.src, ld.src_port)]}_out.pcap")
            if ld.dst in self.boxes:
                ld.pcap_in = self._pcap(folder / f"{intf[(ld.dst, ld.dst_port)]}_in.pcap")

    def _pcap(self, path: Path) -> PcapWriter:
        w = PcapWriter(path, flush_every=PCAP_FLUSH_EVERY)
        self._pcaps.append(w)
        return w

    def stop(self) -> None:
        """Close pcap files, write logs; nothing else to tear down (one process).

        Idempotent; results stay readable afterwards.
        """
        if self._stopped:
            return
        self._stopped = True
        for w in self._pcaps:
            w.close()
        self._pcaps.clear()
        if self.plan.options.log_dir and self._started:
            self._write_logs(Path(self.plan.options.log_dir))

    def _write_logs(self, folder: Path) -> None:
        """``<switch>.log`` (the switch's bounded log: pipeline errors, log_msg) and
        ``virtual.json`` (engine figures and events)."""
        folder.mkdir(parents=True, exist_ok=True)
        for name, box in self.boxes.items():
            if box.sw.log_lines:
                (folder / f"{name}.log").write_text("\n".join(box.sw.log_lines) + "\n")
        summary: dict[str, Any] = {"stats": self.stats(), "events": self.events}
        if self.credits is not None:
            summary["credits"] = self.credits.stats()
        (folder / "virtual.json").write_text(json.dumps(summary, indent=1))

    def _need_started(self) -> None:
        if not self._started:
            raise UserError("the virtual runtime is not started (call start())")

    # -- workloads -----------------------------------------------------------------------

    def add_workload(self, workload: Mapping[str, Any]) -> None:
        """Deploy a workload (``workload_from_dict`` mapping); it starts at the current time."""
        if self._started:
            self._deploy(workload)
        else:
            workload_from_dict(workload)  # validate now
            self._pending.append(dict(workload))

    def _deploy(self, mapping: Mapping[str, Any]) -> None:
        w = workload_from_dict(mapping)
        unknown = sorted(h for h in w.hosts if h not in self.hosts)
        if unknown:
            raise UserError(f"workload names unknown host(s): {', '.join(unknown)}")
        topo = self.plan.topo
        nics = {h.name: self.hosts[h.name].nic for h in topo.hosts if h.name in w.hosts}
        ips = {h.name: h.ip for h in topo.hosts}
        dep = Deployment(
            w,
            nics,
            ips,
            self.plan.options.seed,
            conn_id_base=self._next_conn_id,
        )
        self._next_conn_id += len(dep.specs)
        self.deployments.append(dep)
        self.workload_hosts.update(w.hosts)
        for nic in nics.values():
            nic.completion_handler = self._watch(nic.completion_handler)
        now = self.engine.now
        dep.start(now)
        for name in nics:
            self.hosts[name].kick(now)

    def _watch(self, inner: Callable[[Any], None] | None) -> Callable[[Any], None]:
        """Wrap a completion handler: stop the clock once every workload is done."""

        def handler(c: Any) -> None:
            if inner is not None:
                inner(c)
            if self.all_done():
                self.engine.stop = True

        return handler

    def all_done(self) -> bool:
        """True when every deployed workload finished."""
        return all(d.done for d in self.deployments)

    # -- running -------------------------------------------------------------------------

    def schedule(self, at_ns: int, fn: Callable[[], Any]) -> None:
        """Call ``fn()`` when the virtual clock reaches ``at_ns`` (e.g. a link failure)."""
        self._need_started()
        self.engine.at(max(int(at_ns), self.engine.now), lambda _arg: fn(), None)

    def call_at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """The control plane's clock: ``fn()`` at virtual time ``t_ns`` (now if past)."""
        self.schedule(t_ns, fn)

    def run(self, until_ns: int) -> bool:
        """Advance virtual time to ``until_ns`` or until every workload is done."""
        self._need_started()
        if self._stopped:
            raise UserError("the virtual runtime was stopped")
        if self.deployments and self.all_done():
            return True
        t0 = time.perf_counter()
        try:
            self.engine.run(int(until_ns))
        finally:
            self.wall_s += time.perf_counter() - t0
        return self.all_done()

    def _sample(self, _arg: object) -> None:
        now = self.engine.now
        self.sampler.sample(now)
        self.engine.at(now + self.plan.options.sample_interval_ns, self._sample, None)

    # -- operations ----------------------------------------------------------------------

    def _link_dirs(self, a: str, b: str) -> list[LinkDir]:
        topo = self.plan.topo
        for n in (a, b):
            if n not in self.boxes and n not in self.hosts:
                raise UserError(f"topology {topo.name}: no node {n!r}")
        links = topo.links_between(a, b)
        if not links:
            raise UserError(f"topology {topo.name}: no link between {a} and {b}")
        return [d for lk in links for d in self._dirs[(lk.a, lk.a_port, lk.b, lk.b_port)]]

    def fail_link(self, a: str, b: str) -> None:
        """Take the link(s) between ``a`` and ``b`` down now; frames on them are lost."""
        self._need_started()
        dirs = self._link_dirs(a, b)
        for d in dirs:
            d.fail()
        self.events.append(f"t={self.engine.now} fail_link {a} {b} ({len(dirs) // 2} link(s))")
        self.publish_link_event(LinkEvent(a, b, False, self.engine.now))

    def restore_link(self, a: str, b: str) -> None:
        """Bring the link(s) between ``a`` and ``b`` back up."""
        self._need_started()
        dirs = self._link_dirs(a, b)
        now = self.engine.now
        for d in dirs:
            d.restore()
            if d.src in self.boxes:
                self.boxes[d.src].kick_all(now)
            else:
                self.hosts[d.src].kick(now)
        self.events.append(f"t={now} restore_link {a} {b} ({len(dirs) // 2} link(s))")
        self.publish_link_event(LinkEvent(a, b, True, now))

    def apply_ops(self, switch: str, ops: Sequence[SwitchOp]) -> None:
        """Apply typed runtime operations to a switch now (a control-plane repair)."""
        self._need_started()
        box = self.boxes.get(switch)
        if box is None:
            raise UserError(f"virtual runtime: no switch {switch!r}")
        apply_ops(box.sw, ops, where=switch)
        box.kick_all(self.engine.now)  # a group may have changed under queued frames
        n = len(command_ops(ops))
        self.events.append(f"t={self.engine.now} apply_ops {switch} ({n} op(s))")

    def switch_cli(self, switch: str, line: str) -> str:
        """One simple_switch_CLI command on a switch now; its output."""
        self._need_started()
        box = self.boxes.get(switch)
        if box is None:
            raise UserError(f"virtual runtime: no switch {switch!r}")
        out = box.sw.cli(line)
        box.kick_all(self.engine.now)  # rates, depths or PFC settings may have changed
        return out

    def stats(self) -> dict[str, float]:
        """Engine figures: events, packet hops (frames put on links), wall time, clock."""
        hops = sum(ld.packets for ld in self.links)
        return {
            "events": float(self.engine.events),
            "hops": float(hops),
            "wall_s": self.wall_s,
            "end_ns": float(self.engine.now),
            "hops_per_s": hops / self.wall_s if self.wall_s > 0 else 0.0,
        }

    def result(self, meta: RunMeta) -> RunResult:
        """What was measured so far (also after a failure or an unfinished run).

        Before a successful ``start()`` (e.g. a rejected command): an empty, incomplete result.
        """
        if not self._started:
            reason = meta.incomplete_reason or "the virtual network never started"
            return RunResult(
                meta=meta.model_copy(update={"complete": False, "incomplete_reason": reason})
            )
        return assemble(observe(self), meta)
