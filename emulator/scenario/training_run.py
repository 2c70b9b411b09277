"""Run a ``training_step`` workload: place and map the job, run its stages, time them.

Each stage's fabric workloads are added to the runtime together and run to completion
before the next stage starts (the step's dependencies as barriers). A stage lasts the longer
of its fabric time (first start to last end of its workloads, on the run clock) and its
local NVLink/compute time, which is accounted, not simulated. So

    step_ms = sum of stage times = sum over axes of axis_ms (+ compute_ms)
    exposed_comm_ms = step_ms - compute_ms      (stages never overlap)

``cross_zone_bytes_per_step`` counts what the spine->ATSW links carried (all frames,
measured); ``planned_cross_zone_bytes`` the payload the plan sends between zones.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.scenario.schema import Scenario
from emulator.traffic import mapping as mp
from emulator.traffic import training as tr

#: placement and mapping draw from different streams of the scenario seed
_MAP_SEED_OFFSET = 7919


def build_job(sc: Scenario, topo: Any, path: Path | str = "scenario") -> tr.StepJob:
    """The placed and mapped job of ``sc`` on ``topo``; UserError with the key path if bad."""
    j = sc.workload.job
    if j is None:
        raise UserError(f"{path}: workload.job: required for kind training_step")
    where = f"{path}: workload.job"
    gpus = mp.gpus_of(topo.hosts)
    if j.ranks > len(gpus):
        raise UserError(
            f"{where}.ranks: {j.ranks} ranks do not fit the {len(gpus)} GPUs "
            f"of topology {topo.name}"
        )
    per_rack = topo.spec.gpus_per_rack
    gps = min(j.gpus_per_server, per_rack)
    if per_rack % gps:
        raise UserError(
            f"{where}.gpus_per_server: {j.gpus_per_server} does not divide the "
            f"{per_rack} GPUs of a rack of {topo.name}"
        )
    degrees = mp.Degrees(j.tp, j.cp, j.pp, j.dp)
    alloc = mp.place_job(gpus, j.ranks, gps, j.placement, sc.seed)
    gpu_of = mp.map_ranks(alloc, degrees, j.mapping, sc.seed + _MAP_SEED_OFFSET)
    scale = topo.spec.rate_scale
    if j.bytes is not None:
        sizes = tr.StepBytes(j.bytes.tp, j.bytes.cp, j.bytes.pp, j.bytes.dp)
    else:
        shape = tr.ModelShape(**j.model.model_dump())
        sizes = tr.step_bytes(shape, degrees, scale * j.bytes_scale)
    return tr.StepJob(
        degrees,
        tuple(gpu_of),
        gps,
        sizes,
        j.algorithms.model_dump(),
        j.dp_collective,
        sc.workload.num_qps,
        j.nvlink_gbps * 1e9 * scale,
        round(j.compute_ms * 1e6 * j.bytes_scale),
    )


def _records(rt: Any, first: int) -> tuple[int, int] | None:
    recs = [d.record() for d in rt.deployments[first:]]
    if not recs or any(r is None for r in recs):
        return None
    return min(r.start_ns for r in recs), max(r.end_ns for r in recs)


def run_step(rt: Any, job: tr.StepJob, until_ns: int) -> tuple[bool, dict[str, Any]]:
    """Run one step's stages on a started runtime; (finished, the training record)."""
    if not hasattr(rt, "deployments"):
        raise UserError("workload kind training_step runs in the virtual runtime only (for now)")
    stages = tr.plan_step(job)
    rows: list[dict[str, Any]] = []
    clock = 0
    done = True
    for st in stages:
        fabric_ns, span = 0, None
        if st.workloads:
            first = len(rt.deployments)
            for w in st.workloads:
                rt.add_workload(w)
            done = rt.run(until_ns)
            span = _records(rt, first)
            if not done or span is None:
                done = False
                break
            fabric_ns = span[1] - span[0]
        dur = max(fabric_ns, st.local_ns)
        rows.append(
            {
                "axis": st.axis,
                "name": st.name,
                "start_ns": clock,
                "fabric_ns": fabric_ns,
                "local_ns": st.local_ns,
                "duration_ns": dur,
                "run_start_ns": span[0] if span else None,
                "run_end_ns": span[1] if span else None,
                "cross_zone_bytes": st.cross_zone_bytes,
            }
        )
        clock += dur
    return done, _record(job, rows, clock, done)


def _record(
    job: tr.StepJob, rows: list[dict[str, Any]], step_ns: int, done: bool
) -> dict[str, Any]:
    d = job.degrees
    return {
        "complete": done,
        "degrees": {"tp": d.tp, "cp": d.cp, "pp": d.pp, "dp": d.dp},
        "gpus_per_server": job.gpus_per_server,
        "bytes_per_rank": dataclasses.asdict(job.sizes),
        "rank_hosts": [g.host for g in job.gpu_of],
        "compute_ns": job.compute_ns,
        "step_ns": step_ns,
        "stages": rows,
    }


def training_metrics(training: dict[str, Any] | None, links: Any = ()) -> dict[str, float]:
    """``step_ms``, ``<axis>_ms``, ``exposed_comm_ms`` and cross-zone bytes of a step."""
    if not training or not training.get("complete"):
        return {}
    rows = training["stages"]
    out = {"step_ms": training["step_ns"] / 1e6}
    for axis in ("tp", "cp", "pp", "dp"):
        out[f"{axis}_ms"] = sum(r["duration_ns"] for r in rows if r["axis"] == axis) / 1e6
    compute = sum(r["duration_ns"] for r in rows if r["axis"] == "compute") / 1e6
    out["exposed_comm_ms"] = out["step_ms"] - compute
    out["planned_cross_zone_bytes"] = float(sum(r["cross_zone_bytes"] for r in rows))
    up_agg = [lk for lk in links if lk.kind == "agg" and lk.up]
    if up_agg:
        out["cross_zone_bytes_per_step"] = float(sum(lk.bytes for lk in up_agg))
    return out
