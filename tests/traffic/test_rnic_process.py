"""Two rnic processes in two fresh network namespaces joined by a veth pair (needs root)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from emulator.errors import UserError
from emulator.traffic.rnic_process import process_config, rnic_config_from_dict

ROOT = Path(__file__).resolve().parents[2]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def test_process_config_from_a_host_node() -> None:
    host = SimpleNamespace(
        name="h0",
        mac="02:00:00:00:00:01",
        ip="10.0.0.1",
        gateway_mac="02:00:00:00:00:fe",
        port=SimpleNamespace(rate_bps=1_000_000_000),
    )
    w = {"kind": "fat_flows", "pairs": [["h0", "h1"]], "size_bytes": 10}
    cfg = process_config(host, "h0-eth0", {"h0": "10.0.0.1", "h1": "10.0.0.2"}, w, "/tmp/o.json")
    assert cfg["rnic"] == {"link_bps": 1e9} and cfg["iface"] == "h0-eth0"
    assert json.loads(json.dumps(cfg)) == cfg
    assert rnic_config_from_dict(cfg["rnic"]).link_bps == 1e9


def test_rnic_config_from_dict_rejects_unknown_keys() -> None:
    assert rnic_config_from_dict({"mtu": 2048}).mtu == 2048
    with pytest.raises(UserError, match="unknown keys"):
        rnic_config_from_dict({"mtuu": 1})
    cfg = rnic_config_from_dict({"dcqcn": {"g": 0.5}, "qos": {"dscp_cts": 40}})
    assert cfg.dcqcn is not None and cfg.dcqcn.g == 0.5 and cfg.qos.dscp_cts == 40
    assert rnic_config_from_dict({"dcqcn": True}).dcqcn is not None
    assert rnic_config_from_dict({"dcqcn": False}).dcqcn is None
    with pytest.raises(UserError, match=r"rnic\.qos: unknown keys"):
        rnic_config_from_dict({"qos": {"dscp": 1}})


@pytest.mark.root
def test_two_rnic_processes_over_veth(tmp_path: Path) -> None:
    tag = f"{os.getpid() % 100000}"
    ns = [f"fabemu-t{tag}a", f"fabemu-t{tag}b"]
    veth = [f"fe{tag}a", f"fe{tag}b"]
    macs = ["02:00:00:aa:00:01", "02:00:00:aa:00:02"]
    ips = {"h0": "10.77.0.1", "h1": "10.77.0.2"}
    procs: list[subprocess.Popen] = []
    created: list[str] = []
    try:
        for n in ns:
            _ip("netns", "add", n)
            created.append(n)
        _ip("link", "add", veth[0], "type", "veth", "peer", "name", veth[1])
        for i in range(2):
            _ip("link", "set", veth[i], "netns", ns[i])
            _ip("-n", ns[i], "link", "set", veth[i], "address", macs[i])
            _ip("-n", ns[i], "link", "set", veth[i], "up")
        start_at = time.monotonic_ns() + int(1.5e9)
        outs = []
        for i, host in enumerate(("h0", "h1")):
            out = tmp_path / f"{host}.json"
            outs.append(out)
            cfg = {
                "host": host,
                "iface": veth[i],
                "mac": macs[i],
                "ip": ips[host],
                "gateway_mac": macs[1 - i],
                "ips": ips,
                "workload": {
                    "kind": "fat_flows",
                    "pairs": [["h0", "h1"]],
                    "size_bytes": 2_000_000,
                    "num_qps": 4,
                },
                "rnic": {"link_bps": 200e6, "rto_ns": 50_000_000, "chunk_bytes": 65536},
                "out": str(out),
                "duration_s": 20,
                "max_packets": 100_000,
                "start_at_ns": start_at,
            }
            cfg_path = tmp_path / f"{host}.cfg.json"
            cfg_path.write_text(json.dumps(cfg))
            cmd = [
                "ip",
                "netns",
                "exec",
                ns[i],
                sys.executable,
                "-m",
                "emulator.traffic.rnic_process",
                str(cfg_path),
            ]
            procs.append(subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True))
        for p in procs:
            p.wait(timeout=40)
            assert p.returncode == 0, p.stderr.read() if p.stderr else ""
        rep = [json.loads(o.read_text()) for o in outs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        subprocess.run(["ip", "link", "del", veth[0]], capture_output=True, timeout=20)
        for n in created:
            subprocess.run(["ip", "netns", "del", n], capture_output=True, timeout=20)
    assert rep[0]["done"] and rep[1]["done"]
    assert rep[0]["ranks"]["h0"]["bytes_sent"] == 2_000_000
    assert rep[1]["ranks"]["h1"]["bytes_received"] == 2_000_000
    c0, c1 = rep[0]["counters"], rep[1]["counters"]
    assert c1["rx_payload_bytes"] == 2_000_000  # h0 sends data only; CTS go h1 -> h0
    assert c0["cts_received"] == c1["cts_sent"] == -(-2_000_000 // 65536)
    # conservation on a lossless veth: everything sent arrived (the kernel's own IPv6
    # neighbour discovery frames on a fresh veth are counted as not_for_us)
    assert c0["tx_pkts"] == c1["rx_pkts"] - c1["not_for_us"]
    assert c1["tx_pkts"] == c0["rx_pkts"] - c0["not_for_us"]
    assert c0["retransmitted_pkts"] == 0
    flows = rep[1]["flows"]
    assert len(flows) == 4 and sum(f["bytes"] for f in flows) == 2_000_000


@pytest.mark.root
def test_sigterm_still_writes_the_report(tmp_path: Path) -> None:
    ns = f"fabemu-t{os.getpid() % 100000}s"
    out = tmp_path / "h0.json"
    host = SimpleNamespace(
        name="h0", mac="02:00:00:bb:00:01", ip="10.78.0.1", gateway_mac="02:00:00:bb:00:02"
    )
    w = {"kind": "fat_flows", "pairs": [["h0", "h1"]], "size_bytes": 10**9}
    cfg = process_config(
        host,
        "lo",
        {"h0": "10.78.0.1", "h1": "10.78.0.2"},
        w,
        str(out),
        duration_s=30,
        rnic={"link_bps": 1e6},
    )
    cfg_path = tmp_path / "h0.cfg.json"
    cfg_path.write_text(json.dumps(cfg))
    proc = None
    try:
        _ip("netns", "add", ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        proc = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                ns,
                sys.executable,
                "-m",
                "emulator.traffic.rnic_process",
                str(cfg_path),
            ],
            cwd=ROOT,
        )
        time.sleep(2.0)
        proc.terminate()  # SIGTERM to `ip netns exec`, which execs python in place
        proc.wait(timeout=20)
        rep = json.loads(out.read_text())
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
    assert proc.returncode == 0
    assert rep["stopped_by_signal"] and not rep["done"]
    assert rep["counters"]["cts_received"] == 0  # nobody answered: no data may be sent
    assert rep["counters"]["tx_data_pkts"] == 0


def test_udp_sink_needs_a_local_address() -> None:
    from emulator.traffic.rnic_process import udp_sink

    assert udp_sink("192.0.2.77") is None  # TEST-NET address, not configured here


def _quanta(frame: bytes) -> list[int]:
    from emulator.vocab.pfc import decode_pfc

    pfc = decode_pfc(frame)
    assert pfc is not None
    return list(pfc.quanta)


def test_a_stuck_host_storms_pfc_and_discards_what_it_receives() -> None:
    """SIGUSR1/SIGUSR2 set the loop's state; while stuck: all-class XOFF (quanta 65535)
    every STORM_PERIOD_NS and received frames discarded; one XON on recovery."""
    import signal
    import socket

    from emulator.traffic.rnic_process import (
        STORM_PERIOD_NS,
        _drain,
        _Loop,
        _storm,
    )

    sent: list[bytes] = []
    link = SimpleNamespace(send=lambda f, now: sent.append(f), received=lambda f: False)
    nic = SimpleNamespace(mac="02:00:00:00:00:01", frames=[])
    nic.on_frame = lambda f, now: nic.frames.append(f)
    loop = _Loop(deadline=10**18, start_at=0, max_packets=10, linger_ns=0)
    loop.on_stuck(signal.SIGUSR1, None)
    for now in (0, STORM_PERIOD_NS // 2, STORM_PERIOD_NS, 2 * STORM_PERIOD_NS):
        _storm(loop, link, nic, now)  # type: ignore[arg-type]
    assert len(sent) == 3 and all(_quanta(f) == [0xFFFF] * 8 for f in sent)
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with a, b:
        b.setblocking(False)
        a.send(b"frame")
        recv = b.recvfrom
        sock = SimpleNamespace(recvfrom=lambda n: (recv(n)[0], ("x", 0, 0)))
        _drain(loop, sock, link, nic)  # type: ignore[arg-type]
        assert loop.stuck_dropped == 1 and nic.frames == []
        loop.on_stuck(signal.SIGUSR2, None)
        a.send(b"frame")
        _drain(loop, sock, link, nic)  # type: ignore[arg-type]
        assert nic.frames == [b"frame"]
    _storm(loop, link, nic, 3 * STORM_PERIOD_NS)  # type: ignore[arg-type]
    assert _quanta(sent[-1]) == [0] * 8 and loop.storm_frames == 4
    _storm(loop, link, nic, 4 * STORM_PERIOD_NS)  # type: ignore[arg-type]
    assert len(sent) == 4  # recovered: no more storm frames
