"""``build_plan``: a validated scenario -> the :class:`~emulator.plan.spec.RunPlan` of one run.

    Scenario ─► resolve topology ─► compile the P4 program ─► FabricController (routes,
      │            (emulator.topology)   (emulator.p4c)            groups, typed switch ops)
      └─► RNIC config, workload mapping (hosts placed once), runtime options, live controller

The IB fabric takes OpenSM's routing instead of the controller (``emulator.ib.fabric``).
Each layer is visited once; errors name the scenario file and key.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from emulator.control import FabricConfig, FabricController, PfcConfig, pfc_headroom
from emulator.control.controller import with_lag_headroom
from emulator.control.live import LiveController
from emulator.errors import UserError
from emulator.plan.compat import incompatibility
from emulator.plan.spec import RunOptions, RunPlan, WorkloadPlan
from emulator.plan.workload import workload_mapping
from emulator.scenario.load import resolve_path
from emulator.scenario.schema import Scenario
from emulator.scenario.training_run import build_job
from emulator.target.ops import SetQueueRate, SwitchOp
from emulator.topology import ResolvedTopology, load_clos, resolve
from emulator.traffic.qos import dscp_to_tc_entries
from emulator.traffic.rnic import RnicConfig
from emulator.traffic.rnic_process import rnic_config_from_dict
from emulator.traffic.workloads import workload_from_dict
from emulator.vocab import DSCP_CTS, TC_BULK

log = logging.getLogger("fabemu.plan")


@contextlib.contextmanager
def at_key(path: Path | str, key: str) -> Iterator[None]:
    """A UserError inside names the scenario file and key it came from."""
    try:
        yield
    except UserError as exc:
        raise UserError(f"{path}: {key}: {exc}") from None


def fabric_config(sc: Scenario) -> FabricConfig:
    """The control plane's settings from the scenario's ``switch:`` section."""
    sw = sc.switch
    dscp_to_tc = dict(dscp_to_tc_entries())
    if not sw.cts_priority:
        dscp_to_tc[DSCP_CTS] = TC_BULK
    kwargs: dict[str, Any] = {
        "lb_mode": sw.lb,
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
        "ecn_thresholds": ((TC_BULK, sw.ecn.threshold_pkts),) if sw.ecn.enabled else (),
        "queue_depth": sw.queue_depth_pkts,
    }
    if sw.hash:
        kwargs["hash_algos"] = {"leaf": sw.hash, "spine": sw.hash, "agg": sw.hash}
    return FabricConfig(**kwargs)


def rnic_config(sc: Scenario, topo: ResolvedTopology) -> RnicConfig:
    """The RNICs' settings: the scenario's ``rnic:`` section at the hosts' link rate
    (``rto_ms`` given in ns)."""
    host_rate = min((h.port.rate_bps for h in topo.hosts), default=10e9)
    settings = sc.rnic.model_dump()
    rto_ms = settings.pop("rto_ms", None)
    if rto_ms is not None:
        settings["rto_ns"] = round(rto_ms * 1e6)
    return rnic_config_from_dict(settings | {"link_bps": host_rate}, "rnic")


def build_plan(
    sc: Scenario,
    path: Path | str,
    runtime: str = "virtual",
    target: str | None = None,
    *,
    log_dir: str | None = None,
    pcap_dir: str | None = None,
) -> RunPlan:
    """Everything the run of ``sc`` (the file at ``path``) needs, resolved once."""
    tgt = target or sc.target
    problem = incompatibility(sc.fabric, tgt, runtime, sc.workload.kind)
    if problem:
        raise UserError(f"{path}: {problem}")
    with at_key(path, "topology"):
        topo = resolve(load_clos(resolve_path(Path(path), sc.topology)))
    options = RunOptions(
        priority_queues=sc.switch.priority_queues,
        pfc=sc.switch.pfc.enabled and sc.fabric != "ib",
        pfc_watchdog_ms=sc.switch.pfc.watchdog_ms if sc.fabric != "ib" else None,
        seed=sc.seed,
        pcap_dir=pcap_dir,
        log_dir=log_dir,
    )
    rnic = rnic_config(sc, topo)
    workload = _workload(sc, topo, path)
    if sc.fabric == "ib":
        with at_key(path, "ib"):
            return _ib_plan(sc, path, topo, tgt, options, rnic, workload)
    from emulator.p4c import compile_file  # imported when a run needs it (CLI start-up)

    with at_key(path, "switch.program"):
        program = compile_file(resolve_path(Path(path), sc.switch.program))
    with at_key(path, "switch"):
        config = fabric_config(sc)
        if runtime == "mininet":  # processes on shared cores react late: deeper queues
            config = with_lag_headroom(topo, config, pfc_headroom.PROCESS_LAG_NS)
            log.info("mininet: queue depth %s packets (PFC lag headroom)", config.queue_depth)
        ctl = FabricController(topo, config)
    extra: tuple[SwitchOp, ...] = ()
    if sc.switch.queue_rate_pps:
        extra = (SetQueueRate(sc.switch.queue_rate_pps),)
    control = sc.switch.control
    live = None
    if control.repair:
        live = LiveController(ctl, round(control.detection_delay_us * 1000))
    return RunPlan(
        topo=topo,
        programs={name: program for name in ctl.switch_names},
        switch_ops={name: ctl.switch_ops(name) + extra for name in ctl.switch_names},
        target=tgt,
        rnic=rnic,
        options=options,
        workload=workload,
        controller=live,
    )


def _workload(sc: Scenario, topo: ResolvedTopology, path: Path | str) -> WorkloadPlan:
    """The workload mapping and its hosts, or a training step's placed job."""
    if sc.workload.kind == "training_step":
        job = build_job(sc, topo, path)
        return WorkloadPlan({}, frozenset(), job)
    with at_key(path, "workload"):
        mapping = workload_mapping(sc, topo)
        hosts = frozenset(workload_from_dict(mapping).hosts)
    return WorkloadPlan(mapping, hosts)


def _ib_plan(
    sc: Scenario,
    path: Path | str,
    topo: ResolvedTopology,
    target: str,
    options: RunOptions,
    rnic: RnicConfig,
    workload: WorkloadPlan,
) -> RunPlan:
    """The IB fabric: real OpenSM routing -> ib_fabric.p4 tables, IB framing, VL credits."""
    from emulator.ib.fabric import IbFabricSettings, build_ib_fabric

    ib = sc.ib
    settings = IbFabricSettings(
        ib.routing, ib.lmc, ib.adaptive_routing, ib.data_vls, ib.vl_buffer_bytes
    )
    program = resolve_path(Path(path), ib.program) if ib.program else None
    fab = build_ib_fabric(topo, settings, program)
    log.info("OpenSM %s routed %d switches", ib.routing, len(fab.routing.lfts))
    return RunPlan(
        topo=topo,
        programs={s.name: fab.program for s in topo.switches},
        switch_ops=fab.ops,
        target=target,
        fabric="ib",
        rnic=rnic,
        options=options,
        workload=workload,
        framing=fab.framing,
        credits=fab.credits,
    )
