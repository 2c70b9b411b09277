"""A scenario run with ``pcap: true`` writes per-port captures that tshark reads as RoCE."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from emulator.scenario.runner import run_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "fat_flow_collision.yaml"


def test_pcaps_written_and_dissected_as_roce(tmp_path: Path) -> None:
    overrides = {"pcap": True, "workload.size_bytes": 65_536}
    outcome = run_scenario(SCENARIO, overrides, runtime="virtual", out=tmp_path, report=False)
    assert outcome.passed
    pcaps = sorted((tmp_path / "pcaps").glob("rtsw0-eth1_*.pcap"))
    assert [p.name for p in pcaps] == ["rtsw0-eth1_in.pcap", "rtsw0-eth1_out.pcap"]
    assert pcaps[0].stat().st_size > 24  # more than the pcap file header
    assert (tmp_path / "logs").is_dir()
    if not shutil.which("tshark"):
        pytest.skip("tshark not installed: pcaps written but not dissected")
    res = subprocess.run(
        ["tshark", "-r", str(pcaps[0]), "-c", "5", "-T", "fields", "-e", "frame.protocols"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    protocols = res.stdout.split()
    assert protocols and all(p.startswith("eth:ethertype:ip:udp:infiniband") for p in protocols)
