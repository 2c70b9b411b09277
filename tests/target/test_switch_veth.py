"""``fabemu switch`` on real veths in throwaway namespaces (root): forwarding, clean exit."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.target.netlab import VethLab
from emulator.target.pcap import read_pcap

pytestmark = pytest.mark.root
PROGRAM = Path(__file__).parent / "process_data" / "port_fwd.json"
PY = sys.executable


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(lab: VethLab, port: int, commands: str) -> str:
    """Send commands to the switch's control port (it is in the switch namespace)."""
    argv = [PY, "-m", "emulator.target.control_client", "--thrift-port", str(port), "--strict"]
    res = subprocess.run(
        ["ip", "netns", "exec", lab.switch_ns, *argv],
        input=commands, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout


def _wait_for_port(lab: VethLab, port: int, proc: subprocess.Popen[bytes]) -> None:
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1).close()"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "switch process exited early"
        try:
            lab.run_in(lab.switch_ns, [PY, "-c", probe], timeout=10)
            return
        except subprocess.CalledProcessError:
            time.sleep(0.2)
    raise AssertionError("control port never opened")


FWD_1_TO_2 = "table_add MyIngress.fwd MyIngress.set_port 1 => 2\n"


@contextlib.contextmanager
def _switch(*options: str, pcap_dir: Path | None = None) -> Iterator[tuple[VethLab, int]]:
    """``fabemu switch`` on 2 veth ports forwarding 1 -> 2; yields (lab, control port).

    ``options`` go to the switch after ``--``. On leaving, the switch must exit 0 on SIGTERM
    and the lab must be gone.
    """
    port = _free_port()
    lab = VethLab(pairs=2)
    try:
        s1, s2 = lab.switch_ifs
        argv = [PY, "-m", "emulator", "switch", "-i", f"1@{s1}", "-i", f"2@{s2}",
                "--thrift-port", str(port)]  # fmt: skip
        if pcap_dir is not None:
            argv += ["--pcap", str(pcap_dir)]
        argv.append(str(PROGRAM))
        if options:
            argv += ["--", *options]
        proc = lab.popen(lab.switch_ns, argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_port(lab, port, proc)
        _cli(lab, port, FWD_1_TO_2)
        yield lab, port
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        lab.close()
    assert not lab.exists()


def test_forwarding_through_veth_and_clean_exit(tmp_path: Path) -> None:
    pcap_dir = tmp_path / "pcap"
    with _switch("--priority-queues", "8", pcap_dir=pcap_dir) as (lab, _port):
        s1, s2 = lab.switch_ifs
        h1, h2 = lab.host_ifs
        res = lab.run_in(
            lab.host_ns,
            [PY, "-m", "emulator.target.blast", "--tx", h1, "--rx", h2,
             "--count", "200", "--size", "1024", "--rate", "2000", "--timeout", "20"],
        )  # fmt: skip
        fwd = json.loads(res.stdout)
        assert fwd["sent"] == 200 and fwd["received"] == 200 and fwd["in_order"]
        # no entry for port 2: the default action drops, nothing comes back on h1
        back = json.loads(
            lab.run_in(
                lab.host_ns,
                [PY, "-m", "emulator.target.blast", "--tx", h2, "--rx", h1,
                 "--count", "20", "--rate", "2000", "--timeout", "10"],
            ).stdout
        )  # fmt: skip
        assert back["sent"] == 20 and back["received"] == 0
    inbound = read_pcap(pcap_dir / f"{s1}_in.pcap")
    outbound = read_pcap(pcap_dir / f"{s2}_out.pcap")
    assert len([f for _, f in inbound if f[12:14] == b"\x88\xb5"]) == 200
    assert len([f for _, f in outbound if f[12:14] == b"\x88\xb5"]) == 200


def test_bad_interface_is_a_clean_user_error() -> None:
    lab = VethLab(pairs=1)
    try:
        res = subprocess.run(
            ["ip", "netns", "exec", lab.switch_ns, PY, "-m", "emulator", "switch",
             "-i", "1@nosuchif0", "--thrift-port", str(_free_port()), str(PROGRAM)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert res.returncode == 2
        assert "nosuchif0" in res.stderr and "no such device" in res.stderr
        assert "Traceback" not in res.stderr
    finally:
        lab.close()
    assert not lab.exists()


#: the start of the scripts run in the host namespace: raw sockets on the two host veths
RAW_SOCKETS = """
import json, socket, sys, time
from emulator.target.blast import make_frame
from emulator.vocab.pfc import decode_pfc, encode_pfc
h1, h2 = sys.argv[1], sys.argv[2]
def sock(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((ifname, 3))
    s.settimeout(0.05)
    return s
"""

PFC_SCENARIO = """
tx, rx = sock(h1), sock(h2)
def arrivals(window):
    n, end = 0, time.monotonic() + window
    while time.monotonic() < end:
        try:
            data, addr = rx.recvfrom(65535)
        except TimeoutError:
            continue
        if addr[2] != 4 and data[12:14] == b"\\x88\\xb5":
            n += 1
    return n
rx.send(encode_pfc("02:00:00:00:00:02", 0x01, [0xFFFF] + [0] * 7))  # pause class 0
time.sleep(0.2)
for i in range(20):
    tx.send(make_frame(i, 256))
paused = arrivals(1.0)
rx.send(encode_pfc("02:00:00:00:00:02", 0x01, [0] * 8))  # resume
resumed = arrivals(2.0)
print(json.dumps({"paused": paused, "resumed": resumed}))
"""


def test_pfc_pauses_and_resumes_egress_through_the_process() -> None:
    # 1 Mb/s on port 2: 65535 quanta = 33.5 s
    with _switch("--pfc-ports", "2", "--port-speed", "2@1e6") as (lab, port):
        h1, h2 = lab.host_ifs
        res = json.loads(
            lab.run_in(lab.host_ns, [PY, "-c", RAW_SOCKETS + PFC_SCENARIO, h1, h2]).stdout
        )
        assert res == {"paused": 0, "resumed": 20}
        stats = _cli(lab, port, "show_tm_stats\n")
        assert "port 2 prio 0: enq 20 deq 20 drop 0 pause_frames 2" in stats


PFC_GEN_SCENARIO = """
s1, s2 = sock(h1), sock(h2)
def pfc_seen(s, window):
    out, end = [], time.monotonic() + window
    while time.monotonic() < end:
        try:
            data, addr = s.recvfrom(65535)
        except TimeoutError:
            continue
        d = decode_pfc(data) if addr[2] != 4 else None
        if d is not None:
            out.append([d.class_enable, d.quanta[0]])
    return out
s2.send(encode_pfc("02:00:00:00:00:02", 0x01, [0xFFFF] + [0] * 7))  # h2 pauses egress 2
time.sleep(0.2)
for i in range(8):
    s1.send(make_frame(i, 256))  # queue up on port 2; from the 5th on, port 1 is congested
xoff = pfc_seen(s1, 1.0)
s2.send(encode_pfc("02:00:00:00:00:02", 0x01, [0] * 8))  # resume: the queue drains
xon = pfc_seen(s1, 1.0)
print(json.dumps({"xoff": xoff, "xon": xon}))
"""


def test_switch_generates_xoff_and_xon_upstream() -> None:
    options = ("--pfc-ports", "1,2", "--port-speed", "1@1e6", "--port-speed", "2@1e6",
               "--pfc-consume", "--pfc-xoff", "5", "--pfc-xon", "1")  # fmt: skip
    with _switch(*options) as (lab, port):  # 1 Mb/s: pauses last 33 s, no refresh
        h1, h2 = lab.host_ifs
        res = json.loads(
            lab.run_in(lab.host_ns, [PY, "-c", RAW_SOCKETS + PFC_GEN_SCENARIO, h1, h2]).stdout
        )
        assert res == {"xoff": [[1, 0xFFFF]], "xon": [[1, 0]]}
        stats = _cli(lab, port, "show_tm_stats\n")
        assert "port 1 prio 0:" in stats and "xoff_sent 1 xon_sent 1" in stats
        js = json.loads(_cli(lab, port, "show_stats_json\n").removeprefix("RuntimeCmd: "))
        assert js["ports"]["1"]["pfc_tx"] == 2
        assert [(p, c, q) for _t, p, c, q in js["pfc_events"]] == [(1, 0, 0xFFFF), (1, 0, 0)]


def test_set_queue_rate_paces_egress_in_real_time() -> None:
    with _switch() as (lab, port):
        _cli(lab, port, "set_queue_rate 200 2\n")
        h1, h2 = lab.host_ifs
        res = json.loads(
            lab.run_in(
                lab.host_ns,
                [PY, "-m", "emulator.target.blast", "--tx", h1, "--rx", h2,
                 "--count", "60", "--rate", "2000", "--timeout", "10"],
            ).stdout
        )  # fmt: skip
        assert res["received"] == 60  # 60 < the default queue depth of 64: nothing dropped
        assert 120 < res["rx_pps"] < 220  # paced to 200 pps, never faster
