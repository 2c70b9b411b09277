"""Where the CPU of one ``fabemu run`` of the flagship goes, phase by phase (one process).

Phases, in the order ``fabemu run`` meets them: importing the run command's modules, the
run itself (load, compile-cache hit, plan, deploy, simulate, ``result.json``), importing
the report's modules (matplotlib, jinja2) and drawing the report (plots, HTML). Each
``--repeat`` is a new process (imports are per process); medians are printed.

    .venv/bin/python benchmarks/run_phases.py [--repeat 3] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision.yaml"

CHILD = """
import json, resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
marks = [("start-up", cpu())]
import emulator.cli.cmd_run
from emulator.cli.main import tune_gc
from emulator.scenario.load import parse_set
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
print(json.dumps({"start-up": marks[0][1]} | {b: y - x for (_, x), (b, y) in zip(marks, marks[1:])}))
"""


def one(tmp: str, i: int, sets: list[str]) -> dict[str, float]:
    """The phases of one new process."""
    env = {**os.environ, "FABEMU_STATE_DIR": f"{tmp}/s", "FABEMU_CACHE_DIR": f"{tmp}/c"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(FLAGSHIP), f"{tmp}/out{i}", *sets],
        env=env,
        cwd=tmp,
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    """Run ``--repeat`` processes (after one that fills the compile cache); print medians."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "emulator")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        one(tmp, -1, args.set)  # fills the compile cache, as the user's first run does
        runs = [one(tmp, i, args.set) for i in range(args.repeat)]
    total = 0.0
    for phase in runs[0]:
        med = statistics.median(r[phase] for r in runs)
        total += med
        print(f"{phase:<38}{med:8.3f} CPU s")
    print(f"{'total (sum of medians)':<38}{total:8.3f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
