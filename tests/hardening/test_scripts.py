"""The hardening scripts in benchmarks/ at small counts: each prints its counts and exits 0.

The full counts (10^6 frames, ~1,850 P4 mutants, 500 scenario mutants, 100 killed Mininet
runs) are what the scripts do by default; docs/hardening.md gives the measured figures.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def script(name: str, *args: str, timeout: int = 600) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res.stdout


@pytest.mark.slow
def test_fuzz_frames_small() -> None:
    out = script("fuzz_frames.py", "--frames", "3000", "--seed", "7")
    assert "3000 frames through rtsw0 (roce_fabric.p4), 0 crashes" in out
    valid = re.search(r"valid\s+(\d+) in,\s+(\d+) out", out)
    assert valid and valid.group(1) == valid.group(2) == "600"  # the control: valid is forwarded


@pytest.mark.slow
def test_fuzz_p4c_small() -> None:
    out = script("fuzz_p4c.py", "--cases", "70", "--seed", "7")
    assert "fuzz_p4c: 70 cases, 0 tracebacks/hangs" in out
    assert "exit 2" in out  # mutants were rejected, cleanly


@pytest.mark.slow
def test_fuzz_scenarios_small() -> None:
    out = script("fuzz_scenarios.py", "--cases", "45", "--runs", "2", "--wall-limit", "20")
    assert "fabemu validate: 45 cases, 0 tracebacks/hangs" in out
    assert "fabemu run --runtime virtual: 2 cases, 0 tracebacks/hangs" in out


@pytest.mark.mininet
@pytest.mark.slow
def test_kill_three_mininet_runs() -> None:
    out = script("kill_runs.py", "--runs", "3", "--seed", "3", timeout=900)
    assert "kill_runs: 3 runs" in out
    for k in ("namespaces", "links", "processes", "records"):
        assert re.search(rf"{k}\s+left before clean \(sum\)\s+\d+, after clean 0\b", out), out
    assert "first, unkilled run           exit 0, complete True" in out
    assert "last, unkilled run            exit 0, complete True" in out
