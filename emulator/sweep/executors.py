"""Executors: take a list of run requests, yield each run's result as it finishes.

* :class:`SerialExecutor`: one after the other in this process (``--workers 1``).
* :class:`LocalPoolExecutor`: up to ``workers`` runs at once, each in its own process, so a
  run that crashes or is killed is attributed to that run alone (``concurrent.futures``
  marks every pending run of a pool broken when one worker dies).
* :class:`~emulator.sweep.ray_executor.RayExecutor`: on an existing Ray cluster, which
  does placement, retries and moving results back.

Ctrl-C: the runs in progress are interrupted (each saves its partial results) and the
executor stops; what finished was already yielded.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from emulator.sweep.request import RunDone, RunRequest, execute

RunFn = Callable[[RunRequest], Any]
STOP_GRACE_S = 10.0  # after Ctrl-C, how long runs get to save their partial results
#: imported once by the forkserver, so each run's process does not import them again
PRELOAD = (
    "emulator.sweep.request",
    "emulator.runtime.virtual.runtime",
    "emulator.control",
    "emulator.p4c.compiler",  # emulator.p4c alone is light: a cache miss needs this
    "emulator.scenario.metrics",
    "emulator.scenario.report",
    "pcpp",
    "PIL.Image",
)


class Executor(Protocol):
    """Runs requests; yields a :class:`RunDone` per request, in completion order."""

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunDone]:
        """Run every request (KeyboardInterrupt stops the rest after cleaning up)."""
        ...


class SerialExecutor:
    """One run after the other, in this process."""

    def __init__(self, fn: RunFn = execute) -> None:
        self.fn = fn

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunDone]:
        """Run each request in turn."""
        for req in requests:
            try:
                yield RunDone(req, self.fn(req))
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # a run that cannot even start: report, go on
                yield RunDone(req, None, f"{type(exc).__name__}: {exc}")


def _child(fn: RunFn, req: RunRequest, conn: Connection) -> None:
    """Body of a worker process: run, send back the outcome (or the error)."""
    try:
        conn.send(RunDone(req, fn(req)))
    except BaseException as exc:
        conn.send(RunDone(req, None, f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class LocalPoolExecutor:
    """Up to ``workers`` runs at once (default: the machine's cores), a process per run."""

    def __init__(self, workers: int | None = None, fn: RunFn = execute) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.fn = fn  # a module-level function (it is pickled to the worker)
        self.last_processes: list[Any] = []  # the processes of the last run() (for tests)
        self._ctx = mp.get_context("forkserver")
        self._ctx.set_forkserver_preload(list(PRELOAD))

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunDone]:
        """Start runs as slots free up; yield each as its process reports or dies."""
        todo = list(reversed(requests))
        live: dict[Any, tuple[RunRequest, Any, Connection]] = {}
        self.last_processes = []
        try:
            while todo or live:
                while todo and len(live) < self.workers:
                    req = todo.pop()
                    recv, send = self._ctx.Pipe(duplex=False)
                    proc = self._ctx.Process(target=_child, args=(self.fn, req, send), daemon=True)
                    proc.start()
                    self.last_processes.append(proc)
                    send.close()
                    live[recv] = (req, proc, recv)
                for ready in wait(list(live)):
                    req, proc, recv = live.pop(ready)
                    yield self._collect(req, proc, recv)
        except KeyboardInterrupt:
            self._stop(live)
            raise

    @staticmethod
    def _collect(req: RunRequest, proc: Any, recv: Connection) -> RunDone:
        """The run's report, or a crash report when its process died without one."""
        try:
            done: RunDone = recv.recv()
        except (EOFError, OSError):
            proc.join(5)
            code = proc.exitcode
            why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
            done = RunDone(req, None, f"worker process died ({why})")
        finally:
            recv.close()
        proc.join(5)
        return done

    @staticmethod
    def _stop(live: dict[Any, tuple[RunRequest, Any, Connection]]) -> None:
        """Interrupt every live run, give them time to save, then terminate stragglers."""
        for _req, proc, _recv in live.values():
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, 2)  # SIGINT: run_scenario saves a partial result
        deadline = time.monotonic() + STOP_GRACE_S
        for _req, proc, recv in live.values():
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
            recv.close()


def make_executor(cluster: str | None, workers: int | None = None) -> Executor:
    """The executor for ``--cluster`` (None/local, ray, ray://host:port) and ``--workers``."""
    if cluster in (None, "", "local"):
        if workers == 1:
            return SerialExecutor()
        return LocalPoolExecutor(workers)
    if cluster == "ray" or cluster.startswith("ray://"):
        from emulator.sweep.ray_executor import RayExecutor

        return RayExecutor(None if cluster == "ray" else cluster)
    from emulator.errors import UserError

    raise UserError(f"--cluster: expected local, ray or ray://host:port, got {cluster!r}")
