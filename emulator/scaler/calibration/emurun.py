"""Run small virtual-time AllReduce jobs for calibration and keep their RunResult files.

Used by ``benchmarks/calibrate_scaler.py`` (the sweep) and by the calibration test's
``--regenerate`` fixture script.  Every case runs ``scenarios/calibration/allreduce.yaml``
with overrides on the deterministic virtual-time runtime; the saved result drops the
per-link and per-queue time series (the scaler reads only meta, collectives and flows).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from emulator.errors import UserError

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "calibration" / "allreduce.yaml"


@dataclass(frozen=True)
class Case:
    """One calibration run: topology file stem, job and load balancing."""

    topology: str
    ranks: int
    algorithm: str  # ring | halving_doubling
    lb: str  # ecmp | eecmp | ib_static | ib_adaptive (InfiniBand fabric, OpenSM ftree)
    qps: int
    size_bytes: int

    @property
    def name(self) -> str:
        """File-name-safe identifier."""
        algo = "hd" if self.algorithm == "halving_doubling" else self.algorithm
        return f"{self.topology}-n{self.ranks}-{algo}-{self.lb}-q{self.qps}-{self.size_bytes}"

    def overrides(self) -> dict[str, object]:
        """Scenario overrides (dotted keys) for this case."""
        out: dict[str, object] = {
            "topology": f"../../topologies/{self.topology}.yaml",
            "workload.ranks": self.ranks,
            "workload.algorithm": self.algorithm,
            "workload.size_bytes": self.size_bytes,
            "workload.num_qps": self.qps,
        }
        if self.lb.startswith("ib_"):
            out |= {"fabric": "ib", "ib.adaptive_routing": self.lb == "ib_adaptive"}
        else:
            out["switch.lb"] = self.lb
        return out


def run_case(case: Case, out_dir: Path) -> Path:
    """Run one case on the virtual runtime; write ``<name>.result.json`` in ``out_dir``."""
    from emulator.scenario.runner import run_scenario

    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fabemu-calib-") as tmp:
        outcome = run_scenario(
            SCENARIO, case.overrides(), runtime="virtual", out=Path(tmp), report=False
        )
    result = outcome.result
    if not result.meta.complete:
        raise UserError(f"calibration run {case.name} incomplete: {result.meta.incomplete_reason}")
    slim = result.model_copy(update={"links": [], "queues": [], "pauses": []})
    return slim.save(out_dir / f"{case.name}.result.json")
