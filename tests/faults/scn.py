"""Small fault scenarios written to a temporary folder and run through the runner."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from emulator.scenario.runner import RunOutcome, run_scenario

ROOT = Path(__file__).resolve().parents[2]
#: two racks x 2 hosts, 2 spines (10 Mb/s): h0,h1 on rtsw0; h2,h3 on rtsw1
BASE: dict[str, Any] = {
    "name": "fault_test",
    "topology": str(ROOT / "topologies/two_rack_2spine.yaml"),
    #: the live controller repairs routes 20 ms after a link change
    "switch": {
        "program": str(ROOT / "p4/roce_fabric.p4"),
        "control": {"detection_delay_us": 20000},
    },
    "workload": {
        "kind": "fat_flows",
        "pairs": [["h0", "h2"], ["h1", "h3"]],
        "size_bytes": 131072,
    },
    "rnic": {"chunk_bytes": 16384, "rto_ms": 30},
    "duration_ms": 3000,
    "seed": 3,  # h0->h2 leaves rtsw0 via ctsw1 (port 4), h1->h3 via ctsw0 (port 3)
}


def write(tmp: Path, **changes: Any) -> Path:
    """A scenario file: BASE with top-level keys replaced."""
    data = {**BASE, **changes}
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "scenario.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(tmp: Path, **changes: Any) -> RunOutcome:
    """Write and run (virtual time, no report); the outcome."""
    return run_scenario(write(tmp, **changes), out=tmp / "out", report=False)


def children() -> set[int]:
    """PIDs of this process's children (from /proc: no psutil)."""
    me = str(os.getpid())
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    out.add(int(d.name))
            except (OSError, IndexError):
                continue
    return out
