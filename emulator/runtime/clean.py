"""``fabemu clean``: remove what killed Mininet runs left behind (like ``mn -c``, but narrower).

Only fabemu's own leftovers are touched: the runs recorded under ``/run/fabemu`` (or
``$FABEMU_STATE_DIR``) whose owner process is gone (see :mod:`emulator.runtime.runstate`).
Their processes are killed by PID (after checking each PID still is the recorded process,
by its start time) and their root-namespace interfaces with fabemu names deleted; the host
namespaces go away with their processes. Records another user could have written are
refused and listed, never acted on.
"""

from __future__ import annotations

import argparse

from emulator.runtime import runstate

HELP = "Remove leftovers (processes, interfaces) of fabemu Mininet runs that were killed."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dry-run`` lists instead of removing."""
    parser.add_argument("--dry-run", action="store_true", help="only list what would go")


def run(args: argparse.Namespace) -> int:
    """Clean every stale run; print one line per removed thing."""
    runs, refused = runstate.scan_runs()
    for line in refused:
        print(f"refused {line}")
    if not runs:
        print(f"fabemu clean: nothing to clean in {runstate.STATE_ROOT}")
        return 0
    for st in runs:
        if args.dry_run:
            what = [str(p.get("what")) for p in st.pids] + st.links
            print(f"would clean {st.path.parent}: {', '.join(what) or 'empty record'}")
            continue
        for line in st.cleanup():
            print(line)
        print(f"cleaned {st.path.parent}")
    return 0
