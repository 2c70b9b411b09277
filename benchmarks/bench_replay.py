"""Per-switch costs of the whole-switch replay (emulator/target/framereplay.py).

One leaf (rtsw0) of ``bench_virtual.py``'s 256-host case is fed again the frames it
received in that run: the ingress (parse + verify + ingress, or a replay hit) and the
egress (egress + checksums + deparse, or a hit and a byte patch) of each, timed apart,
with the replay on and off; then whole passes (``receive`` + ``transmit``) on a fresh
switch (the first pass records) and a warm one. CPU microseconds per frame, min of
``--repeat``.

    .venv/bin/python benchmarks/bench_replay.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_virtual as bv

from emulator.p4c import compile_file
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.target.ops import apply_ops
from emulator.target.packet import Pkt
from emulator.target.pipeline import run
from emulator.target.switch import Switch

LEAF = "rtsw0"


def captured(prog: dict[str, Any]) -> tuple[Any, list[tuple[int, bytes]], set[int]]:
    """The 256-host plan, the frames its leaf received (replay off) and its ports."""
    _, cfg, work = bv.cases(prog, quick=False)[2]
    os.environ["FABEMU_REPLAY"] = "0"
    rt = VirtualRuntime(cfg)
    rt.start()
    rt.add_workload(work)
    seen: list[tuple[int, bytes]] = []
    sw = rt.boxes[LEAF].sw
    receive = sw.receive

    def noting(port: int, frame: bytes) -> list[int]:
        seen.append((port, bytes(frame)))
        return receive(port, frame)

    sw.receive = noting  # type: ignore[method-assign]
    rt.run(60 * 10**9)
    return cfg, seen, set(sw.ports)


def leaf(prog: dict[str, Any], cfg: Any, ports: set[int], replay: bool) -> Switch:
    """A fresh leaf programmed as in the run."""
    os.environ["FABEMU_REPLAY"] = "1" if replay else "0"
    sw = Switch(prog, priority_queues=8)
    for port in sorted(ports):
        sw.add_port(port)
    apply_ops(sw, cfg.switch_ops[LEAF], where=LEAF)
    return sw


def per_frame(fn: Any, items: list[Any]) -> float:
    """CPU us per item of ``fn`` over ``items``."""
    t = time.process_time()
    for item in items:
        fn(*item)
    return (time.process_time() - t) / len(items) * 1e6


def stages(sw: Switch, frames: list[tuple[int, bytes]]) -> tuple[float, float]:
    """(ingress, egress) us per frame on ``sw`` (warm)."""
    items = []
    for port, fr in frames:
        f = sw._template.copy()
        (a, _), (b, _), (c, _) = sw._in_slots
        f[a], f[b], f[c] = port, 0, len(fr)
        items.append((f, Pkt(fr, f)))
    prog = sw.program

    def plain(f: list[int], p: Pkt) -> None:
        prog.parser.parse(f, p)
        prog.checksums.verify(f, p)
        run(prog.ingress, f, p)

    ing = per_frame(sw.replay.ingress if sw.replay else plain, items)
    out = [(f[sw._s_espec], p) for f, p in items if f[sw._s_espec] != 511]
    return ing, per_frame(sw._egress, out)


def passes(sw: Switch, frames: list[tuple[int, bytes]]) -> float:
    """One pass of every frame through ``receive`` and ``transmit``: us per frame."""

    def one(port: int, fr: bytes) -> None:
        for q in sw.receive(port, fr):
            sw.transmit(q)

    return per_frame(one, frames)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    prog = compile_file(str(bv.PROGRAM))
    cfg, frames, ports = captured(prog)
    print(f"{len(frames)} frames received by {LEAF} in the 256-host run")
    rows: dict[bool, list[tuple[float, ...]]] = {False: [], True: []}
    for _ in range(args.repeat):
        for replay in (False, True):
            sw = leaf(prog, cfg, ports, replay)
            first = passes(sw, frames)
            warm = passes(sw, frames)
            rows[replay].append((first, warm, *stages(sw, frames)))
    print(f"{'replay':<8}{'1st pass':>10}{'warm pass':>11}{'ingress':>9}{'egress':>8}  (us/frame)")
    for replay, runs in rows.items():
        best = [min(col) for col in zip(*runs)]
        print(f"{'on' if replay else 'off':<8}" + "".join(f"{v:>10.2f}" for v in best))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
