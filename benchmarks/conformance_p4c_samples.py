"""Held-out conformance: p4c's own v1model STF samples on the real tools and on fabemu.

    python benchmarks/conformance_p4c_samples.py --samples ~/p4c/testdata/p4_16_samples

For every v1model program with an ``.stf`` beside it (clone p4c for them; they are not part
of fabemu), three runs:

* real: p4c-bm2-ss's JSON on the real simple_switch (``--use-files``,
  :mod:`emulator.target.reference`), outputs checked against the STF ``expect`` lines;
* fabemu: fabemu's front end (``emulator.p4c``) and the built-in target;
* json: p4c-bm2-ss's JSON on the built-in target.

Prints, of the programs the real tools pass, how many pass through fabemu's front end and
target and how many pass with the real JSON on the built-in target (counts and percentages),
plus one line per program that differs with ``--verbose``. Needs p4c-bm2-ss, simple_switch
and simple_switch_CLI on PATH; no root (no interfaces are created).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emulator.p4c import CompileError, compile_file  # noqa: E402
from emulator.target.reference import ReferenceSwitch  # noqa: E402
from emulator.target.stf import StfRunner, run_stf, stf_to_cli  # noqa: E402
from emulator.target.switch import Switch  # noqa: E402

PASS, FAIL = "pass", "fail"


def samples(directory: Path) -> list[Path]:
    """v1model programs of ``directory`` that have an STF test."""
    out = []
    for p4 in sorted(directory.glob("*.p4")):
        if p4.with_suffix(".stf").exists() and "v1model.p4" in p4.read_text(errors="replace"):
            out.append(p4)
    return out


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[0][:160] if lines else ""


def real_json(p4: Path, work: Path) -> tuple[Path | None, str]:
    """Compile with p4c-bm2-ss; (JSON path or None, error line)."""
    out = work / "ref.json"
    argv = ["p4c-bm2-ss", "--arch", "v1model", "-I", str(p4.parent), "-o", str(out), str(p4)]
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    except subprocess.TimeoutExpired:
        return None, "p4c-bm2-ss timed out"
    if res.returncode != 0 or not out.exists():
        errors = [ln for ln in res.stderr.splitlines() if "error" in ln.lower()]
        return None, _first_line("\n".join(errors) or res.stderr)
    return out, ""


def segments(steps: list[tuple[str, Any]]) -> list[tuple[list[str], list[Any]]]:
    """Split STF steps into (CLI commands, packets) runs: a new run starts at each command
    that follows a packet (simple_switch ``--use-files`` reads all its packets at once)."""
    out: list[tuple[list[str], list[Any]]] = [([], [])]
    for kind, what in steps:
        if kind == "cli" and out[-1][1]:
            out.append(([], []))
        out[-1][0 if kind == "cli" else 1].append(what)
    return out


def stateful(doc: dict[str, Any]) -> bool:
    """Whether packets can leave state behind for later packets (registers, counters, meters)."""
    return any(doc.get(k) for k in ("register_arrays", "counter_arrays", "meter_arrays"))


def expect_ports(stf: Path) -> set[int]:
    """Ports the STF expects packets on (simple_switch drops frames sent to unattached ports)."""
    ports = set()
    for raw in stf.read_text().splitlines():
        words = raw.split("#", 1)[0].split()
        if len(words) > 1 and words[0] == "expect" and words[1].isdigit():
            ports.add(int(words[1]))
    return ports


def real_outputs(
    ref: Path, steps: list[tuple[str, Any]], work: Path, ports: set[int] | None = None
) -> dict[int, list[bytes]]:
    """Outputs per port of the STF's packets on real simple_switch (ports 0-15 and ``ports``
    attached).

    An STF that configures tables between packets is replayed run by run, each on a fresh
    switch given every command so far (exact for programs that keep no state across packets).
    """
    outputs: dict[int, list[bytes]] = {}
    commands: list[str] = []
    for i, (cli, packets) in enumerate(segments(steps)):
        commands += cli
        if not packets:
            continue
        sw = ReferenceSwitch(ref, work / f"bmv2-{i}", packets, list(commands))
        sw.ports = tuple(sorted(set(sw.ports) | (ports or set())))
        try:
            sw.start()
            for port, frames in sw.finish().outputs.items():
                outputs.setdefault(port, []).extend(frames)
        finally:
            sw.stop()
    return outputs


def real_stf(ref: Path, stf: Path, work: Path) -> tuple[str, str]:
    """The STF on real simple_switch: (outcome, detail).

    Outputs are compared as STF does: per port, in order; no order across ports.
    """
    try:
        steps = stf_to_cli(str(ref), stf)
    except Exception as exc:  # any failure is reported per program
        return "untranslatable", _first_line(str(exc))
    doc = json.loads(ref.read_text())
    if len(segments(steps)) > 1 and stateful(doc):
        return "interleaved", "the STF reconfigures between packets of a stateful program"
    try:
        outputs = real_outputs(ref, steps, work, expect_ports(stf))
    except Exception as exc:
        return "error", _first_line(str(exc))
    checker = StfRunner(Switch(doc))
    for raw in stf.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("expect"):
            checker.command(line)
    checker.outputs = outputs
    result = checker.check()
    return (PASS if result.passed else FAIL), _first_line(result.message.split("\n", 1)[-1])


def target_stf(program: object, stf: Path) -> tuple[str, str]:
    """The STF on the built-in target for a JSON dict or path: (outcome, detail)."""
    try:
        result = run_stf(program, stf)  # type: ignore[arg-type]
    except Exception as exc:
        return "error", _first_line(f"{type(exc).__name__}: {exc}")
    return (PASS if result.passed else FAIL), _first_line(result.message.split("\n", 1)[-1])


def fabemu_stf(p4: Path, stf: Path) -> tuple[str, str]:
    """fabemu's front end then the built-in target: (outcome, detail)."""
    try:
        doc = compile_file(str(p4), include_dirs=[str(p4.parent)])
    except CompileError as exc:
        return "compile-error", _first_line(str(exc))
    except Exception as exc:
        return "crash", _first_line(f"{type(exc).__name__}: {exc}")
    return target_stf(doc, stf)


def run_one(p4: Path) -> dict[str, tuple[str, str]]:
    """All three runs of one sample."""
    stf = p4.with_suffix(".stf")
    with tempfile.TemporaryDirectory(prefix="fabemu-conf-") as tmp:
        work = Path(tmp)
        ref, err = real_json(p4, work)
        if ref is None:
            return {"real": ("p4c-error", err)}
        return {
            "real": real_stf(ref, stf, work),
            "json": target_stf(str(ref), stf),
            "fabemu": fabemu_stf(p4, stf),
        }


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100.0 * n / d:.1f}%)" if d else f"{n}/0"


def report(results: dict[str, dict[str, tuple[str, str]]], verbose: bool) -> None:
    """Print the counts; with ``verbose`` one line per program that does not pass."""
    real = Counter(r["real"][0] for r in results.values())
    passing = [n for n, r in results.items() if r["real"][0] == PASS]
    print(f"samples (v1model + .stf): {len(results)}")
    print("real tools:", ", ".join(f"{k} {v}" for k, v in sorted(real.items())))
    for mode, label in (("fabemu", "fabemu front end + target"), ("json", "p4c JSON on target")):
        ok = sum(results[n][mode][0] == PASS for n in passing)
        print(f"{label}: passes {_pct(ok, len(passing))} of the real-tools-passing programs")
        agree = [n for n, r in results.items() if mode in r and r["real"][0] in (PASS, FAIL)]
        same = sum(results[n][mode][0] == results[n]["real"][0] for n in agree)
        print(f"{label}: agrees with the real tools on {_pct(same, len(agree))} programs")
        print("  outcomes on real-passing:", dict(Counter(results[n][mode][0] for n in passing)))
    if verbose:
        for name, r in sorted(results.items()):
            bad = {m: o for m, o in r.items() if o[0] != PASS}
            for mode, (outcome, detail) in bad.items():
                print(f"{name}: {mode}: {outcome}: {detail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=Path, required=True, help="p4c's testdata/p4_16_samples")
    ap.add_argument("--limit", type=int, default=0, help="only the first N samples")
    ap.add_argument("--match", default="", help="only samples whose name contains this")
    ap.add_argument("--json", type=Path, help="also write the per-program outcomes here")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not args.samples.is_dir():
        print(f"{args.samples}: not a directory", file=sys.stderr)
        return 2
    progs = [p for p in samples(args.samples) if args.match in p.name]
    progs = progs[: args.limit] if args.limit else progs
    results: dict[str, dict[str, tuple[str, str]]] = {}
    t0 = time.monotonic()
    for i, p4 in enumerate(progs, 1):
        results[p4.name] = run_one(p4)
        print(f"[{i}/{len(progs)}] {p4.name}: "
              + " ".join(f"{m}={o[0]}" for m, o in results[p4.name].items()), flush=True)  # fmt: skip
    print(f"--- {len(progs)} samples in {time.monotonic() - t0:.0f} s")
    report(results, args.verbose)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
