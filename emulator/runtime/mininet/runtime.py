"""``MininetRuntime``: the :class:`~emulator.runtime.base.NetworkRuntime` on Mininet.

    plan = build_plan(scenario, path, "mininet")   # emulator.plan
    with MininetRuntime(plan) as rt:       # make_runtime("mininet", plan)
        rt.start()                         # MininetFabric: build, launch, program, hosts
        rt.add_workload({...})             # remembered; hosts of workloads must not overlap
        rt.run(until_ns)                   # 1st call starts one rnic_process per host; waits
        rt.fail_link(a, b); rt.switch_cli(sw, "...")   # between run() calls, in real time
        rt.run(until_ns2)                  # the same processes keep running
        result = rt.result(meta)           # stops the RNICs (they report), builds RunResult

InfiniBand (``plan.framing`` an IbFraming, ``plan.credits`` a CreditConfig): the RNIC
processes speak the IB framing and, on the built-in target, every switch port and HCA keeps
per-VL credits with its peer through flow control packets on the links
(:mod:`emulator.ib.linkfc`). BMv2 has no link-level flow control: an IB run there goes
without credits (not lossless) and its result says so.

The first ``run`` starts the RNIC processes behind a start barrier: their ranks begin
together 1 s after that call, or 200 ms after the last process listens on its interface if
that is later (a frame sent to a host whose process is still starting would be lost).

Run time is wall-clock time (CLOCK_MONOTONIC) since ``start()`` returned. From ``start()``
a thread samples the switch interfaces' kernel counters each ``max(sample_interval_ns,
10 ms)`` (link utilisation, :mod:`mininet.sampler`); while ``run`` waits it also samples
every switch's counters each ``max(sample_interval_ns, 200 ms)`` (queue depths).

The plan is turned into text and plain data only where a process starts: the switches'
simple_switch_CLI commands (``MininetFabric``), the RNIC processes' JSON configs. Link
events reach the plan's live controller; its repairs go in through the switches' control
path after the detection delay (a timer thread, wall clock).
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.control.live import LinkEvent, LinkEventSource
from emulator.errors import UserError
from emulator.measure.assemble import assemble
from emulator.measure.observations import P4_COUNTERS
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.spec import RunPlan
from emulator.runtime.mininet.actions import TimedActions
from emulator.runtime.mininet.capture import UplinkCapture
from emulator.runtime.mininet.collect import (
    RunRecord,
    Sample,
    host_impairments,
    kernel_counters,
    observations,
    qp_errors,
    rnic_events,
)
from emulator.runtime.mininet.fabric import MininetFabric
from emulator.runtime.mininet.sampler import KernelSampler
from emulator.runtime.mininet.uplinks import CliChange, UplinkPredictor
from emulator.target.ops import SwitchOp, command_ops
from emulator.traffic.host_faults import impair_file, write_impair
from emulator.traffic.start_barrier import ready_file, release
from emulator.traffic.workloads import workload_from_dict

log = logging.getLogger("fabemu.mininet")

MIN_SAMPLE_NS = 200_000_000  # counter polling costs the switches CPU: at most 5 per second
START_DELAY_NS = 1_000_000_000  # RNIC processes start their ranks together, not before this
PROCESS_MARGIN_S = 600.0  # bound on an RNIC process beyond the first run() horizon
CONN_IDS_PER_WORKLOAD = 4096
NO_CREDITS_ON_BMV2 = (
    "InfiniBand without credit flow control: BMv2 simple_switch has no link-level flow "
    "control, so this run is not lossless (queues tail-drop, go-back-N recovers) and BMv2 "
    "does not count its queue drops: the conservation check shows the frames lost"
)


class MininetRuntime(LinkEventSource):
    """Mininet hosts + switch processes, RNIC processes per workload, a RunResult."""

    name = "mininet"

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        opts = plan.options
        self.notes: list[str] = []
        ib_credits = None
        if plan.credits is not None:
            if plan.target == "bmv2":
                self.notes.append(NO_CREDITS_ON_BMV2)
            else:
                from emulator.ib.linkfc import wire_limit

                ib_credits = int(plan.credits.buffer_bytes_per_vl)
                wire_limit(ib_credits)  # FCP counters: refused here, not in a switch log
        self.fabric = MininetFabric(
            plan.topo,
            dict(plan.programs),
            dict(plan.switch_ops),
            target=plan.target,
            priority_queues=opts.priority_queues,
            pfc=opts.pfc,
            run_dir=opts.log_dir,
            pcap_dir=opts.pcap_dir,
            ib_credits=ib_credits,
            pfc_watchdog_ms=opts.pfc_watchdog_ms,
        )
        #: the RNIC settings as the rnic_process JSON config carries them
        self.rnic: dict[str, Any] = dataclasses.asdict(plan.rnic)
        self._actions = TimedActions()
        self.workloads: list[dict[str, Any]] = []
        self._procs: list[dict[str, subprocess.Popen[bytes]]] = []
        self._rec: RunRecord | None = None
        self._collected = False
        self._sampler: KernelSampler | None = None
        self._capture: UplinkCapture | None = None
        self._host_impair: dict[str, int | None] = {}  # host -> fault impairing what it sends

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> MininetRuntime:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Build the network, start the switches, apply the commands."""
        self.fabric.start()
        self._rec = RunRecord(t0_mono_ns=time.monotonic_ns())
        self._rec.events.extend(self.notes)
        self._sampler = KernelSampler(
            kernel_counters(self.plan.topo),
            self.plan.options.sample_interval_ns,
            self._rec.t0_mono_ns,
        )
        self._sampler.start()
        self._start_capture()
        if self.plan.controller is not None:
            self.plan.controller.attach(self)

    def _start_capture(self) -> None:
        """tcpdump on the leaf uplinks, so each flow's uplinks are measured (mininet.capture)."""
        why = UplinkCapture.available()
        if why is not None:
            assert self._rec is not None
            self._rec.events.append(f"uplinks will be predicted, not measured: {why}")
            return
        self._capture = UplinkCapture(
            self.plan.topo, self.fabric.run_dir / "uplinks", self.plan.framing
        )
        for proc in self._capture.start():
            if self.fabric.state is not None:
                self.fabric.state.add_pid(proc.pid, "tcpdump (uplink capture)")
        self._capture.wait_listening()  # recorded first: a kill while waiting is cleaned up

    def stop(self) -> None:
        """Stop RNIC processes and tear the network down (idempotent)."""
        self._actions.settle()  # a running action (a re-sweep) ends before what it uses
        for procs in self._procs:
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
                    p.wait(timeout=10)
        if self._sampler is not None:
            self._sampler.stop()  # before its interfaces go
        if self._capture is not None:
            self._capture.stop()
        self.fabric.stop()

    def _now(self) -> int:
        if self._rec is None:
            raise UserError("the Mininet runtime is not started (call start())")
        return time.monotonic_ns() - self._rec.t0_mono_ns

    def now_ns(self) -> int:
        """The run clock: wall ns since ``start()`` returned."""
        return self._now()

    # -- workloads -----------------------------------------------------------------------

    def add_workload(self, workload: Mapping[str, Any]) -> None:
        """Remember a workload; its RNIC processes start at the first ``run``."""
        if self._procs:
            raise UserError("Mininet runtime: add workloads before the first run()")
        hosts = set(workload_from_dict(workload).hosts)
        unknown = sorted(h for h in hosts if not self.plan.topo.is_host(h))
        if unknown:
            raise UserError(f"workload names unknown host(s): {', '.join(unknown)}")
        for other in self.workloads:
            both = hosts & set(workload_from_dict(other).hosts)
            if both:
                raise UserError(
                    "Mininet runtime: one RNIC process per host, so workloads cannot share "
                    f"hosts ({', '.join(sorted(both))} in two workloads)"
                )
        self.workloads.append(dict(workload))

    def run(self, until_ns: int) -> bool:
        """Run (real time) until every workload is done or ``until_ns``; True if all done."""
        now = self._now()
        if not self._procs:
            start = self.fabric.run_dir / "rnic-start"
            start.unlink(missing_ok=True)
            not_before = time.monotonic_ns() + START_DELAY_NS
            for i, w in enumerate(self.workloads):
                self._procs.append(
                    self.fabric.start_rnics(
                        w,
                        rnic=self.rnic,
                        start_file=start,
                        seed=self.plan.options.seed,
                        duration_s=max(0.0, (until_ns - now) / 1e9) + PROCESS_MARGIN_S,
                        conn_id_base=i * CONN_IDS_PER_WORKLOAD,
                        framing=self._framing_config(),
                    )
                )
            waiting = [
                (Path(ready_file(self.fabric.run_dir / f"rnic-{h}.json")), p)
                for procs in self._procs
                for h, p in procs.items()
            ]
            release(waiting, start, not_before)
        interval = max(self.plan.options.sample_interval_ns, MIN_SAMPLE_NS)
        next_sample = now
        while True:
            now = self._now()
            if self._all_exited() or now >= until_ns:
                break
            if now >= next_sample:
                self._sample()
                next_sample = now + interval
            time.sleep(min(0.05, max(0.0, (until_ns - now) / 1e9)))
        self._sample()
        return self._all_exited() and self._all_done()

    def _framing_config(self) -> dict[str, Any] | None:
        """The RNIC processes' framing as JSON (None: RoCEv2)."""
        framing = self.plan.framing
        return None if framing is None else dict(framing.to_dict())

    def _all_exited(self) -> bool:
        return all(p.poll() is not None for procs in self._procs for p in procs.values())

    def _all_done(self) -> bool:
        """Exit status alone does not say done: peek at the reports already written."""
        import json

        for procs in self._procs:
            for host in procs:
                path = self.fabric.run_dir / f"rnic-{host}.json"
                try:
                    if not json.loads(path.read_text()).get("done"):
                        return False
                except (OSError, ValueError):
                    return False
        return True

    def _sample(self) -> None:
        assert self._rec is not None
        try:
            stats = self.fabric.switch_stats()
        except (UserError, OSError, ValueError):
            return  # a switch busy or gone: skip this sample
        self._rec.samples.append(Sample(self._now(), stats))

    def _program_counters(self) -> dict[str, dict[str, int]]:
        """Sum of each known program counter over a switch's ports and 8 priorities."""
        out: dict[str, dict[str, int]] = {}
        for s in self.plan.topo.switches:
            prog = self.plan.programs.get(s.name, {})
            have = {c.get("name") for c in prog.get("counter_arrays", [])}
            idx = [p.number * 8 + q for p in s.ports for q in range(8)]
            out[s.name] = {}
            for key, name in P4_COUNTERS.items():
                if name in have:
                    try:
                        out[s.name][key] = sum(self.fabric.counter_packets(s.name, name, idx))
                    except (UserError, OSError):
                        continue
        return out

    # -- operations ------------------------------------------------------------------------

    def fail_link(self, a: str, b: str) -> None:
        """Take the link(s) between ``a`` and ``b`` down now."""
        n = self.fabric.fail_link(a, b)
        assert self._rec is not None
        now = self._now()
        self._rec.events.append(f"t={now} fail_link {a} {b} ({n} link(s))")
        self.publish_link_event(LinkEvent(a, b, False, now))

    def restore_link(self, a: str, b: str) -> None:
        """Bring the link(s) between ``a`` and ``b`` back up."""
        n = self.fabric.restore_link(a, b)
        assert self._rec is not None
        now = self._now()
        self._rec.events.append(f"t={now} restore_link {a} {b} ({n} link(s))")
        self.publish_link_event(LinkEvent(a, b, True, now))

    def call_at(self, t_ns: int, fn: Callable[[], None]) -> None:
        """``fn()`` at run time ``t_ns`` (wall clock; now if past) on the one worker of
        :class:`TimedActions`, after the actions due before it. Actions are settled (those
        due waited for) before results and teardown."""
        self._actions.at((t_ns - self._now()) / 1e9, fn)

    def apply_ops(self, switch: str, ops: Sequence[SwitchOp]) -> None:
        """Typed operations to a running switch through its control path (as CLI text)."""
        todo = command_ops(ops)
        self.fabric.apply_commands({switch: [op.cli() for op in todo]})
        if self._rec is not None:  # replayed by the uplink predictor at result()
            now = self._now()
            self._rec.changes.extend(CliChange(now, switch, op) for op in todo)
            self._rec.events.append(f"t={now} apply_ops {switch} ({len(todo)} op(s))")

    def switch_cli(self, switch: str, line: str) -> str:
        """One runtime command on a running switch; its output (UserError if rejected)."""
        out = self.fabric.switch_cli(switch, line)
        if self._rec is not None:  # replayed by the uplink predictor at result()
            self._rec.changes.append(CliChange(self._now(), switch, line))
        return out

    def _predictor(self) -> UplinkPredictor | None:
        """The leaves' programs in-process, to compute each flow's uplink (None: no programs)."""
        if not all(s.name in self.plan.programs for s in self.plan.topo.switches):
            return None
        if self.plan.framing is not None:  # the predictor builds RoCEv2 frames
            return None
        return UplinkPredictor(
            self.plan.topo,
            self.plan.programs,
            self.plan.switch_ops,
            priority_queues=self.plan.options.priority_queues,
            dscp=self.plan.rnic.qos.dscp_bulk,
            sport_policy=self.plan.rnic.udp_sport,
            seed=self.plan.options.seed,
        )

    def set_stuck(self, host: str, stuck: bool) -> None:
        """A stuck receiver: ``host``'s RNIC processes stop draining and storm PFC (SIGUSR1)
        or recover (SIGUSR2); a host running no RNIC process is noted, not stuck."""
        procs = [p for procs in self._procs if (p := procs.get(host)) and p.poll() is None]
        for p in procs:
            p.send_signal(signal.SIGUSR1 if stuck else signal.SIGUSR2)
        what = "stuck_on" if stuck else "stuck_off"
        note = "" if procs else " (no RNIC process running there)"
        if self._rec is not None:
            self._rec.events.append(f"t={self._now()} {what} {host}{note}")

    def impair_host(self, host: str, fault: int, mode: str, probability: float, seed: int) -> None:
        """The host end of a loss / corrupt fault: ``host``'s RNIC process impairs the data
        frames it sends (``mode`` "off": stops, unless a later fault's replaced it; the
        impair file always holds the latest setting, so signals that arrive together lose
        nothing); a host running no RNIC process is noted."""
        if mode == "off" and self._host_impair.get(host) != fault:
            return  # a later fault's impairment replaced it (the file holds the latest)
        self._host_impair[host] = None if mode == "off" else fault
        procs = [p for procs in self._procs if (p := procs.get(host)) and p.poll() is None]
        if procs:
            write_impair(impair_file(self.fabric.run_dir / f"rnic-{host}.json"), fault, mode,
                         probability, seed)  # fmt: skip
        for p in procs:
            p.send_signal(signal.SIGHUP)
        note = "" if procs else " (no RNIC process running there)"
        if self._rec is not None:
            self._rec.events.append(f"t={self._now()} impair {host} {mode} {probability}{note}")

    def rnic_events(self) -> dict[str, list[tuple[int, int]]]:
        """When the RNICs retransmitted / timed out, run clock (after result(): collect)."""
        return {} if self._rec is None else rnic_events(self._rec)

    def host_impairments(self) -> dict[int, tuple[int, int]]:
        """Fault -> (lost, corrupted) frames the hosts' RNIC processes sent (after result())."""
        return {} if self._rec is None else host_impairments(self._rec)

    def qp_errors(self) -> list[dict[str, Any]]:
        """QPs whose retries ran out, as the RNIC processes reported them (after result())."""
        return [] if self._rec is None else qp_errors(self._rec)

    def pfc_watchdog_stats(self) -> tuple[int, int]:
        """(PFC watchdog storms, pause frames ignored in them) over the switch processes."""
        final = {} if self._rec is None else self._rec.final
        wd = [st.get("pfc_watchdog", {}) for st in final.values()]
        return sum(w.get("storms", 0) for w in wd), sum(w.get("ignored_pauses", 0) for w in wd)

    def result(self, meta: RunMeta) -> RunResult:
        """Stop the RNIC processes (they write their reports) and build the RunResult."""
        rec = self._rec
        if rec is None:
            raise UserError("the Mininet runtime never started")
        if not self._collected:
            self._actions.settle()  # no control-plane action half-done in the results
            rec.reports = [self.fabric.collect_rnics(procs) for procs in self._procs]
            self._collected = True
            try:
                rec.final = self.fabric.switch_stats()
            except (UserError, OSError, ValueError):
                rec.final = rec.samples[-1].stats if rec.samples else {}
            rec.end_ns = self._now()
            if self._sampler is not None:
                self._sampler.stop()
                rec.kernel = self._sampler.series()
            rec.program_counters = self._program_counters()
        incomplete = [
            f"{host}: workload not done" + (f" ({rep['error'][:200]})" if "error" in rep else "")
            for reports in rec.reports
            for host, rep in sorted(reports.items())
            if not rep.get("done")
        ]
        if not self.workloads:
            incomplete.append("no workload was added")
        measured = None
        if self._capture is not None:
            self._capture.stop()  # the RNICs are done: every frame is on the wire
            measured = self._capture.measure()
        obs = observations(self.plan.topo, rec, incomplete, self._predictor(), measured=measured)
        return assemble(obs, meta)
