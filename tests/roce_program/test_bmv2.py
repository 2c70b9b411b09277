"""The same program on the reference tools: real p4c-bm2-ss and simple_switch (bmv2 marker).

simple_switch runs with ``--use-files``: port N reads ``pN_in.pcap`` and writes
``pN_out.pcap`` after a start-up delay, during which simple_switch_CLI programs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator import vocab
from emulator.control import FabricConfig, FabricController, PfcConfig, names
from emulator.control.render import command_lines
from emulator.target.reference import ReferenceSwitch
from emulator.topology import load_clos, resolve

from .roce_frames import PROGRAM, Flow, incast_topology, lb_hash, parse_pfc, roce_frame

pytestmark = pytest.mark.bmv2


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


def _run_simple_switch(
    json_path: Path,
    workdir: Path,
    ports: list[int],
    frames: dict[int, list[bytes]],
    commands: list[str],
    expect: int,
) -> dict[int, list[bytes]]:
    """Run simple_switch on pcap files (emulator.target.reference: configured before it
    reads them, outputs complete when the files stop growing); the frames out per port.
    ``expect`` (frames the caller expects) is kept for the callers' readability."""
    packets = [(p, f) for p in ports for f in frames.get(p, [])]
    sw = ReferenceSwitch(json_path, workdir, packets, commands, ports=tuple(ports),
                         target_args=("--priority-queues", "8"))  # fmt: skip
    try:
        sw.start()
        got = sw.finish().outputs
    finally:
        sw.stop()
    return {p: got.get(p, []) for p in ports}


@pytest.mark.parametrize(
    ("mode", "algo"),
    [("ecmp", "crc16"), ("ecmp", "crc32"), ("eecmp", "crc16"), ("pinning", "crc16")],
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
        if mode == "pinning":
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
        ecn_thresholds=((vocab.TC_BULK, 5),),
        queue_depth=64,
    )
    ctl = FabricController(topo, cfg)
    sink = topo.host("h0")
    frames = {}
    for i in range(1, 9):
        h = topo.host(f"h{i}")
        flow = Flow(h.ip, sink.ip, 0xC000 + i, 0x100 + i)
        frames[h.leaf_port] = [
            roce_frame(flow, h.gateway_mac, h.mac, ecn=vocab.ECN_ECT0, psn=n) for n in range(8)
        ]
    commands = [*command_lines(ctl.command_file("rtsw0")), f"set_queue_rate 100 {sink.leaf_port}"]
    ports = [p.number for p in topo.switch("rtsw0").ports]
    out = _run_simple_switch(bmv2_json, tmp_path, ports, frames, commands, expect=64)
    pauses = [parse_pfc(f) for p in frames for f in out[p]]
    assert pauses and all(pfc is not None for pfc in pauses)
    assert any(cev == 1 << vocab.TC_BULK and times[vocab.TC_BULK] == 1000 for cev, times in pauses)
    ecn = [f[15] & 3 for f in out[sink.leaf_port]]
    assert vocab.ECN_CE in ecn and vocab.ECN_ECT0 in ecn
