"""Child process of test_native.py: run every golden case, write its normalised result.json.

    python tests/native/run_cases.py OUT_DIR

Run twice, with and without ``FABEMU_NATIVE=0``, so that each run imports the data path
its own way (compiled modules are chosen once per process, at import).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from emulator import native
from emulator.scenario.runner import run_scenario
from tests.scenario.test_golden_results import CASES, _normalised


def main(out: Path) -> int:
    """Run the cases into ``out``/<case>/, write ``out``/<case>.json; print the status."""
    for name, path, overrides in CASES:
        outcome = run_scenario(
            path, {"duration_ms": 150, **overrides}, out=out / name, report=False
        )
        if outcome.error is not None:
            print(f"{name}: {outcome.error}", file=sys.stderr)
            return 1
        (out / f"{name}.json").write_text(_normalised(out / name))
    print(json.dumps({"state": native.status().state, "cases": len(CASES)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
