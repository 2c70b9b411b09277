"""``fabemu clean``: remove what killed Mininet runs left behind (like ``mn -c``, but narrower).

Only fabemu's own leftovers are touched: the runs recorded under ``/tmp/fabemu-runs`` whose
owner process is gone (see :mod:`emulator.runtime.runstate`). Their processes are killed
by PID (after checking each PID still is the recorded process) and their root-namespace
interfaces deleted; the host namespaces go away with their processes.
"""

from __future__ import annotations

import argparse

from emulator.runtime.runstate import STATE_ROOT, stale_runs

HELP = "Remove leftovers (processes, interfaces) of fabemu Mininet runs that were killed."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dry-run`` lists instead of removing."""
    parser.add_argument("--dry-run", action="store_true", help="only list what would go")


def run(args: argparse.Namespace) -> int:
    """Clean every stale run; print one line per removed thing."""
    runs = stale_runs()
    if not runs:
        print(f"fabemu clean: nothing to clean in {STATE_ROOT}")
        return 0
    for st in runs:
        if args.dry_run:
            what = [p["what"] for p in st.pids] + st.links
            print(f"would clean {st.path.parent}: {', '.join(what) or 'empty record'}")
            continue
        for line in st.cleanup():
            print(line)
        print(f"cleaned {st.path.parent}")
    return 0
