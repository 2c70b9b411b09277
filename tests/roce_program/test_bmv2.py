"""The same program on the reference tools: real p4c-bm2-ss and simple_switch (bmv2 marker).

simple_switch runs with ``--use-files``: port N reads ``pN_in.pcap`` and writes
``pN_out.pcap`` after a start-up delay, during which simple_switch_CLI programs it.
"""

from __future__ import annotations

import json
import shutil
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest

from emulator.control import FabricConfig, FabricController, PfcConfig, names
from emulator.control.render import command_lines
from emulator.target.pcap import PcapWriter
from emulator.topology import load_clos, resolve
from emulator.traffic import qos

from .roce_frames import PROGRAM, Flow, incast_topology, lb_hash, parse_pfc, roce_frame

pytestmark = pytest.mark.bmv2

START_DELAY_S = 6  # simple_switch waits this long before reading the input pcaps


@pytest.fixture(scope="module")
def bmv2_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """roce_fabric.p4 compiled by the real p4c-bm2-ss (with P4Runtime info, as FACTS require)."""
    out = tmp_path_factory.mktemp("p4c")
    result = subprocess.run(
        [
            "p4c-bm2-ss",
            "--std",
            "p4-16",
            "-o",
            str(out / "roce_fabric.json"),
            "--p4runtime-files",
            str(out / "roce_fabric.p4info.txtpb"),
            str(PROGRAM),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out / "roce_fabric.json"


def test_p4c_names_match_the_control_plane(bmv2_json: Path) -> None:
    doc = json.loads(bmv2_json.read_text())
    tables = {t["name"] for p in doc["pipelines"] for t in p["tables"]}
    for table in (
        names.SWITCH_CONFIG,
        names.DSCP_TO_TC,
        names.TC_TO_QUEUE,
        names.PATH_PIN,
        names.IPV4_ROUTE,
        names.PORT_MAC,
        names.ECN_CONFIG,
        names.PFC_THRESHOLDS,
    ):
        assert table in tables
    (selector,) = [
        a
        for p in doc["pipelines"]
        for a in p["action_profiles"]
        if a["name"] == names.ECMP_SELECTOR
    ]
    assert selector["selector"]["algo"] == "identity"
    registers = {r["name"] for r in doc["register_arrays"]}
    assert {
        names.PFC_RX_QUANTA,
        names.PFC_RX_SEQ,
        names.PFC_PAUSED,
        names.QUEUE_OCCUPANCY,
    } <= registers
    counters = {c["name"] for c in doc["counter_arrays"]}
    assert {
        names.RX_COUNTER,
        names.TX_COUNTER,
        names.PFC_TX_COUNTER,
        names.DROP_COUNTER,
    } <= counters


def _read_frames(path: Path) -> list[bytes]:
    """Frames of a pcap that may still be being written (partial tail ignored)."""
    data = path.read_bytes() if path.exists() else b""
    if len(data) < 24:
        return []
    order = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    frames, off = [], 24
    while off + 16 <= len(data):
        _sec, _frac, incl, _orig = struct.unpack_from(f"{order}IIII", data, off)
        if off + 16 + incl > len(data):
            break
        frames.append(data[off + 16 : off + 16 + incl])
        off += 16 + incl
    return frames


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_simple_switch(
    json_path: Path,
    workdir: Path,
    ports: list[int],
    frames: dict[int, list[bytes]],
    commands: list[str],
    expect: int,
) -> dict[int, list[bytes]]:
    """Start simple_switch on pcap files, program it, wait for ``expect`` frames out."""
    for p in ports:
        with PcapWriter(workdir / f"p{p}_in.pcap") as w:
            for frame in frames.get(p, []):
                w.write(frame)
    thrift = _free_port()
    argv = ["simple_switch", "--use-files", str(START_DELAY_S), "--thrift-port", str(thrift)]
    for p in ports:
        argv += ["-i", f"{p}@{workdir / f'p{p}'}"]
    argv += [str(json_path), "--", "--priority-queues", "8"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_DELAY_S
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", thrift), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        cli = subprocess.run(
            ["simple_switch_CLI", "--thrift-port", str(thrift)],
            input="\n".join(commands) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "Error" not in cli.stdout and "Invalid" not in cli.stdout, cli.stdout[-2000:]
        out: dict[int, list[bytes]] = {}
        for _ in range(300):  # up to 30 s after programming
            out = {}
            for p in ports:
                out[p] = _read_frames(workdir / f"p{p}_out.pcap")
            if sum(len(v) for v in out.values()) >= expect:
                break
            time.sleep(0.1)
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.parametrize(
    ("mode", "algo"), [("ecmp", "crc16"), ("ecmp", "crc32"), ("eecmp", "crc16"), ("pin", "crc16")]
)
def test_uplink_choice_on_simple_switch(
    bmv2_json: Path, tmp_path: Path, mode: str, algo: str
) -> None:
    if not shutil.which("simple_switch_CLI"):
        pytest.skip("simple_switch_CLI not on PATH")
    topo = resolve(load_clos("two_rack_4spine"))
    ctl = FabricController(topo, FabricConfig(lb_mode=mode, hash_algos={"leaf": algo}))
    members = ctl.selection("rtsw0", "10.0.1.0/24")
    h0 = topo.host("h0")
    flows = [
        Flow(h0.ip, f"10.0.1.{1 + i % 4}", 0xC000 + ((1021 * i) & 0x3FFF), 0x100 + 13 * i)
        for i in range(16)
    ]
    frames = [roce_frame(f, h0.gateway_mac, h0.mac, psn=i) for i, f in enumerate(flows)]
    ports = [p.number for p in topo.switch("rtsw0").ports]
    out = _run_simple_switch(
        bmv2_json,
        tmp_path,
        ports,
        {h0.leaf_port: frames},
        command_lines(ctl.command_file("rtsw0")),
        expect=len(flows),
    )
    got = {}
    for port, sent in out.items():
        for frame in sent:
            psn = int.from_bytes(frame[14 + 20 + 8 + 9 : 14 + 20 + 8 + 12], "big")
            got[psn] = port
    for i, flow in enumerate(flows):
        if mode == "pin":
            expected = members[(int(flow.dst.rsplit(".", 1)[1]) - 1) % 4]
        else:
            expected = members[lb_hash(flow, mode, algo) % 4]
        assert got.get(i) == expected.port, f"{mode}/{algo} {flow}"


def test_pfc_and_ecn_generation_on_simple_switch(bmv2_json: Path, tmp_path: Path) -> None:
    """8:1 incast replayed from pcaps (senders cannot pause): XOFF frames and CE marks appear."""
    if not shutil.which("simple_switch_CLI"):
        pytest.skip("simple_switch_CLI not on PATH")
    topo = resolve(incast_topology())
    cfg = FabricConfig(
        lb_mode="ecmp",
        pfc=PfcConfig(xoff=12, xon=4, quanta=1000),
        ecn_thresholds=((qos.TC_BULK, 5),),
        queue_depth=64,
    )
    ctl = FabricController(topo, cfg)
    sink = topo.host("h0")
    frames = {}
    for i in range(1, 9):
        h = topo.host(f"h{i}")
        flow = Flow(h.ip, sink.ip, 0xC000 + i, 0x100 + i)
        frames[h.leaf_port] = [
            roce_frame(flow, h.gateway_mac, h.mac, ecn=qos.ECN_ECT0, psn=n) for n in range(8)
        ]
    commands = [*command_lines(ctl.command_file("rtsw0")), f"set_queue_rate 100 {sink.leaf_port}"]
    ports = [p.number for p in topo.switch("rtsw0").ports]
    out = _run_simple_switch(bmv2_json, tmp_path, ports, frames, commands, expect=64)
    pauses = [parse_pfc(f) for p in frames for f in out[p]]
    assert pauses and all(pfc is not None for pfc in pauses)
    assert any(cev == 1 << qos.TC_BULK and times[qos.TC_BULK] == 1000 for cev, times in pauses)
    ecn = [f[15] & 3 for f in out[sink.leaf_port]]
    assert qos.ECN_CE in ecn and qos.ECN_ECT0 in ecn
