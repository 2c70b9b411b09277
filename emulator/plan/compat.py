"""Which fabric, switch target, runtime and workload can run together: the one check.

The scenario schema (file + key path), the command line's ``--runtime``/``--target`` choice
and the runtimes themselves all ask :func:`incompatibility`.
"""

from __future__ import annotations


def incompatibility(
    fabric: str, target: str, runtime: str, workload_kind: str | None = None
) -> str | None:
    """Why these cannot run together, or None. ``runtime`` may still be ``auto``."""
    if target == "bmv2" and runtime == "virtual":
        return (
            "target 'bmv2' cannot run in the 'virtual' runtime (real simple_switch runs "
            "in real time); use runtime 'mininet' or target 'builtin'"
        )
    if workload_kind == "training_step" and runtime == "mininet":
        return (
            "workload kind training_step runs in the virtual runtime only (not mininet); "
            "use runtime 'virtual'"
        )
    return None
