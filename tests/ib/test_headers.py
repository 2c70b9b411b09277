"""IB headers: P4 declarations = scapy layers; framing round trip; tshark dissects the shim."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

from emulator.ib.framing import IbEndpoint, IbFraming, vcrc
from emulator.ib.headers import BTH, LRH
from emulator.traffic.headers import scapy_layer_fields
from emulator.traffic.roce import encode_transport
from tests.traffic.test_p4_headers import SCAPY_TO_P4, p4_headers, read_with_includes

ROOT = Path(__file__).resolve().parents[2]
P4_FILE = ROOT / "p4" / "ib_fabric.p4"
LUA = ROOT / "scripts" / "wireshark" / "ib_shim.lua"

A, B = "10.0.0.1", "10.0.1.1"
MAC_A, MAC_B = "02:a0:00:00:00:00", "02:a0:00:00:00:02"


def _framing() -> IbFraming:
    return IbFraming({A: IbEndpoint(MAC_A, (2, 3)), B: IbEndpoint(MAC_B, (8, 9))}, data_vls=8)


@pytest.mark.parametrize(("p4_name", "layer"), [("lrh_t", LRH), ("bth_t", BTH)])
def test_p4_header_matches_scapy_layer(p4_name: str, layer: type) -> None:
    headers = p4_headers(read_with_includes(P4_FILE))
    expected = [(SCAPY_TO_P4.get(n, n), w) for n, w in scapy_layer_fields(layer)]
    assert headers[p4_name] == expected


@given(
    payload=st.binary(min_size=0, max_size=300),
    sport=st.integers(0, 0xFFFF),
    dscp=st.integers(0, 63),
    psn=st.integers(0, (1 << 24) - 1),
)
def test_encode_decode_round_trip(payload: bytes, sport: int, dscp: int, psn: int) -> None:
    fr = _framing()
    path = fr.make_path(MAC_A, "ignored", A, B, sport, dscp, 0)
    transport = encode_transport(4, 0x77, psn, payload)
    frame = fr.encode(path, transport)
    assert len(frame) == len(transport) + fr.overhead_bytes
    pkt = Ether(frame)
    lrh = pkt[LRH]
    assert (lrh.dlid, lrh.slid) == ((8, 9)[sport % 2], (2, 3)[sport % 2])
    assert lrh.sl == lrh.vl == dscp >> 3
    assert lrh.pktlen * 4 == len(frame) - 14 - 2  # LRH..ICRC in words
    assert pkt[BTH].psn == psn and pkt[BTH].dqpn == 0x77
    d = fr.decode(frame, verify_icrc=True)
    assert d is not None and d.icrc_ok and d.transport == transport
    assert vcrc(frame[14:-2]) == int.from_bytes(frame[-2:], "big")
    assert (d.src, d.dst) == (bytes([10, 0, 0, 1]), bytes([10, 0, 1, 1]))
    bad = bytearray(frame)
    bad[30] ^= 1  # a BTH bit: the ICRC must catch it
    d2 = fr.decode(bytes(bad), verify_icrc=True)
    assert d2 is not None and not d2.icrc_ok


def test_vcrc_detects_single_bit_flips() -> None:
    data = bytes(range(40))
    ref = vcrc(data)
    for i in range(len(data) * 8):
        flipped = bytearray(data)
        flipped[i // 8] ^= 1 << (i % 8)
        assert vcrc(bytes(flipped)) != ref


def test_decode_ignores_other_frames() -> None:
    fr = _framing()
    assert fr.decode(b"\x00" * 64) is None


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_dissects_the_shim(tmp_path: Path) -> None:
    fr = _framing()
    path = fr.make_path(MAC_A, "", A, B, 1, 26, 0)
    frame = fr.encode(path, encode_transport(10, 0x12, 5, b"A" * 64, reth=(0x1000, 7, 64)))
    pcap = tmp_path / "ib.pcap"
    wrpcap(str(pcap), [Ether(frame)])
    fields = ["infiniband.lrh.dlid", "infiniband.lrh.slid", "infiniband.lrh.sl",
              "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.reth.dmalen"]  # fmt: skip
    cmd = ["tshark", "-X", f"lua_script:{LUA}", "-r", str(pcap), "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["9", "3", "3", "0x000012", "5", "64"]


def test_flow_key_of_data_frames_only() -> None:
    fr = _framing()
    path = fr.make_path(MAC_A, "", A, B, 0, 0, 0)
    data = fr.encode(path, encode_transport(10, 0x123456, 1, b"x" * 8, reth=(0, 0, 8)))
    ack = fr.encode(path, encode_transport(0x11, 0x123456, 1, aeth=(0x1F, 1)))
    assert fr.flow_key(data) == (bytes([10, 0, 1, 1]), 0x123456)
    assert fr.flow_key(ack) is None
