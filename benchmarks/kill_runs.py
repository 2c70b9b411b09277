"""Kill Mininet runs at random moments; after each, ``fabemu clean`` must leave nothing behind.

Each of ``--runs`` runs of a small scenario (``fabemu run --runtime mininet``, 2 racks x 2
GPUs, 2 spines) is killed at a seeded random moment, with SIGKILL (the fabemu process
alone: a crash) or SIGINT (its whole process group: a Ctrl-C), then ``fabemu clean`` runs.
Counted before and after each clean: what the run owned (noted just before the signal: the
processes in its records and those naming the state directory, and their network
namespaces) still there, root-namespace links with fabemu names and run records not there
before the first run (all must be 0 after clean). A SIGINTed run must exit by itself, keep ``result.json`` (saying
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
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from emulator.runtime import runstate
from emulator.runtime.links import is_fabemu_link

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("emulator switch", "emulator.traffic.rnic_process", "mnexec")
RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}")
SCENARIO = """name: kill_runs
topology: {root}/topologies/two_rack_2spine.yaml
switch: {{program: {root}/p4/roce_fabric.p4, lb: eecmp}}
workload: {{kind: fat_flows, pairs: [[h0, h2], [h1, h3]], size_bytes: 2097152, num_qps: 4}}
duration_ms: 15000
"""


def _netns(pid: int | str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None


def _cmdline(pid: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


def _pids() -> list[str]:
    return [p for p in os.listdir("/proc") if p.isdigit()]


def _records() -> set[str]:
    """Run records (named like fabemu run ids) in the state directory."""
    root = runstate.STATE_ROOT
    names = os.listdir(root) if root.is_dir() else []
    return {n for n in names if RUN_ID.fullmatch(n)}


@dataclass
class Owned:
    """What one run owns, gathered while it is alive (just before the signal).

    Only what can be traced to the run counts, so other users of the machine (other test
    sessions with their own namespaces and switch processes) are not blamed on it: the
    processes in its run records (with start times), processes whose command line names the
    state directory (its switches and RNICs), and the network namespaces of those processes.
    """

    procs: set[tuple[int, int | None]] = field(default_factory=set)
    namespaces: set[int] = field(default_factory=set)

    def gather(self) -> None:
        root = runstate.STATE_ROOT
        for name in _records():
            try:
                pids = json.loads((root / name / "state.json").read_text())["pids"]
            except (OSError, ValueError, KeyError):
                continue
            self.procs |= {(p["pid"], p.get("start")) for p in pids}
        for p in _pids():
            if str(root) in _cmdline(p) and any(m in _cmdline(p) for m in MARKERS):
                self.procs.add((int(p), runstate.proc_start_time(int(p))))
        init_ns = _netns(os.getpid())  # the root namespace, where the switches run
        self.namespaces |= {n for pid, _ in self.procs if (n := _netns(pid)) not in (None, init_ns)}


def leftovers(owned: Owned, base_links: set[str], base_records: set[str]) -> dict[str, set[object]]:
    """What of the run still exists: processes, namespaces, fabemu links, records."""
    pids = _pids()
    alive = {(pid, st) for pid, st in owned.procs if runstate.same_process(pid, st)}
    in_ns = {(int(p), None) for p in pids if _netns(p) in owned.namespaces}
    links = set(os.listdir("/sys/class/net")) - base_links
    return {
        "namespaces": {n for p in pids if (n := _netns(p)) in owned.namespaces},
        "links": {n for n in links if is_fabemu_link(n)},
        "processes": alive | in_ns,
        "records": _records() - base_records,  # type: ignore[dict-item]
    }


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


def one_run(
    i: int, work: Path, sig: signal.Signals, delay: float, owned: Owned
) -> tuple[str, float]:
    """Start run ``i``, signal it after ``delay`` s (noting what it owns just before); how it
    ended and how long it took to exit after the signal."""
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
    owned.gather()
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
        meta = json.loads((out / "result.json").read_text())["meta"]
    except (OSError, ValueError, KeyError):
        meta = {"complete": False, "incomplete_reason": "no result.json"}
    why = "" if meta["complete"] else f" ({meta.get('incomplete_reason')})"
    return f"exit {code}, complete {meta['complete']}{why}", took


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
    # a SIGINT ignored here (a background job of a non-interactive shell) would be ignored by
    # every run too (SIG_IGN survives exec): install a handler, so runs get the default
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    left: Counter[str] = Counter()
    before: Counter[str] = Counter()  # what the killed runs left for clean to remove
    worst_exit = 0.0
    base_links = set(os.listdir("/sys/class/net"))
    base_records = _records()
    with tempfile.TemporaryDirectory(prefix="kill-runs-") as tmp:
        work = Path(tmp)
        (work / "kill.yaml").write_text(SCENARIO.format(root=ROOT))
        first, whole = unkilled_run(work, "reference")
        latest = args.max_delay or 1.1 * whole  # from start-up to after the end
        print(f"reference run: {first}, {whole:.1f} s; kills at 0.3..{latest:.1f} s", flush=True)
        for i in range(args.runs):
            sig = rng.choice((signal.SIGKILL, signal.SIGINT))
            delay = rng.uniform(0.3, latest)
            owned = Owned()
            outcome, took = one_run(i, work, sig, delay, owned)
            worst_exit = max(worst_exit, took if sig == signal.SIGINT else 0.0)
            for k, v in leftovers(owned, base_links, base_records).items():
                before[k] += len(v)
            subprocess.run(fabemu("clean"), capture_output=True, timeout=120, check=False)
            time.sleep(0.3)  # namespaces go with their last process
            rest = leftovers(owned, base_links, base_records)
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
