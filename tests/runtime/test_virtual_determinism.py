"""The same configuration and seed give the same RunResult; the engine orders ties."""

from __future__ import annotations

from emulator.runtime.virtual.engine import Engine

from .vt_fabric import config, run

WORK = {
    "kind": "allreduce",
    "hosts": ["h0", "h1", "h2", "h3"],
    "size_bytes": 64 * 1024,
    "num_qps": 2,
}


def _dump(seed: int) -> dict:
    cfg, _ = config("two_rack_2spine", seed=seed, rnic={"chunk_bytes": 8192})
    done, r, _rt = run(cfg, WORK)
    assert done
    return r.model_dump()


def test_same_seed_same_result() -> None:
    a, b = _dump(1), _dump(1)
    assert a == b
    assert a["collectives"] and a["flows"] and a["links"][0]["utilisation"]


def test_another_seed_changes_psns_not_bytes() -> None:
    a, c = _dump(1), _dump(7)
    assert [f["bytes"] for f in a["flows"]] == [f["bytes"] for f in c["flows"]]
    assert a["totals"]["packets_sent"] == c["totals"]["packets_sent"]


def test_engine_runs_events_in_time_then_scheduling_order() -> None:
    eng = Engine()
    seen: list[tuple[int, str]] = []
    for t, tag in [(5, "a"), (1, "b"), (5, "c"), (3, "d"), (1, "e")]:
        eng.at(t, lambda x: seen.append((eng.now, x)), tag)
    assert eng.run(4) is False and eng.now == 4
    assert seen == [(1, "b"), (1, "e"), (3, "d")]
    eng.at(0, lambda x: seen.append((eng.now, x)), "past")  # never earlier than now
    assert eng.next_time() == 4 and eng.pending() == 3

    def stopper(_x: object) -> None:
        eng.stop = True

    eng.at(5, stopper)
    assert eng.run(100) is True and eng.now == 5
    assert seen[3:] == [(4, "past"), (5, "a"), (5, "c")]
    assert eng.run(100) is False and eng.now == 100 and eng.events == 7


SCRIPT = """
import sys
from tests.runtime.vt_fabric import config, run
cfg, _ = config("two_rack_2spine", seed=3, rnic={"chunk_bytes": 8192})
done, r, _ = run(cfg, {"kind": "alltoall", "hosts": ["h0", "h1", "h2", "h3"],
                       "size_bytes": 16384, "num_qps": 2})
sys.stdout.write(r.model_dump_json())
"""


def test_identical_across_processes_and_hash_seeds() -> None:
    """No dependence on str hashing or process state: two interpreters, two hash seeds."""
    import os
    import subprocess
    import sys

    from .vt_fabric import ROOT

    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr.decode()[-2000:]
        outs.append(proc.stdout)
    assert outs[0] == outs[1] and b'"flows":[{' in outs[0]
