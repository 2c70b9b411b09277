"""Run the real BMv2 ``simple_switch`` on a batch of packets, for parity checks.

simple_switch's ``--use-files W`` mode reads port N's input from ``pN_in.pcap`` and writes
``pN_out.pcap`` (flushed per packet); it starts reading W seconds after its Thrift server is
up. The control-plane commands go through ``simple_switch_CLI`` inside that window; when
they take longer than the window (a loaded machine), the run is restarted with a longer one,
so packets never meet a half-configured switch. The outputs are complete when the files
stop growing.

simple_switch reads the whole input file at once (it ignores the pcap time stamps: measured,
4 packets 500 ms apart came out within 10 ms), so the inputs are a burst. Where a later
packet can overtake an earlier one (strict-priority queues, a recirculated packet behind the
next input), the order of a port's outputs depends on thread timing; :func:`per_port_sets`
compares those outputs without their order (every frame and its count still compared). Processes are stopped by PID; ``start`` then ``finish`` lets two switches
(e.g. two compilers' JSON) run side by side.
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from emulator.errors import UserError
from emulator.target.ops import simple_switch_has
from emulator.target.pcap import PcapWriter

#: ports attached by default: simple_switch drops what leaves on a port it does not have
DEFAULT_PORTS = tuple(range(16))
START_TIMEOUT_S = 30.0
MARGIN_S = 0.5  # the CLI must be done this long before the switch reads its input
SETTLE_S = 0.4  # the outputs are complete when no file grew for this long


@dataclass(frozen=True)
class ReferenceResult:
    """Frames out of each attached port, and the CLI's output of the read commands."""

    outputs: dict[int, list[bytes]]
    reads: str


def read_frames(path: Path) -> list[bytes]:
    """Frames of a classic pcap file in either byte order (simple_switch leaves the link
    type and snap length at 0 in its header)."""
    data = path.read_bytes()
    if len(data) < 24:
        return []
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    frames, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack_from(endian + "I", data, off + 8)[0]
        frames.append(data[off + 16 : off + 16 + incl])
        off += 16 + incl
    return frames


def per_port_sets(outputs: dict[int, list[bytes]]) -> dict[int, list[bytes]]:
    """Each port's frames sorted: for programs where a burst legitimately reorders them."""
    return {port: sorted(frames) for port, frames in outputs.items()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _up(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def run_cli(thrift: int, commands: list[str]) -> str:
    """Pipe ``commands`` into ``simple_switch_CLI``; its stdout; errors raise UserError.

    Lines of the built-in target's extensions are left out (simple_switch has none)."""
    commands = [c for c in commands if simple_switch_has(c)]
    res = subprocess.run(
        ["simple_switch_CLI", "--thrift-port", str(thrift)],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marks = ("Error", "Invalid", "Unknown syntax")  # the last: a command the CLI lacks
    bad = [ln for ln in res.stdout.splitlines() if any(m in ln for m in marks)]
    if res.returncode != 0 or bad:
        raise UserError(f"simple_switch_CLI: {(bad or [res.stderr.strip()])[0]}")
    return res.stdout


@dataclass
class ReferenceSwitch:
    """One simple_switch run over input pcaps in ``workdir`` (created if missing)."""

    json_path: Path
    workdir: Path
    packets: list[tuple[int, bytes]]
    commands: list[str] = field(default_factory=list)
    ports: tuple[int, ...] = DEFAULT_PORTS
    target_args: tuple[str, ...] = ()
    wait_s: int = 2  # whole seconds (simple_switch takes an integer)
    attempts: int = 3
    _proc: subprocess.Popen[bytes] | None = None
    _thrift: int = 0
    _ready_at: float = 0.0  # when the switch starts reading its input files

    def start(self) -> ReferenceSwitch:
        """Launch and configure the switch before it reads its input (retrying if slow)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.ports = tuple(sorted(set(self.ports) | {p for p, _ in self.packets}))
        wait = self.wait_s
        for _ in range(self.attempts):
            self._launch(wait)
            if self.commands:
                try:
                    run_cli(self._thrift, self.commands)
                except BaseException:  # a refused command: the launched switch must not linger
                    self.stop()
                    raise
            if time.monotonic() < self._ready_at - MARGIN_S:
                return self
            self.stop()  # configuration overran the window: retry with a longer one
            wait *= 2
        raise UserError(f"simple_switch_CLI took longer than {wait / 2:.0f} s to configure")

    def _launch(self, wait: int) -> None:
        for port in self.ports:
            (self.workdir / f"p{port}_out.pcap").unlink(missing_ok=True)
            with PcapWriter(self.workdir / f"p{port}_in.pcap") as w:
                for i, (p, frame) in enumerate(self.packets):
                    if p == port:
                        w.write(frame, ts_ns=(i + 1) * 1_000_000)
        if not shutil.which("simple_switch"):
            raise UserError("simple_switch is not on PATH (install BMv2)")
        self._thrift = _free_port()
        argv = ["simple_switch", "--use-files", str(wait), "--thrift-port", str(self._thrift)]
        # a notifications socket of its own: the default one is shared by every simple_switch
        argv += ["--log-level", "off", "--notifications-addr", self._notify_addr()]
        for port in self.ports:
            argv += ["-i", f"{port}@{self.workdir / f'p{port}'}"]
        argv.append(str(self.json_path))
        if self.target_args:
            argv += ["--", *self.target_args]
        log = open(self.workdir / "simple_switch.log", "wb")  # noqa: SIM115 - child owns it
        self._proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _up(self._thrift):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                text = (self.workdir / "simple_switch.log").read_text(errors="replace")
                raise UserError(f"simple_switch did not start: {text.strip()[-2000:]}")
            time.sleep(0.05)
        self._ready_at = time.monotonic() + wait

    def _notify_addr(self) -> str:
        return f"ipc:///tmp/fabemu-bmv2-{self._thrift}-notifications.ipc"

    def finish(self, reads: list[str] | None = None) -> ReferenceResult:
        """Wait until the inputs are processed; read state; stop the switch; the outputs."""
        time.sleep(max(0.0, self._ready_at - time.monotonic()))
        sizes: dict[int, int] = {}
        stable_since = time.monotonic()
        deadline = stable_since + 60
        while time.monotonic() < deadline:
            now = {p: self._size(p) for p in self.ports}
            if now != sizes:
                sizes, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since >= SETTLE_S:
                break
            time.sleep(0.05)
        try:
            text = run_cli(self._thrift, reads) if reads else ""
        finally:
            self.stop()
        outputs = {p: self._frames(p) for p in self.ports}
        return ReferenceResult({p: f for p, f in outputs.items() if f}, text)

    def _size(self, port: int) -> int:
        path = self.workdir / f"p{port}_out.pcap"
        return path.stat().st_size if path.exists() else -1

    def _frames(self, port: int) -> list[bytes]:
        path = self.workdir / f"p{port}_out.pcap"
        if not path.exists() or path.stat().st_size < 24:
            return []
        return read_frames(path)

    def stop(self) -> None:
        """Stop the switch (by PID); its output files are already flushed."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        if self._proc is not None:
            Path(self._notify_addr()[len("ipc://") :]).unlink(missing_ok=True)
        self._proc = None


def run_reference(
    json_path: Path,
    workdir: Path,
    packets: list[tuple[int, bytes]],
    commands: list[str],
    reads: list[str] | None = None,
    **options: object,
) -> ReferenceResult:
    """Start, configure, feed and read one simple_switch; see :class:`ReferenceSwitch`."""
    sw = ReferenceSwitch(json_path, workdir, packets, commands, **options)  # type: ignore[arg-type]
    sw.start()
    try:
        return sw.finish(reads)
    finally:
        sw.stop()
