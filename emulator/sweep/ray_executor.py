"""Run a sweep on an existing Ray cluster (``--cluster ray`` with RAY_ADDRESS, or
``--cluster ray://host:port``).

Ray places each run on a worker (one CPU each), retries a run whose worker died once, and
carries every run's results directory back through its object store; this process
unpacks them where the runs were asked to write. Every node needs fabemu installed and
the scenario files at the same paths (a shared checkout), see docs/sweeps.md.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.sweep.request import RunDone, RunRequest, execute_packed, unpack

INSTALL_HINT = "Ray is not installed: pip install 'fabemu[cluster]' (or: pip install ray)"
MAX_RETRIES = 1  # a run whose worker process died is retried once


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError(f"--cluster ray: {INSTALL_HINT}") from None
    return ray


def _absolute(req: RunRequest) -> RunRequest:
    """``req`` with an absolute scenario path: a worker's current directory is not ours."""
    return dataclasses.replace(req, scenario=str(Path(req.scenario).resolve()))


class RayExecutor:
    """Submit every request as a Ray task; yield results as tasks finish."""

    def __init__(self, address: str | None = None) -> None:
        self.ray = _ray()
        self.address = address
        if address is None and not os.environ.get("RAY_ADDRESS") and not self.ray.is_initialized():
            raise UserError(
                "--cluster ray: set RAY_ADDRESS (or use --cluster ray://host:port) to the "
                "cluster's address; docs/sweeps.md says how to start one"
            )

    def _connect(self) -> None:
        if not self.ray.is_initialized():
            self.ray.init(address=self.address or "auto", log_to_driver=False)

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunDone]:
        """Submit all, then wait for each in completion order."""
        ray = self.ray
        self._connect()
        task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(execute_packed)
        pending = {task.remote(_absolute(req)): req for req in requests}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                req = pending.pop(ready[0])
                yield self._collect(req, ready[0])
        except KeyboardInterrupt:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise

    def _collect(self, req: RunRequest, ref: Any) -> RunDone:
        """The run's outcome (results unpacked at ``req.out``), or why it failed."""
        try:
            outcome, data = self.ray.get(ref)
        except Exception as exc:  # RayTaskError, WorkerCrashedError, TaskCancelledError...
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return RunDone(req, None, f"{type(exc).__name__}: {first}")
        return RunDone(req, unpack(req, outcome, data))
