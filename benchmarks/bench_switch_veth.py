"""Forwarding rate of ``fabemu switch`` through veths, 1 KiB frames (needs root).

    sudo .venv/bin/python benchmarks/bench_switch_veth.py [--count 20000] [--runs 3]

Two veth pairs in throwaway namespaces, the port-forwarding program
(tests/target/process_data/port_fwd.json, port 1 -> 2), a raw-socket sender blasting
``--count`` frames as fast as it can. Prints the median forwarded pps (measured between the
first and last arrival) and the delivered fraction. Reference: real simple_switch 1.15.5
(logging build) forwards about 11.5 kpps of 1 KiB frames on this kind of 2-core machine.
Bounded: ``--count`` frames per run (max 200k), 60 s per run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from emulator.target.netlab import VethLab

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "target" / "process_data" / "port_fwd.json"
PY = sys.executable


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_run(count: int, size: int, rate: float) -> dict[str, float]:
    """Start a switch in fresh namespaces, blast, return the blast figures."""
    port = _free_port()
    with VethLab(pairs=2) as lab:
        s1, s2 = lab.switch_ifs
        h1, h2 = lab.host_ifs
        proc = lab.popen(
            lab.switch_ns,
            [PY, "-m", "emulator", "switch", "-i", f"1@{s1}", "-i", f"2@{s2}",
             "--thrift-port", str(port), str(PROGRAM)],
            cwd=str(ROOT),
        )  # fmt: skip
        cli = [PY, "-m", "emulator.target.control_client", "--thrift-port", str(port)]
        deadline = time.monotonic() + 30
        while True:
            res = subprocess.run(
                ["ip", "netns", "exec", lab.switch_ns, *cli, "--strict"],
                input="table_add MyIngress.fwd MyIngress.set_port 1 => 2\n",
                capture_output=True, text=True, cwd=str(ROOT), timeout=30, check=False,
            )  # fmt: skip
            if res.returncode == 0:
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"switch did not come up: {res.stderr}")
            time.sleep(0.2)
        out = lab.run_in(
            lab.host_ns,
            [PY, "-m", "emulator.target.blast", "--tx", h1, "--rx", h2, "--count", str(count),
             "--size", str(size), "--rate", str(rate), "--timeout", "60"],
            timeout=90,
        )  # fmt: skip
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        return json.loads(out.stdout)


def main() -> int:
    """Run the benchmark and print medians."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=20000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--rate", type=float, default=0.0, help="offered frames/s, 0 = max")
    a = p.parse_args()
    if os.geteuid() != 0:
        print("needs root (network namespaces, raw sockets)", file=sys.stderr)
        return 2
    count = min(a.count, 200_000)
    results = [one_run(count, a.size, a.rate) for _ in range(max(1, min(a.runs, 10)))]
    pps = statistics.median(r["rx_pps"] for r in results)
    frac = statistics.median(r["received"] / max(1, r["sent"]) for r in results)
    print(f"frames/run={count} size={a.size}B runs={len(results)} offered_rate={a.rate or 'max'}")
    print(f"median forwarded pps: {pps:,.0f}")
    print(f"median delivered fraction: {frac:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
