"""Drive an executor with one progress bar across all runs; keep what finished on Ctrl-C."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from emulator.sweep.executors import Executor
from emulator.sweep.request import RunDone, RunRequest


def run_all(
    executor: Executor, requests: Sequence[RunRequest], console: Console | None = None
) -> list[RunDone]:
    """Every request's :class:`RunDone`, in request order.

    Runs that crashed carry their error; after Ctrl-C, those that never finished carry
    ``interrupted`` (the executor stopped them; finished ones are kept).
    """
    done: dict[int, RunDone] = {}
    index = {id(r): i for i, r in enumerate(requests)}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("runs", total=len(requests))
        failed = 0
        try:
            for d in executor.run(requests):
                done[index.get(id(d.request), _find(requests, d.request))] = d
                failed += not d.ok
                note = f" ({failed} failed)" if failed else ""
                bar.update(task, advance=1, description=f"runs: {d.request.label} done{note}")
        except KeyboardInterrupt:
            bar.update(task, description="runs: interrupted")
    return [done.get(i) or RunDone(r, None, "interrupted") for i, r in enumerate(requests)]


def _find(requests: Sequence[RunRequest], req: RunRequest) -> int:
    """Index of a request that came back as a copy (from another process)."""
    return next(i for i, r in enumerate(requests) if r == req)
