"""Which runtime and switch target run a scenario: ``auto`` and command-line overrides."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from emulator.errors import UserError
from emulator.plan.compat import incompatibility
from emulator.scenario.schema import Scenario


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


def choose(
    sc: Scenario, runtime: str | None, target: str | None, path: Path | str = "scenario"
) -> Choice:
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
    problem = incompatibility(sc.fabric, tgt, rt, sc.workload.kind)
    if problem:
        raise UserError(f"{path}: {problem}")
    if rt == "mininet" and (reason := mininet_available()):
        raise UserError(f"runtime mininet is not available here ({reason}); use --runtime virtual")
    return Choice(rt, tgt, "; ".join([why, *reasons]))
