"""Measured uplinks: frames captured on leaf uplinks are attributed to their flows."""

from __future__ import annotations

import struct
from dataclasses import replace
from pathlib import Path

from emulator.measure.flowid import FlowId
from emulator.measure.flows import FlowRecord
from emulator.runtime.mininet.capture import count_frames, read_frames, uplink_interfaces
from emulator.runtime.mininet.collect import measured_flow_uplinks
from emulator.topology import load_clos, resolve
from emulator.traffic import opcodes as op
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.roce import encode_transport

TOPOS = Path(__file__).resolve().parents[2] / "topologies"


def _frame(dst: str, dqpn: int, opcode: int, payload: int = 1024) -> bytes:
    fr = RoceV2Framing()
    path = fr.make_path("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", dst, 0xC123, 26, 0)
    return fr.encode(path, encode_transport(opcode, dqpn, 7, bytes(payload)))


def _write_pcap(path: Path, frames: list[bytes], snaplen: int = 64) -> None:
    """A classic pcap with frames truncated to ``snaplen``, as ``tcpdump -s 64`` writes."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1)]
    for i, f in enumerate(frames):
        cut = f[:snaplen]
        out.append(struct.pack("<IIII", 0, i, len(cut), len(f)) + cut)
    path.write_bytes(b"".join(out))


def test_leaf_uplinks_only() -> None:
    topo = resolve(load_clos(TOPOS / "two_rack_4spine.yaml"))
    intfs = uplink_interfaces(topo)
    assert sorted(intfs) == [f"rtsw{r}:{p}" for r in (0, 1) for p in (5, 6, 7, 8)]
    assert intfs["rtsw0:5"] == topo.switch("rtsw0").port(5).intf


def test_data_frames_count_towards_their_flow(tmp_path: Path) -> None:
    frames = [
        _frame("10.0.1.1", 0x123456, op.RC_RDMA_WRITE_MIDDLE),
        _frame("10.0.1.1", 0x123456, op.RC_RDMA_WRITE_MIDDLE),
        _frame("10.0.1.2", 0x000ABC, op.RC_SEND_ONLY, 32),  # a CTS: a SEND, counted
        _frame("10.0.1.1", 0x123456, op.RC_ACK, 0),  # ACKs are not data
    ]
    pcap = tmp_path / "uplink-rtsw0-5.pcap"
    _write_pcap(pcap, frames)
    read = list(read_frames(pcap))
    assert [n for _, n in read] == [len(f) for f in frames]  # wire lengths survive
    assert all(len(d) <= 64 for d, _ in read)
    counts: dict[tuple[str, int], dict[str, int]] = {}
    count_frames("rtsw0:5", read, counts)
    count_frames("rtsw0:6", [(frames[0][:64], len(frames[0]))], counts)
    assert counts == {
        ("10.0.1.1", 0x123456): {"rtsw0:5": 2 * len(frames[0]), "rtsw0:6": len(frames[0])},
        ("10.0.1.2", 0x000ABC): {"rtsw0:5": len(frames[2])},
    }
    flow = FlowRecord(src="10.0.0.1", dst="10.0.1.1", flow_id=FlowId(0x654321, 0x123456),
                      bytes=1, start_ns=0, end_ns=1)  # fmt: skip
    unseen = replace(flow, dst="10.0.1.3")
    out, notes = measured_flow_uplinks([flow, unseen], counts)
    assert out[0].uplinks == ["rtsw0:5", "rtsw0:6"] and out[0].uplinks_source == "measured"
    assert out[1].uplinks == [] and "1/2 flows seen" in notes[0]
