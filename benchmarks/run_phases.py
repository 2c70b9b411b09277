"""Where the CPU of one ``fabemu run`` of the flagship goes, phase by phase (one process).

Phases, in the order ``fabemu run`` meets them: importing the run command's modules, the
run itself (load, compile-cache hit, plan, deploy, simulate, ``result.json``), importing
the report's modules (matplotlib, jinja2), drawing the report (plots, HTML) and the
interpreter's exit (the child's CPU as its parent sees it, less what it had used); then
the CPU the garbage collector took before the exit (``gc.callbacks``). Each ``--repeat``
is a new process (imports are per process); medians are printed.

    .venv/bin/python benchmarks/run_phases.py [--repeat 3] [--set KEY=VALUE ...] [--tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision.yaml"

CHILD = """
import gc, json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
collecting = [0.0, 0.0]  # CPU s in the garbage collector, start of the current pass
def on_gc(phase, _info):
    if phase == "start":
        collecting[1] = time.process_time()
    else:
        collecting[0] += time.process_time() - collecting[1]
gc.callbacks.append(on_gc)
marks = [("start-up", cpu())]
import emulator.cli.cmd_run
from emulator.scenario.load import parse_set
try:
    from emulator.cli.main import tune_gc
except ImportError:  # an older tree (--tree)
    tune_gc = None
if tune_gc:
    tune_gc()  # as fabemu's main() does after importing the command
marks.append(("import run command", cpu()))
from emulator.scenario.runner import run_scenario
outcome = run_scenario(sys.argv[1], parse_set(sys.argv[3:]), out=sys.argv[2], report=False)
marks.append(("run + result.json", cpu()))
from emulator.scenario import report
marks.append(("import report (matplotlib, jinja2)", cpu()))
name = outcome.result.meta.scenario
report.write_report(outcome.outdir, [(name, outcome.result)], {name: outcome.verdicts}, title=name)
marks.append(("draw report", cpu()))
phases = {"start-up": marks[0][1]} | {b: y - x for (_, x), (b, y) in zip(marks, marks[1:])}
print(json.dumps(phases | {"gc": collecting[0], "cpu": cpu()}), flush=True)
if tune_gc:
    gc.freeze()  # as fabemu's main() does when the command returns
"""


def one(tmp: str, i: int, sets: list[str], tree: Path = ROOT) -> dict[str, float]:
    """The phases of one new process running ``tree``'s code."""
    env = {**os.environ, "FABEMU_STATE_DIR": f"{tmp}/s", "FABEMU_CACHE_DIR": f"{tmp}/c"}
    env["PYTHONPATH"] = str(tree)
    flagship = tree / FLAGSHIP.relative_to(ROOT)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(flagship), f"{tmp}/out{i}", *sets],
        env=env,
        cwd=tmp,
        check=True,
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    whole = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    phases = dict(json.loads(out.stdout.strip().splitlines()[-1]))
    phases["interpreter exit"] = whole - phases.pop("cpu")
    return phases


def main() -> int:
    """Run ``--repeat`` processes (after one that fills the compile cache); print medians."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--tree", type=Path, default=ROOT, help="another checkout's code")
    args = ap.parse_args()
    tree = args.tree.resolve()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "emulator")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        one(tmp, -1, args.set, tree)  # fills the compile cache, as the user's first run does
        runs = [one(tmp, i, args.set, tree) for i in range(args.repeat)]
    total = 0.0
    for phase in [p for p in runs[0] if p != "gc"]:
        med = statistics.median(r[phase] for r in runs)
        total += med
        print(f"{phase:<38}{med:8.3f} CPU s")
    print(f"{'total (sum of medians)':<38}{total:8.3f} CPU s")
    gc_s = statistics.median(r["gc"] for r in runs)
    print(f"{'(of which garbage collection)':<38}{gc_s:8.3f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
