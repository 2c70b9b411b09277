"""What one run of a sweep is (a picklable request) and what comes back from it."""

from __future__ import annotations

import io
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.scenario.runner import RunOutcome, run_scenario


@dataclass(frozen=True)
class RunRequest:
    """One run: a scenario file with overrides, written to ``out``; ``label`` names it.

    ``label`` is the variant (``lb=ecmp,qps=1``); the runs of one variant over seeds share
    it and differ in ``seed`` (None: the scenario's own seed, already in ``overrides`` if
    set).
    """

    label: str
    scenario: str
    out: str
    overrides: dict[str, Any] = field(default_factory=dict)
    runtime: str | None = None
    target: str | None = None
    seed: int | None = None
    report: bool = True
    wall_limit_s: float | None = None
    #: the outcome comes back :meth:`~emulator.scenario.runner.RunOutcome.slim` (no time
    #: series): a sweep over seeds reads only metrics, verdicts and meta of each run, and
    #: keeping whole results grew the driver by ~8 MB per flagship run
    slim: bool = False


@dataclass
class RunDone:
    """A finished run: its outcome, or why there is none (crash, kill, interrupt)."""

    request: RunRequest
    outcome: RunOutcome | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the run produced an outcome (which may still fail expectations)."""
        return self.outcome is not None


def execute(req: RunRequest) -> RunOutcome:
    """Run ``req`` in this process, writing its results directory at ``req.out``."""
    outcome = run_scenario(
        req.scenario,
        req.overrides,
        runtime=req.runtime,
        target=req.target,
        out=req.out,
        report=req.report,
        wall_limit_s=req.wall_limit_s,
    )
    return outcome.slim() if req.slim else outcome


def execute_packed(req: RunRequest) -> tuple[RunOutcome, bytes]:
    """Run ``req`` in a scratch directory (e.g. on a remote machine); return the outcome
    and the results directory as a gzipped tar, for the caller to unpack at ``req.out``."""
    with tempfile.TemporaryDirectory(prefix="fabemu-sweep-") as tmp:
        here = Path(tmp) / "run"
        outcome = run_scenario(
            req.scenario,
            req.overrides,
            runtime=req.runtime,
            target=req.target,
            out=here,
            report=req.report,
            wall_limit_s=req.wall_limit_s,
        )
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(here, arcname=".")
        return (outcome.slim() if req.slim else outcome), buf.getvalue()


def unpack(req: RunRequest, outcome: RunOutcome, data: bytes) -> RunOutcome:
    """Unpack a packed results directory at ``req.out``; the outcome, pointing there."""
    dest = Path(req.out)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for m in tar.getmembers():  # only plain files and folders inside dest
            if not (m.isfile() or m.isdir()) or m.name.startswith("/") or ".." in m.name:
                raise ValueError(f"results archive of {req.label}: unexpected member {m.name}")
        tar.extractall(dest)
    outcome.outdir = dest
    return outcome
