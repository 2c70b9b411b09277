"""Run many scenario runs (variants x seeds) serially, on a local process pool or on Ray.

list[RunRequest] ─► Executor.run ─► RunDone as each run finishes (any order)
                     serial | local process pool | Ray cluster
"""

from emulator.sweep.executors import Executor, LocalPoolExecutor, SerialExecutor, make_executor
from emulator.sweep.request import RunDone, RunRequest, execute

__all__ = [
    "Executor",
    "LocalPoolExecutor",
    "RunDone",
    "RunRequest",
    "SerialExecutor",
    "execute",
    "make_executor",
]
