"""Fuzz a configured ``roce_fabric.p4`` leaf on the built-in target with hostile frames.

The leaf ``rtsw0`` of ``topologies/ai_zone_small.yaml`` is compiled by fabemu's front end
and programmed by the control plane (routes, ECMP, PFC, QoS), like in a run. Frames, in
equal shares: valid RoCEv2 (from its hosts to any host, and from its spines), mutated
(1-4 bytes changed), truncated, random bytes, and PFC (well-formed, with random classes
and quanta, or damaged). Each enters a random port (``Switch.receive``: PFC, parser,
ingress, traffic manager) and every queued frame is sent out (``transmit``: egress,
deparser). A crash is any exception the switch raises.

Usage: ``python benchmarks/fuzz_frames.py [--frames 1000000] [--seed 1]``. Prints counts
per class and crashes by exception type; exit 1 if any crash.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.switch import Switch
from emulator.topology import ResolvedTopology, load_clos, resolve

ROOT = Path(__file__).resolve().parent.parent
LEAF = "rtsw0"
CLASSES = ("valid", "mutated", "truncated", "random", "pfc")


def configured_leaf() -> tuple[Switch, ResolvedTopology]:
    """rtsw0 running roce_fabric.p4 with the control plane's entries (no port rate limits)."""
    topo = resolve(load_clos(ROOT / "topologies" / "ai_zone_small.yaml"))
    program = compile_file(ROOT / "p4" / "roce_fabric.p4")
    ctl = FabricController(topo, FabricConfig())
    node = topo.switch(LEAF)
    sw = Switch(program, device_id=node.device_id, priority_queues=8)
    for port in node.ports:
        sw.add_port(port.number)
    ctl.apply({LEAF: sw})
    return sw, topo


def valid_frames(
    topo: ResolvedTopology, rng: random.Random, n: int = 256
) -> list[tuple[int, bytes]]:
    """(ingress port, frame): RoCEv2 from the leaf's hosts and from its spines."""
    leaf = topo.switch(LEAF)
    mine = [h for h in topo.hosts if h.leaf == LEAF]
    ups = [p for p in leaf.ports if p.kind == "up"]
    out = []
    for _ in range(n):
        dst = rng.choice(topo.hosts)
        if rng.random() < 0.5 or not ups:
            src = rng.choice(mine)
            port, smac, dmac, sip = src.leaf_port, src.mac, src.gateway_mac, src.ip
        else:
            up = rng.choice(ups)
            dst = rng.choice(mine)
            port, smac, dmac, sip = up.number, "02:b0:00:99:00:01", leaf.mac, "10.0.7.1"
        pkt = (
            Ether(src=smac, dst=dmac)
            / IP(src=sip, dst=dst.ip, tos=rng.choice((0, 26 << 2, 48 << 2, (26 << 2) | 1)))
            / UDP(sport=rng.randrange(0xC000, 0x10000), dport=4791)
            / BTH(opcode=rng.choice((0x04, 0x0A, 0x11, 0x81)), dqpn=rng.randrange(1 << 24))
            / bytes(rng.randrange(0, 1025))
        )
        out.append((port, bytes(pkt)))
    return out


def pfc_frame(rng: random.Random) -> bytes:
    """An 802.1Qbb frame: mostly well-formed, sometimes with a wrong opcode or cut short."""
    body = (0x0101).to_bytes(2, "big") + rng.randrange(1 << 16).to_bytes(2, "big")
    body += b"".join(rng.randrange(1 << 16).to_bytes(2, "big") for _ in range(8))
    frame = bytes.fromhex("0180c200000102000000009988 08".replace(" ", "")) + body
    frame += bytes(max(0, 60 - len(frame)))
    damage = rng.random()
    if damage < 0.1:
        return frame[: rng.randrange(len(frame))]
    if damage < 0.2:
        return frame[:14] + rng.randbytes(2) + frame[16:]
    return frame


def make_frame(
    cls: str, rng: random.Random, valid: list[tuple[int, bytes]], ports: list[int]
) -> tuple[int, bytes]:
    """One frame of class ``cls`` and the port it enters."""
    port, frame = rng.choice(valid)
    if cls == "mutated":
        buf = bytearray(frame)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(min(len(buf), 80) if rng.random() < 0.8 else len(buf))
            buf[i] = rng.randrange(256)
        frame = bytes(buf)
    elif cls == "truncated":
        frame = frame[: rng.randrange(len(frame))]
    elif cls == "random":
        port, frame = rng.choice(ports), rng.randbytes(rng.randrange(0, 1600))
    elif cls == "pfc":
        port, frame = rng.choice(ports), pfc_frame(rng)
    return port, frame


def drive(sw: Switch, port: int, frame: bytes, clock: Callable[[], None]) -> int:
    """Receive one frame and transmit everything it queued; the number of frames sent."""
    sent = 0
    for eport in sw.receive(port, frame):
        clock()
        if sw.transmit(eport) is not None:
            sent += 1
    return sent


def main(argv: list[str] | None = None) -> int:
    """Send the frames, print counts, exit 1 on any crash."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    sw, topo = configured_leaf()
    ports = sorted(p.number for p in topo.switch(LEAF).ports)
    valid = valid_frames(topo, rng)
    now = [0]

    def tick() -> None:
        now[0] += 10_000_000
        sw.now_ns = now[0]

    sent: Counter[str] = Counter()
    crashes: Counter[str] = Counter()
    per_class: Counter[str] = Counter()
    first: dict[str, Any] = {}
    t0 = time.perf_counter()
    for i in range(args.frames):
        cls = CLASSES[i % len(CLASSES)]
        port, frame = make_frame(cls, rng, valid, ports)
        per_class[cls] += 1
        try:
            sent[cls] += drive(sw, port, frame, tick)
        except Exception as exc:  # the thing being counted
            crashes[type(exc).__name__] += 1
            first.setdefault(type(exc).__name__, (cls, port, frame.hex(), repr(exc)))
    took = time.perf_counter() - t0
    print(f"fuzz_frames: {args.frames} frames through {LEAF} (roce_fabric.p4), "
          f"{sum(crashes.values())} crashes, {took:.0f} s ({args.frames / took:,.0f} frames/s)")  # fmt: skip
    for cls in CLASSES:
        print(f"  {cls:<10} {per_class[cls]:>8} in, {sent[cls]:>8} out")
    for name, n in crashes.most_common():
        print(f"  crash {name}: {n} (first: {first[name]})")
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
