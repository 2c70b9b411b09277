"""Frames the RNIC emits dissect in tshark as RoCE (InfiniBand BTH over UDP 4791)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

from emulator.traffic.connection import ConnSpec, connect_pair
from emulator.traffic.rnic import Rnic, RnicConfig

from .netsim import Sim, Wire

TSHARK = shutil.which("tshark")


def _capture(tmp_path: Path) -> Path:
    cfg = RnicConfig(chunk_bytes=2048, mtu=1024)
    a = Rnic("02:00:00:00:00:01", "10.0.0.1", "02:00:00:00:00:02", config=cfg, name="a")
    b = Rnic("02:00:00:00:00:02", "10.0.0.2", "02:00:00:00:00:01", config=cfg, name="b")
    sim = Sim()
    wire = Wire(sim, a, b)
    ca, cb = connect_pair(a, b, ConnSpec(3, a.ip, b.ip, num_qps=2))
    ca.send(4096 + 100, 1, 0)
    cb.recv(4096 + 100, 1, 0)
    sim.kick_all()
    sim.run(10**9)
    assert [c.kind for c in a.completions] == ["send"]
    path = tmp_path / "roce.pcap"
    wrpcap(str(path), [Ether(f) for _, _, f in wire.log])
    return path


@pytest.mark.skipif(TSHARK is None, reason="tshark not on PATH")
def test_tshark_dissects_rnic_frames_as_roce(tmp_path: Path) -> None:
    pcap = _capture(tmp_path)
    out = subprocess.run(
        [TSHARK, "-r", str(pcap), "-V", "-o", "ip.check_checksum:TRUE"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "InfiniBand" in out
    assert "Base Transport Header" in out
    assert "Destination Port: 4791" in out
    for opname in (
        "RDMA WRITE First",
        "RDMA WRITE Last with Immediate",
        "Acknowledge",
        "SEND Only",
    ):
        assert opname in out, opname
    assert "RETH - RDMA Extended Transport Header" in out
    assert "AETH - ACK Extended Transport Header" in out
    assert "Header checksum status: Good" in out
    assert "Bad" not in out
    # CTS on DSCP 48 (CS6), data on DSCP 26 (AF31)
    assert "Differentiated Services Codepoint: Class Selector 6 (48)" in out
    assert "Differentiated Services Codepoint: Assured Forwarding 31 (26)" in out
