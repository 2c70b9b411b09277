"""Differential tests: the same JSON and inputs on real BMv2 simple_switch and on our target
must give identical output packets, counters and registers (needs simple_switch, p4c-bm2-ss).

Real BMv2 runs in ``--use-files`` mode: each port reads ``pcapN_in.pcap`` and writes
``pcapN_out.pcap``; the CLI configures it during the start-up wait, before packets flow.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from emulator.target.stf import stf_to_cli
from emulator.target.switch import Switch

from .fakes import ipv4_udp

pytestmark = pytest.mark.bmv2

HERE = Path(__file__).parent
CORPUS = HERE.parents[1] / "p4" / "corpus"
THRIFT_PORT = 9190
START_WAIT_S = 4  # --use-files wait: time for the CLI to configure the switch


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RealSwitch:
    """simple_switch in --use-files mode plus simple_switch_CLI; killed by PID on exit."""

    def __init__(
        self, json_path: Path, workdir: Path, inputs: list[tuple[int, bytes]], ports: list[int]
    ) -> None:
        from scapy.utils import RawPcapWriter

        self.dir, self.ports = workdir, sorted(set(ports) | {p for p, _ in inputs})
        for port in self.ports:
            w = RawPcapWriter(str(workdir / f"pcap{port}_in.pcap"), linktype=1, sync=True)
            w.write_header(None)
            for in_port, frame in inputs:
                if in_port == port:
                    w.write_packet(frame)
            w.close()
        self.thrift = _free_port()
        argv = [
            "simple_switch",
            "--log-file",
            str(workdir / "switch"),
            "--use-files",
            str(START_WAIT_S),
            "--thrift-port",
            str(self.thrift),
        ]
        for port in self.ports:
            argv += ["-i", f"{port}@pcap{port}"]
        argv.append(str(json_path))
        self.proc = subprocess.Popen(
            argv, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.thrift)) == 0:
                    return
            time.sleep(0.1)
        self.close()
        raise RuntimeError("simple_switch did not start")

    def cli(self, commands: list[str]) -> str:
        res = subprocess.run(
            ["simple_switch_CLI", "--thrift-port", str(self.thrift)],
            input="\n".join(commands) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return res.stdout

    def outputs(self) -> dict[int, list[bytes]]:
        from scapy.utils import RawPcapReader

        out: dict[int, list[bytes]] = {}
        for port in self.ports:
            path = self.dir / f"pcap{port}_out.pcap"
            if path.exists() and path.stat().st_size > 24:
                out[port] = [pkt for pkt, _meta in RawPcapReader(str(path))]
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def ours(doc_or_path, commands: list[str], inputs: list[tuple[int, bytes]]):
    sw = Switch(str(doc_or_path))
    for c in commands:
        sw.cli(c)
    out: dict[int, list[bytes]] = {}
    for port, frame in inputs:
        for eport, data in sw.process(port, frame):
            out.setdefault(eport, []).append(data)
    return sw, out


def compare(
    json_path: Path,
    commands: list[str],
    inputs: list[tuple[int, bytes]],
    ports: list[int],
    reads: list[str],
    tmp_path: Path,
) -> None:
    real = RealSwitch(json_path, tmp_path, inputs, ports)
    try:
        real.cli(commands)
        time.sleep(START_WAIT_S + 2)
        real_reads = real.cli(reads) if reads else ""
    finally:
        real.close()
    sw, mine = ours(json_path, commands, inputs)
    assert mine == real.outputs()
    for line in reads:
        mine_text = sw.cli(line)
        assert mine_text.split("=", 1)[-1].strip() in real_reads, line


def test_l3_ecmp_forty_flows_match_bmv2(tmp_path):
    prog = HERE / "programs" / "l3_ecmp.json"
    commands = [
        f"act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:0{p} {p}" for p in (1, 2, 3, 4)
    ]
    commands += ["act_prof_create_group ecmp_sel"]
    commands += [f"act_prof_add_member_to_group ecmp_sel {m} 0" for m in (2, 0, 3, 1)]
    commands += ["table_indirect_add_with_group ecmp 10.0.0.0/8 => 0"]
    inputs = [
        (0, ipv4_udp(src=0x0B000000 + 7 * i, dst=0x0A000001 + i, sport=1000 + 13 * i))
        for i in range(40)
    ]
    compare(prog, commands, inputs, [0, 1, 2, 3, 4], [], tmp_path)


@pytest.mark.parametrize(
    "name", ["registers", "counters_meters", "table_match_kinds", "multicast", "clone"]
)
@pytest.mark.parametrize("compiler", ["p4c-bm2-ss", "fabemu"])
def test_corpus_programs_match_bmv2(tmp_path, name, compiler):
    """Compile (real p4c or ours), replay the corpus STF on both switches, compare outputs
    and registers."""
    p4 = CORPUS / f"{name}.p4"
    if not p4.exists():
        pytest.skip(f"{p4} not in the corpus")
    json_path = tmp_path / f"{name}.json"
    if compiler == "fabemu":
        from emulator.p4c import compile_file

        json_path.write_text(json.dumps(compile_file(str(p4))))
    else:
        subprocess.run([compiler, "-o", str(json_path), str(p4)], check=True, timeout=300)
    steps = stf_to_cli(str(json_path), p4.with_suffix(".stf"))
    kinds = [k for k, _ in steps]
    if "cli" in kinds[kinds.index("packet") if "packet" in kinds else len(kinds) :]:
        pytest.skip("the STF reconfigures between packets; --use-files sends all packets at once")
    commands = [w for k, w in steps if k == "cli"]
    inputs = [w for k, w in steps if k == "packet"]
    ports = sorted({p for p, _ in inputs} | {0, 1, 2, 3, 4})
    reads = [f"register_read {r}" for r in Switch(str(json_path)).registers]
    compare(json_path, commands, inputs, ports, reads, tmp_path)


def test_v1model_flow_program_matches_bmv2(tmp_path):
    """Clones, multicast, resubmit, recirculate and truncate on both switches."""
    from .test_v1model import flow_program, frame

    json_path = tmp_path / "flow.json"
    json_path.write_text(json.dumps(flow_program()))
    commands = [
        "mirroring_add 5 4", "mirroring_add 6 5", "mc_mgrp_create 7", "mc_node_create 11 1 3",
        "mc_node_create 22 4", "mc_node_associate 7 0", "mc_node_associate 7 1",
        "table_add ti clone_fwd 0x0010 => 2 5", "table_add ti fwd 0x0020 => 3",
        "table_add te e_clone 0x0020 => 6", "table_add ti resub 0x0030 =>",
        "table_add ti fwd 0x0040 => 3", "table_add te e_recirc 0x0040 =>",
        "table_add ti mcast 0x0050 => 7", "table_add ti fwd 0x0070 => 1",
        "table_add te e_trunc 0x0070 =>", "table_add ti drop 0x0001 =>",
    ]  # fmt: skip
    inputs = [(1, frame(e, b"payload-%d" % i)) for i, e in enumerate(
        (0x0010, 0x0020, 0x0030, 0x0040, 0x0050, 0x0070, 0x0001, 0x0002))]  # fmt: skip
    compare(json_path, commands, inputs, [0, 1, 2, 3, 4, 5], [], tmp_path)
