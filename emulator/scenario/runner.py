"""Run one scenario end to end and write its results directory.

    scenario YAML ─load─► Scenario ─prepare─► RuntimeConfig ─► NetworkRuntime ─► RunResult
                                     │ resolve topology           (virtual | mininet)
                                     │ compile P4 (emulator.p4c)
                                     └ control plane (emulator.control) -> command lines

Whatever happens, the results directory gets ``scenario.yaml`` (after overrides),
``result.json`` (marked incomplete on failure or interrupt), ``run.log`` and, when the
report layer is present, ``report.html``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from emulator import __version__
from emulator.errors import UserError
from emulator.measure.results import RunMeta, RunResult
from emulator.scenario.expect import Verdict, evaluate
from emulator.scenario.interrupts import SigintDeferral, WallLimit
from emulator.scenario.load import load_scenario, resolve_path
from emulator.scenario.schema import Scenario
from emulator.scenario.training_run import build_job, run_step
from emulator.topology import spec_to_dict

log = logging.getLogger("fabemu.run")

#: scenario lb names -> the control plane's
_LB = {"ecmp": "ecmp", "eecmp": "eecmp", "pinning": "pin", "flowlet": "flowlet"}


@dataclass
class RunOutcome:
    """A finished (or failed) run: its result, metrics, verdicts and where it was written."""

    scenario: Scenario
    result: RunResult
    metrics: dict[str, float]
    verdicts: list[Verdict]
    outdir: Path
    error: str | None = None

    @property
    def passed(self) -> bool:
        """True when the run completed and every expectation was met."""
        return (
            self.error is None and self.result.meta.complete and all(v.met for v in self.verdicts)
        )

    @property
    def exit_code(self) -> int:
        """0 expectations met, 1 not met (or the run failed)."""
        return 0 if self.passed else 1

    def __getattr__(self, name: str) -> float:
        """Metrics as attributes: ``outcome.max_uplink_imbalance``."""
        metrics = self.__dict__.get("metrics", {})
        if name in metrics:
            return metrics[name]
        raise AttributeError(f"no metric or attribute {name!r} (metrics: {sorted(metrics)})")


@dataclass(frozen=True)
class Choice:
    """Which runtime and target run, and why (stated in the output header)."""

    runtime: str
    target: str
    why: str


def mininet_available() -> str | None:
    """None when Mininet can run here, else the reason it cannot."""
    if os.geteuid() != 0:
        return "not root"
    if not shutil.which("mnexec"):
        return "mnexec not found (run scripts/setup.sh)"
    return None


def choose(sc: Scenario, runtime: str | None, target: str | None) -> Choice:
    """Resolve ``auto`` and command-line overrides into a runtime/target pair."""
    tgt = target or sc.target
    rt = runtime or sc.runtime
    reasons = [f"target {tgt} ({'--target' if target else 'scenario'})"]
    if tgt == "bmv2":
        missing = [b for b in ("simple_switch", "p4c-bm2-ss") if not shutil.which(b)]
        if missing:
            raise UserError(
                f"target bmv2 needs {', '.join(missing)} on PATH "
                "(scripts/setup.sh --with-bmv2, or the Vagrant VM); --target builtin runs anywhere"
            )
    if rt == "auto":
        if tgt == "bmv2":
            rt, why = "mininet", "runtime mininet (auto: the bmv2 target runs in real time)"
        else:
            rt = "virtual"
            why = "runtime virtual (auto: deterministic virtual time; --runtime mininet for namespaces)"
    else:
        why = f"runtime {rt} ({'--runtime' if runtime else 'scenario'})"
    if rt == "virtual" and tgt == "bmv2":
        raise UserError("target bmv2 cannot run in the virtual runtime; use --runtime mininet")
    if rt == "mininet" and (reason := mininet_available()):
        raise UserError(f"runtime mininet is not available here ({reason}); use --runtime virtual")
    return Choice(rt, tgt, "; ".join([why, *reasons]))


def _fabric_config(sc: Scenario) -> Any:
    from emulator.control import FabricConfig, PfcConfig
    from emulator.traffic import qos

    sw = sc.switch
    dscp_to_tc = dict(qos.dscp_to_tc_entries())
    if not sw.cts_priority:
        dscp_to_tc[qos.DSCP_CTS] = qos.TC_BULK
    kwargs: dict[str, Any] = {
        "lb_mode": _LB[sw.lb],
        "flowlet_gap_us": sw.flowlet_gap_us,
        "dscp_to_tc": tuple(sorted(dscp_to_tc.items())),
        "pfc": PfcConfig(
            enabled=sw.pfc.enabled,
            xoff=sw.pfc.xoff_pkts,
            xon=sw.pfc.xon_pkts,
            quanta=sw.pfc.quanta,
            mtu=sc.rnic.mtu,
            response_ns=sw.pfc.response_ns,
        ),
        "ecn_thresholds": ((qos.TC_BULK, sw.ecn.threshold_pkts),) if sw.ecn.enabled else (),
        "queue_depth": sw.queue_depth_pkts,
    }
    if sw.hash:
        kwargs["hash_algos"] = {"leaf": sw.hash, "spine": sw.hash, "agg": sw.hash}
    return FabricConfig(**kwargs)


@contextlib.contextmanager
def _at(path: Path, key: str) -> Iterator[None]:
    """A UserError inside names the scenario file and key it came from."""
    try:
        yield
    except UserError as exc:
        raise UserError(f"{path}: {key}: {exc}") from None


def prepare(sc: Scenario, path: Path, choice: Choice) -> tuple[Any, Any]:
    """Resolve the topology, compile the program, render every switch's commands."""
    from emulator.control import FabricController
    from emulator.p4c import compile_file
    from emulator.runtime.base import RuntimeConfig
    from emulator.topology import load_clos, resolve

    with _at(path, "topology"):
        topo = resolve(load_clos(resolve_path(path, sc.topology)))
    if sc.fabric == "ib":
        with _at(path, "ib"):
            return _prepare_ib(sc, path, choice, topo), None
    with _at(path, "switch.program"):
        program = compile_file(resolve_path(path, sc.switch.program))
    with _at(path, "switch"):
        ctl = FabricController(topo, _fabric_config(sc))
        commands = {}
        for name in ctl.switch_names:
            lines = [ln for ln in ctl.command_file(name).splitlines() if ln.strip()]
            if sc.switch.queue_rate_pps:
                lines.append(f"set_queue_rate {sc.switch.queue_rate_pps:g}")
            commands[name] = lines
    rnic = rnic_settings(sc, topo)
    cfg = RuntimeConfig(
        topo=topo,
        programs={name: program for name in ctl.switch_names},
        commands=commands,
        target=choice.target,
        priority_queues=sc.switch.priority_queues,
        pfc=sc.switch.pfc.enabled,
        seed=sc.seed,
        rnic=rnic,
    )
    return cfg, ctl


def rnic_settings(sc: Scenario, topo: Any) -> dict[str, Any]:
    """The RNIC settings the runtimes take (``RnicConfig`` fields): the scenario's, with the
    host link rate and ``rto_ms`` in ns."""
    rnic = sc.rnic.model_dump()
    rto_ms = rnic.pop("rto_ms", None)
    if rto_ms is not None:
        rnic["rto_ns"] = round(rto_ms * 1e6)
    return rnic | {"link_bps": min((h.port.rate_bps for h in topo.hosts), default=10e9)}


def check_runnable(sc: Scenario, path: Path) -> None:
    """Build everything a run uses without starting it (what ``fabemu validate`` checks
    beyond the schema): topology, program, control plane, workload hosts."""
    cfg, ctl = prepare(sc, path, Choice("virtual", sc.target, "validate"))
    from emulator.faults.session import FaultSession
    from emulator.traffic.workloads import workload_from_dict

    FaultSession.build(sc, path, cfg.topo, ctl)  # fault names against the topology

    if sc.workload.kind == "training_step":
        build_job(sc, cfg.topo, path)  # placement, mapping and stages, as a run builds them
        return
    with _at(path, "workload"):
        workload_from_dict(workload_mapping(sc, cfg.topo))  # what the runtimes deploy


def _prepare_ib(sc: Scenario, path: Path, choice: Choice, topo: Any) -> Any:
    """The IB fabric: real OpenSM routing -> ib_fabric.p4 tables, IB framing, VL credits."""
    from emulator.ib.fabric import IbFabricSettings, build_ib_fabric
    from emulator.runtime.base import RuntimeConfig

    ib = sc.ib
    settings = IbFabricSettings(
        ib.routing, ib.lmc, ib.adaptive_routing, ib.data_vls, ib.vl_buffer_bytes
    )
    program = resolve_path(path, ib.program) if ib.program else None
    fab = build_ib_fabric(topo, settings, program)
    log.info("OpenSM %s routed %d switches", ib.routing, len(fab.routing.lfts))
    return RuntimeConfig(
        topo=topo,
        programs={s.name: fab.program for s in topo.switches},
        commands=fab.commands,
        target=choice.target,
        priority_queues=sc.switch.priority_queues,
        pfc=False,
        seed=sc.seed,
        rnic=rnic_settings(sc, topo),
        framing=fab.framing,
        credits=fab.credits,
    )


def lb_label(sc: Scenario) -> str:
    """How the fabric balances load, for tables: ``ecmp``.. or ``ib-ftree[-ar]``."""
    if sc.fabric == "ib":
        return f"ib-{sc.ib.routing}" + ("-ar" if sc.ib.adaptive_routing else "")
    return sc.switch.lb


def workload_mapping(sc: Scenario, topo: Any) -> dict[str, Any]:
    """The scenario's workload in ``emulator.traffic.workloads.workload_from_dict`` terms."""
    from emulator.traffic.endpoints import racks
    from emulator.traffic.workloads import place

    w = sc.workload
    out: dict[str, Any] = {"kind": w.kind, "size_bytes": w.size_bytes, "num_qps": w.num_qps}
    if w.kind == "fat_flows":
        out["pairs"] = [list(p) for p in w.pairs or []]
        if w.placement == "random":
            out["pairs"] = shuffled_pairs(out["pairs"], sc.seed)
        out["iterations"] = w.iterations
    elif w.kind == "incast":
        out["senders"], out["receiver"] = list(w.senders or []), w.receiver
    else:
        hosts = w.hosts or place(w.ranks or 2, racks(topo.hosts), w.placement, sc.seed)
        out["hosts"], out["iterations"] = list(hosts), w.iterations
        if w.kind == "allreduce":
            out["algorithm"] = w.algorithm
    known = {h.name for h in topo.hosts}
    named = [h for p in out.get("pairs", []) for h in p]
    named += out.get("senders", []) + out.get("hosts", []) + [out.get("receiver")]
    unknown = sorted({h or repr(h) for h in named if h is not None and h not in known})
    if unknown:
        raise UserError(
            f"workload names hosts not in topology {topo.name}: {', '.join(unknown)} "
            f"(hosts are {min(known)}..{max(known, key=lambda s: (len(s), s))})"
        )
    return out


def _check_runtime(sc: Scenario, path: Path, choice: Choice) -> None:
    """Refuse what the chosen runtime cannot run, before anything starts."""
    if sc.workload.kind == "training_step" and choice.runtime != "virtual":
        raise UserError(
            f"{path}: workload.kind: training_step runs in the virtual runtime only "
            f"(not {choice.runtime}); use --runtime virtual"
        )


def _drive(
    rt: Any, sc: Scenario, job: Any, workload: Mapping[str, Any], faults: Any = None
) -> tuple[bool, dict[str, Any] | None]:
    """Run the workload (or a training step's stages) until done or the deadline."""
    until = int(sc.duration_ms * 1e6)
    if job is not None:
        return run_step(rt, job, until)
    rt.add_workload(workload)
    if faults is not None:
        return faults.run(rt, until), None
    return rt.run(until_ns=until), None


def shuffled_pairs(pairs: list[list[str]], seed: int) -> list[list[str]]:
    """``pairs`` with their destinations in a random order drawn from ``seed``."""
    from emulator.traffic.seeding import rng

    dsts = [p[1] for p in pairs]
    rng(seed, "placement").shuffle(dsts)
    return [[p[0], d] for p, d in zip(pairs, dsts)]


def _new_outdir(base: Path | None, name: str) -> Path:
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
        return base
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path("results") / f"{stamp}-{name}"
    n = 1
    while out.exists():
        n += 1
        out = Path("results") / f"{stamp}-{name}-{n}"
    out.mkdir(parents=True)
    return out


def _attach_log(outdir: Path) -> logging.Handler:
    handler = logging.FileHandler(outdir / "run.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger("fabemu")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


def run_scenario(
    path: Path | str,
    overrides: Mapping[str, Any] | None = None,
    *,
    runtime: str | None = None,
    target: str | None = None,
    out: Path | str | None = None,
    progress: Callable[[str], None] | None = None,
    report: bool = True,
    wall_limit_s: float | None = None,
) -> RunOutcome:
    """Run the scenario at ``path``; always writes the results directory.

    ``wall_limit_s`` stops the run (like Ctrl-C, partial results kept) after that many
    wall-clock seconds, whatever the scenario's ``duration_ms``.
    """
    path = Path(path)
    sc = load_scenario(path, overrides)
    choice = choose(sc, runtime, target)
    _check_runtime(sc, path, choice)
    meta = RunMeta(
        scenario=sc.name,
        scenario_file=str(path),
        runtime=choice.runtime,
        target=choice.target,
        why=choice.why,
        seed=sc.seed,
        lb=lb_label(sc),
        num_qps=sc.workload.num_qps,
        placement=sc.workload.placement,
        settings=sc.model_dump(mode="json"),
        started_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        fabemu_version=__version__,
    )
    late = SigintDeferral()  # started by _execute once the run stops
    outdir = _new_outdir(Path(out) if out else None, sc.name)
    handler: logging.Handler | None = None
    try:
        handler = _attach_log(outdir)
        (outdir / "scenario.yaml").write_text(yaml.safe_dump(sc.model_dump(mode="json")))
        log.info("scenario %s: %s", path, choice.why)
        say = progress or (lambda _msg: None)
        result, error = _execute(sc, path, choice, outdir, meta, say, wall_limit_s, late)
        result.save(outdir / "result.json")  # first, so nothing below can lose it
        try:
            from emulator.scenario.metrics import summary_metrics

            metrics = summary_metrics(result)
        except Exception as exc:
            log.exception("computing summary metrics failed")
            error = error or f"computing summary metrics failed: {exc}"
            metrics = {}
        verdicts = evaluate(sc.expect, metrics)
        outcome = RunOutcome(sc, result, metrics, verdicts, outdir, error)
        save_outcome(outcome, report=report)
    except KeyboardInterrupt:  # before the run started (_execute catches it from there on)
        meta.incomplete_reason = "interrupted"
        RunResult(meta=meta).save(outdir / "result.json")
        raise
    finally:
        late.stop()
        if handler is not None:
            _detach_log(handler)
    if late.pending:  # a Ctrl-C while results were being saved: they are; now obey it
        raise KeyboardInterrupt
    return outcome


def _execute(
    sc: Scenario,
    path: Path,
    choice: Choice,
    outdir: Path,
    meta: RunMeta,
    say: Callable[[str], None],
    wall_limit_s: float | None,
    late: SigintDeferral,
) -> tuple[RunResult, str | None]:
    """Prepare, start and run; whatever happens, stop the runtime and return what it has."""
    t0 = time.monotonic()
    result: RunResult | None = None
    error: str | None = None
    rt = None
    limit = WallLimit(wall_limit_s)
    training: dict[str, Any] | None = None
    faults = None
    try:
        with limit:
            say("compiling P4 and computing routes")
            cfg, ctl = prepare(sc, path, choice)
            from emulator.faults.session import FaultSession

            faults = FaultSession.build(sc, path, cfg.topo, ctl)
            cfg = dataclasses.replace(
                cfg,
                log_dir=str(outdir / "logs"),
                pcap_dir=str(outdir / "pcaps") if sc.pcap else None,
            )
            job = build_job(sc, cfg.topo, path) if sc.workload.kind == "training_step" else None
            workload = workload_mapping(sc, cfg.topo) if job is None else {}
            meta.topology = spec_to_dict(cfg.topo.spec)
            if choice.runtime == "mininet":
                _warn_capacity(meta, cfg.topo, choice.target, sc.rnic.mtu, say)
            from emulator.runtime.base import make_runtime

            rt = make_runtime(choice.runtime, cfg)
            say(f"starting the {choice.runtime} network")
            rt.start()
            if faults is not None:
                faults.attach(rt)
            say("running the workload")
            done, training = _drive(rt, sc, job, workload, faults)
            limit.disarm()
        meta.complete = done
        if not done:
            meta.incomplete_reason = f"workload not finished after {sc.duration_ms:g} ms"
    except KeyboardInterrupt:
        error = meta.incomplete_reason = limit.reason() if limit.fired else "interrupted"
        log.warning(error)
    except UserError:
        raise
    except Exception as exc:  # an internal failure: keep what we have, say what broke
        error = meta.incomplete_reason = f"{type(exc).__name__}: {exc}"
        log.exception("run failed")
    finally:
        late.start()  # from here to the saved results, Ctrl-C waits
        meta.wall_s = round(time.monotonic() - t0, 3)
        if rt is not None:
            try:
                result = rt.result(meta)
                if faults is not None and faults.clock is not None:
                    result.faults = faults.section(rt, result)
            except Exception as exc:
                log.exception("collecting results failed")
                error = error or f"collecting results failed: {exc}"
            finally:
                rt.stop()
        if faults is not None:
            faults.close()
    result = result or RunResult(meta=meta)
    result.training = training
    return result, error


def _warn_capacity(
    meta: RunMeta, topo: Any, target: str, mtu: int, say: Callable[[str], None]
) -> None:
    """Say (log, progress, ``meta.why``) when the links outrun the Mininet switches."""
    from emulator.runtime.mininet.capacity import capacity_warning

    note = capacity_warning(topo, target, mtu)
    if note:
        log.warning("%s", note)
        say(f"WARNING: {note}")
        meta.why = f"{meta.why}; WARNING: {note}"


def save_outcome(outcome: RunOutcome, report: bool = True) -> None:
    """Write ``metrics.json`` and (optionally) ``report.html`` beside the saved ``result.json``."""
    outdir = outcome.outdir
    (outdir / "metrics.json").write_text(json.dumps(outcome.metrics, indent=1, sort_keys=True))
    if not report:
        return
    try:
        from emulator.scenario.report import write_report

        name = outcome.scenario.name
        write_report(outdir, [(name, outcome.result)], {name: outcome.verdicts}, title=name)
    except Exception:  # the results are saved; a broken report must not lose them
        log.exception("writing the report failed")


def _detach_log(handler: logging.Handler) -> None:
    logging.getLogger("fabemu").removeHandler(handler)
    handler.close()
