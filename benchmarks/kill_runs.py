"""Kill Mininet runs at random moments; after each, ``fabemu clean`` must leave nothing behind.

Each of ``--runs`` runs of a small scenario (``fabemu run --runtime mininet``, 2 racks x 2
GPUs, 2 spines) is killed at a seeded random moment, with SIGKILL (the fabemu process
alone: a crash) or SIGINT (its whole process group: a Ctrl-C), then ``fabemu clean`` runs.
Counted after each, against a snapshot taken before the first run: network namespaces,
root-namespace links, fabemu processes (switches, RNICs, Mininet shells) and run records
left (all must be 0). A SIGINTed run must exit by itself, keep ``result.json`` (saying
"interrupted", or complete if the signal came after the run) and ``run.log``; every run
must start (no "interface exists"/lock failure left by the previous one), and an unkilled
run before the first kill and after the last must complete. Kill moments are uniform from
0.3 s to 1.1 x the first run's wall time: start-up, bring-up, traffic, teardown, after.

Needs root and Mininet; on a shared machine run it under the helper lock::

    flock /tmp/fabemu-helpers-net.lock python benchmarks/kill_runs.py [--runs 100] [--seed 1]

Prints the counts; exit 1 if anything was left or a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from emulator.runtime import runstate

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("emulator switch", "emulator.traffic.rnic_process", "mnexec")
SCENARIO = """name: kill_runs
topology: {root}/topologies/two_rack_2spine.yaml
switch: {{program: {root}/p4/roce_fabric.p4, lb: eecmp}}
workload: {{kind: fat_flows, pairs: [[h0, h2], [h1, h3]], size_bytes: 2097152, num_qps: 4}}
duration_ms: 6000
"""


def _netns(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None


def _cmdline(pid: str) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def snapshot() -> dict[str, set[object]]:
    """Network namespaces (held by processes or named), root links, fabemu-like processes."""
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    named = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    procs = {
        (p, runstate.proc_start_time(int(p)))
        for p in pids
        if any(m in _cmdline(p) for m in MARKERS)
    }
    return {
        "namespaces": {_netns(p) for p in pids} | named,
        "links": set(os.listdir("/sys/class/net")),
        "processes": procs,  # type: ignore[dict-item]
        "records": {d for d in _records()},
    }


def _records() -> list[str]:
    root = runstate.STATE_ROOT
    return [d.name for d in root.iterdir() if d.is_dir()] if root.is_dir() else []


def leftovers(base: dict[str, set[object]]) -> dict[str, set[object]]:
    """What exists now and did not before the first run."""
    now = snapshot()
    out = {k: now[k] - base[k] for k in now}
    out["namespaces"].discard(None)
    return out


def fabemu(*args: str) -> list[str]:
    return [sys.executable, "-m", "emulator", *args]


def check_sigint(out: Path, code: int | None) -> str:
    """Classify a SIGINTed run by what it kept."""
    if not out.exists():
        return "SIGINT before the results dir existed"
    try:
        meta = json.loads((out / "result.json").read_text())["meta"]
    except (OSError, ValueError, KeyError):
        return "FAIL: SIGINT run without result.json"
    if not (out / "run.log").exists():
        return "FAIL: SIGINT run without run.log"
    reason = meta.get("incomplete_reason") or ""
    if reason.startswith("interrupted"):
        return f"SIGINT: result.json says interrupted (exit {code})"
    if meta.get("complete"):
        return "SIGINT after the run completed"
    return f"FAIL: SIGINT result.json says {reason[:60]!r}"


def one_run(i: int, work: Path, sig: signal.Signals, delay: float) -> tuple[str, float]:
    """Start run ``i``, signal it after ``delay`` s; how it ended and its exit time after the signal."""
    out = work / f"run-{i}"
    p = subprocess.Popen(
        fabemu("run", str(work / "kill.yaml"), "--runtime", "mininet", "--out", str(out)),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, cwd=work,
    )  # fmt: skip
    try:
        code = p.wait(timeout=delay)
        err = p.stderr.read().decode(errors="replace") if p.stderr else ""
        if code == 2:
            return f"FAIL: did not start: {err.strip()[-160:]}", 0.0
        return f"finished before the {sig.name} (exit {code})", 0.0
    except subprocess.TimeoutExpired:
        pass
    t0 = time.monotonic()
    if sig == signal.SIGINT:
        os.killpg(p.pid, signal.SIGINT)
    else:
        os.kill(p.pid, signal.SIGKILL)
    try:
        code = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return f"FAIL: {sig.name} did not end the run within 60 s", 60.0
    finally:
        if p.stderr:
            p.stderr.close()
    took = time.monotonic() - t0
    if sig == signal.SIGKILL:
        return "SIGKILL", took
    return check_sigint(out, code), took


def unkilled_run(work: Path, name: str) -> tuple[str, float]:
    """A run left alone: how it ended, and its wall time (s)."""
    out, t0 = work / name, time.monotonic()
    code = subprocess.run(
        fabemu("run", str(work / "kill.yaml"), "--runtime", "mininet", "--out", str(out)),
        capture_output=True, timeout=300, cwd=work, check=False,
    ).returncode  # fmt: skip
    took = time.monotonic() - t0
    try:
        complete = json.loads((out / "result.json").read_text())["meta"]["complete"]
    except (OSError, ValueError, KeyError):
        complete = False
    return f"exit {code}, complete {complete}", took


def main(argv: list[str] | None = None) -> int:
    """Run, kill, clean, count; print the totals."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--max-delay", type=float, help="latest kill, s after start (default: 1.1 x a whole run)"
    )
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("kill_runs: needs root (Mininet)")
        return 2
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    left: Counter[str] = Counter()
    before: Counter[str] = Counter()  # what the killed runs left for clean to remove
    worst_exit = 0.0
    base = snapshot()
    with tempfile.TemporaryDirectory(prefix="kill-runs-") as tmp:
        work = Path(tmp)
        (work / "kill.yaml").write_text(SCENARIO.format(root=ROOT))
        first, whole = unkilled_run(work, "reference")
        latest = args.max_delay or 1.1 * whole  # from start-up to after the end
        print(f"reference run: {first}, {whole:.1f} s; kills at 0.3..{latest:.1f} s", flush=True)
        for i in range(args.runs):
            sig = rng.choice((signal.SIGKILL, signal.SIGINT))
            delay = rng.uniform(0.3, latest)
            outcome, took = one_run(i, work, sig, delay)
            worst_exit = max(worst_exit, took if sig == signal.SIGINT else 0.0)
            for k, v in leftovers(base).items():
                before[k] += len(v)
            subprocess.run(fabemu("clean"), capture_output=True, timeout=120, check=False)
            time.sleep(0.3)  # namespaces go with their last process
            rest = leftovers(base)
            outcomes[outcome] += 1
            for k, v in rest.items():
                left[k] += len(v)
            print(f"run {i:3d} {sig.name:7s} at {delay:4.1f} s: {outcome}"
                  + "".join(f"; LEFT {k}: {sorted(map(str, v))}" for k, v in rest.items() if v),
                  flush=True)  # fmt: skip
        final = unkilled_run(work, "final")[0]
    print(f"kill_runs: {args.runs} runs (seed {args.seed})")
    for outcome, n in sorted(outcomes.items()):
        print(f"  {outcome:<58} {n}")
    for k in ("namespaces", "links", "processes", "records"):
        print(f"  {k:<11} left before clean (sum) {before[k]:5d}, after clean {left[k]}")
    print(f"  slowest exit after SIGINT     {worst_exit:.1f} s")
    print(f"  first, unkilled run           {first}")
    print(f"  last, unkilled run            {final}")
    bad = sum(left.values()) + sum(n for o, n in outcomes.items() if o.startswith("FAIL"))
    return 1 if bad or "complete True" not in first + final else 0


if __name__ == "__main__":
    raise SystemExit(main())
