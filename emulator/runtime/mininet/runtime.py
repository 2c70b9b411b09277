"""``MininetRuntime``: the :class:`~emulator.runtime.base.NetworkRuntime` on Mininet.

    cfg = RuntimeConfig(topo, programs, commands, target="builtin" | "bmv2", ...)
    with MininetRuntime(cfg) as rt:        # make_runtime("mininet", cfg)
        rt.start()                         # MininetFabric: build, launch, program, hosts
        rt.add_workload({...})             # remembered; hosts of workloads must not overlap
        rt.run(until_ns)                   # 1st call starts one rnic_process per host; waits
        rt.fail_link(a, b); rt.switch_cli(sw, "...")   # between run() calls, in real time
        rt.run(until_ns2)                  # the same processes keep running
        result = rt.result(meta)           # stops the RNICs (they report), builds RunResult

Run time is wall-clock time (CLOCK_MONOTONIC) since ``start()`` returned. From ``start()``
a thread samples the switch interfaces' kernel counters each ``max(sample_interval_ns,
10 ms)`` (link utilisation, :mod:`mininet.sampler`); while ``run`` waits it also samples
every switch's counters each ``max(sample_interval_ns, 200 ms)`` (queue depths).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from typing import Any

from emulator.errors import UserError
from emulator.measure.assemble import assemble
from emulator.measure.observations import P4_COUNTERS
from emulator.measure.results import RunMeta, RunResult
from emulator.runtime.base import RuntimeConfig
from emulator.runtime.mininet.capture import UplinkCapture
from emulator.runtime.mininet.collect import RunRecord, Sample, kernel_counters, observations
from emulator.runtime.mininet.fabric import MininetFabric, workload_hosts
from emulator.runtime.mininet.sampler import KernelSampler
from emulator.runtime.mininet.uplinks import CliChange, UplinkPredictor
from emulator.traffic.qos import DSCP_BULK

MIN_SAMPLE_NS = 200_000_000  # counter polling costs the switches CPU: at most 5 per second
START_DELAY_NS = 1_000_000_000  # RNIC processes start their ranks together after this
PROCESS_MARGIN_S = 600.0  # bound on an RNIC process beyond the first run() horizon
CONN_IDS_PER_WORKLOAD = 4096


class MininetRuntime:
    """Mininet hosts + switch processes, RNIC processes per workload, a RunResult."""

    name = "mininet"

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self.fabric = MininetFabric(
            config.topo,
            dict(config.programs),
            {k: list(v) for k, v in config.commands.items()},
            target=config.target,
            priority_queues=config.priority_queues,
            pfc=config.pfc,
            run_dir=config.log_dir,
            pcap_dir=config.pcap_dir,
        )
        self.workloads: list[dict[str, Any]] = []
        self._procs: list[dict[str, subprocess.Popen[bytes]]] = []
        self._rec: RunRecord | None = None
        self._collected = False
        self._sampler: KernelSampler | None = None
        self._capture: UplinkCapture | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> MininetRuntime:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Build the network, start the switches, apply the commands."""
        self.fabric.start()
        self._rec = RunRecord(t0_mono_ns=time.monotonic_ns())
        self._sampler = KernelSampler(
            kernel_counters(self.config.topo),
            self.config.sample_interval_ns,
            self._rec.t0_mono_ns,
        )
        self._sampler.start()
        self._start_capture()

    def _start_capture(self) -> None:
        """tcpdump on the leaf uplinks, so each flow's uplinks are measured (mininet.capture)."""
        why = UplinkCapture.available()
        if why is not None:
            assert self._rec is not None
            self._rec.events.append(f"uplinks will be predicted, not measured: {why}")
            return
        self._capture = UplinkCapture(self.config.topo, self.fabric.run_dir / "uplinks")
        for proc in self._capture.start():
            if self.fabric.state is not None:
                self.fabric.state.add_pid(proc.pid, "tcpdump (uplink capture)")
        self._capture.wait_listening()  # recorded first: a kill while waiting is cleaned up

    def stop(self) -> None:
        """Stop RNIC processes and tear the network down (idempotent)."""
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

    # -- workloads -----------------------------------------------------------------------

    def add_workload(self, workload: Mapping[str, Any]) -> None:
        """Remember a workload; its RNIC processes start at the first ``run``."""
        if self._procs:
            raise UserError("Mininet runtime: add workloads before the first run()")
        hosts = workload_hosts(workload)
        if hosts is None:
            raise UserError("Mininet runtime: the workload names no hosts")
        unknown = sorted(h for h in hosts if not self.config.topo.is_host(h))
        if unknown:
            raise UserError(f"workload names unknown host(s): {', '.join(unknown)}")
        for other in self.workloads:
            both = hosts & (workload_hosts(other) or set())
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
            start_at = time.monotonic_ns() + START_DELAY_NS
            for i, w in enumerate(self.workloads):
                self._procs.append(
                    self.fabric.start_rnics(
                        w,
                        rnic=self.config.rnic,
                        start_at_ns=start_at,
                        seed=self.config.seed,
                        duration_s=max(0.0, (until_ns - now) / 1e9) + PROCESS_MARGIN_S,
                        conn_id_base=i * CONN_IDS_PER_WORKLOAD,
                    )
                )
        interval = max(self.config.sample_interval_ns, MIN_SAMPLE_NS)
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
        for s in self.config.topo.switches:
            prog = self.config.programs.get(s.name, {})
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
        self._rec.events.append(f"t={self._now()} fail_link {a} {b} ({n} link(s))")

    def restore_link(self, a: str, b: str) -> None:
        """Bring the link(s) between ``a`` and ``b`` back up."""
        n = self.fabric.restore_link(a, b)
        assert self._rec is not None
        self._rec.events.append(f"t={self._now()} restore_link {a} {b} ({n} link(s))")

    def switch_cli(self, switch: str, line: str) -> str:
        """One runtime command on a running switch; its output (UserError if rejected)."""
        out = self.fabric.switch_cli(switch, line)
        if self._rec is not None:  # replayed by the uplink predictor at result()
            self._rec.changes.append(CliChange(self._now(), switch, line))
        return out

    def _predictor(self) -> UplinkPredictor | None:
        """The leaves' programs in-process, to compute each flow's uplink (None: no programs)."""
        if not all(s.name in self.config.programs for s in self.config.topo.switches):
            return None
        qos = self.config.rnic.get("qos")
        dscp = qos.get("dscp_bulk") if isinstance(qos, Mapping) else getattr(qos, "dscp_bulk", None)
        return UplinkPredictor(
            self.config.topo,
            self.config.programs,
            self.config.commands,
            priority_queues=self.config.priority_queues,
            dscp=DSCP_BULK if dscp is None else int(dscp),
            sport_policy=str(self.config.rnic.get("udp_sport", "qpn_hash")),
            seed=self.config.seed,
        )

    def result(self, meta: RunMeta) -> RunResult:
        """Stop the RNIC processes (they write their reports) and build the RunResult."""
        rec = self._rec
        if rec is None:
            raise UserError("the Mininet runtime never started")
        if not self._collected:
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
        obs = observations(self.config.topo, rec, incomplete, self._predictor(), measured=measured)
        return assemble(obs, meta)
