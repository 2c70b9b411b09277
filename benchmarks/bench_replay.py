"""Per-switch costs of the whole-switch replay (emulator/target/framereplay.py).

One leaf (rtsw0) of ``bench_virtual.py``'s 256-host case is fed again the frames it
received in that run: the ingress (parse + verify + ingress, or a replay hit) and the
egress (egress + checksums + deparse, or a hit and a byte patch) of each, timed apart,
with the replay on and off; then whole passes (``receive`` + ``transmit``) on a fresh
switch (the first pass records) and a warm one. CPU microseconds per frame, min of
``--repeat``. ``--cases``: whole runs of ``bench_virtual.py``'s cases, defaults against
defaults + replay (hops per CPU second, ratio, hit rate, outcomes recorded).

    .venv/bin/python benchmarks/bench_replay.py [--repeat 7] [--cases]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
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


def replay_stats(rt: VirtualRuntime) -> Counter[str]:
    """Hits, misses (recorded), slow runs of every switch's replay, summed."""
    total: Counter[str] = Counter()
    for box in rt.boxes.values():
        replay = getattr(getattr(box, "sw", None), "replay", None)
        if replay is not None:
            total.update(replay.stats())
    return total


def cases(prog: dict[str, Any], repeat: int) -> None:
    """Each ``bench_virtual`` case with the defaults and with the defaults + replay,
    interleaved ``repeat`` times: median hops per CPU second, their ratio, the hit rate
    (ingress hits over new frames) and the outcomes recorded (ingress + egress)."""
    print(f"{'case':<26}{'defaults':>10}{'+replay':>10}{'ratio':>7}{'hits':>7}{'recorded':>10}")
    for label, cfg, work in bv.cases(prog, quick=False):
        rates: dict[bool, list[float]] = {False: [], True: []}
        counts: Counter[str] = Counter()
        for _ in range(repeat):
            for replay in (False, True):
                bv.REPLAY = replay
                bv.set_mode("1")
                rt = VirtualRuntime(cfg)
                rt.start()
                rt.add_workload(work)
                c0 = time.process_time()
                rt.run(60 * 10**9)
                rates[replay].append(rt.stats()["hops"] / (time.process_time() - c0))
                counts = replay_stats(rt) if replay else counts
        off, on = statistics.median(rates[False]), statistics.median(rates[True])
        runs = counts["hits"] + counts["misses"] + counts["slow"]
        recorded = f"{counts['misses']}+{counts['egress_misses']}"
        print(
            f"{label:<26}{off:>10.0f}{on:>10.0f}{on / off:>7.2f}"
            f"{counts['hits'] / max(runs, 1):>7.2f}{recorded:>10}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cases", action="store_true", help="whole runs: defaults vs + replay")
    args = ap.parse_args()
    prog = compile_file(str(bv.PROGRAM))
    if args.cases:
        cases(prog, args.repeat)
        return 0
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
