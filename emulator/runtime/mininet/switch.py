"""Mininet switch classes for P4 targets: ``FabemuSwitch`` and ``Bmv2Switch``.

Both launch a simple_switch-style process with the *same* argument list (only the binary
differs), so a topology can swap the built-in target for real BMv2::

    FabemuSwitch  ->  python -m emulator switch  -i 1@s1-eth1 ... --thrift-port N prog.json -- ...
    Bmv2Switch    ->  simple_switch              -i 1@s1-eth1 ... --thrift-port N prog.json -- ...

The process is started through the node's ``popen`` (mnexec, in the switch's namespace if
it has one), tracked by PID, stopped with SIGTERM then SIGKILL by that PID. Runtime
commands (simple_switch_CLI text) go through :meth:`P4ProcessSwitch.cli_commands`:
our control socket for FabemuSwitch, ``simple_switch_CLI --thrift-port N`` for BMv2.

    net = Mininet(topo, switch=FabemuSwitch, controller=None)   # or addSwitch(..., cls=...)
    net.addSwitch("s1", cls=FabemuSwitch, json_path="prog.json", priority_queues=8)
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from typing import Any

from mininet.node import Switch

from emulator.errors import UserError

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0

_device_ids = itertools.count()


def _free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def split_cli_output(text: str, n_commands: int) -> list[str]:
    """Per-command outputs from simple_switch_CLI stdout (each follows a ``RuntimeCmd: ``)."""
    parts = [p.rstrip("\n") for p in text.split("RuntimeCmd: ")[1:]]
    return (parts + [""] * n_commands)[:n_commands]


class P4ProcessSwitch(Switch):
    """A Mininet switch backed by one simple_switch-compatible process."""

    #: argv prefix of the switch binary (subclasses set it)
    binary: tuple[str, ...] = ()

    def __init__(
        self,
        name: str,
        json_path: str | None = None,
        thrift_port: int | None = None,
        device_id: int | None = None,
        priority_queues: int = 1,
        pfc_ports: Sequence[int] = (),
        port_speeds: dict[int, float] | None = None,
        pfc_consume: bool = False,
        pfc_thresholds: tuple[int, int] | None = None,
        line_rate: bool = False,
        ib_credits: int | None = None,
        pfc_watchdog_ms: float | None = None,
        wait_on_start: bool = True,
        pcap_dir: str | None = None,
        log_file: str | None = None,
        **params: Any,
    ) -> None:
        if json_path is None:
            raise UserError(f"switch {name}: json_path (the BMv2 JSON program) is required")
        Switch.__init__(self, name, **params)
        self.json_path = os.path.abspath(json_path)
        self.thrift_port = thrift_port or _free_tcp_port()
        self.device_id = next(_device_ids) if device_id is None else device_id
        self.priority_queues = priority_queues
        self.pfc_ports = tuple(pfc_ports)
        self.port_speeds = dict(port_speeds or {})
        self.pfc_consume = pfc_consume
        self.pfc_thresholds = pfc_thresholds
        self.line_rate = line_rate
        self.ib_credits = ib_credits
        self.pfc_watchdog_ms = pfc_watchdog_ms
        self.wait_on_start = wait_on_start
        self.pcap_dir = pcap_dir
        self.log_file = log_file or os.path.join(
            tempfile.gettempdir(), f"fabemu-{name}-{os.getpid()}.log"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    # -- argument list shared by both binaries -----------------------------------------

    def switch_args(self) -> list[str]:
        """simple_switch-style arguments for the current interfaces (binary not included)."""
        args: list[str] = []
        for port, intf in sorted(self.intfs.items()):
            if intf.name == "lo":
                continue
            args += ["-i", f"{port}@{intf.name}"]
        args += ["--thrift-port", str(self.thrift_port), "--device-id", str(self.device_id)]
        if self.pcap_dir:
            args.append(f"--pcap={self.pcap_dir}")
        args.append(self.json_path)
        target = self.target_args()
        if target:
            args += ["--", *target]
        return args

    def target_args(self) -> list[str]:
        """Options after ``--`` (simple_switch understands only --priority-queues)."""
        return ["--priority-queues", str(self.priority_queues)] if self.priority_queues > 1 else []

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, controllers: Iterable[Any]) -> None:
        """Launch the switch process; wait for its control port unless ``wait_on_start``
        is False (then call :meth:`wait_ready`, e.g. after starting every switch)."""
        argv = [*self.binary, *self.switch_args()]
        with open(self.log_file, "ab") as log:
            log.write(("$ " + " ".join(argv) + "\n").encode())
            log.flush()
            self.proc = self.popen(argv, stdout=log, stderr=subprocess.STDOUT)
        if self.wait_on_start:
            self.wait_ready()

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        """Block until the control port accepts connections (UserError with the log tail)."""
        if self.proc is None:
            raise UserError(f"switch {self.name}: not started")
        argv0 = self.binary[0] if self.binary else "switch"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise UserError(
                    f"switch {self.name}: {argv0} exited with {self.proc.returncode}; "
                    f"log {self.log_file}:\n{self._log_tail()}"
                )
            if self._port_open():
                return
            time.sleep(0.1)
        self._kill()
        raise UserError(f"switch {self.name}: control port {self.thrift_port} never opened")

    def _port_open(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.thrift_port), timeout=0.5).close()
        except OSError:
            return False
        return True

    def _log_tail(self, n: int = 20) -> str:
        try:
            with open(self.log_file, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT_S)

    def stop(self, deleteIntfs: bool = True) -> None:
        """Stop the process (SIGTERM, then SIGKILL, by PID) and delete interfaces."""
        self._kill()
        Switch.stop(self, deleteIntfs)

    @property
    def pid_of_switch(self) -> int | None:
        """PID of the running switch process, if any."""
        return self.proc.pid if self.proc and self.proc.poll() is None else None

    # -- runtime control ---------------------------------------------------------------

    def cli_commands(self, lines: Iterable[str]) -> list[str]:
        """Run simple_switch_CLI commands on this switch; one output text per command."""
        raise NotImplementedError


class FabemuSwitch(P4ProcessSwitch):
    """The built-in target: ``python -m emulator switch`` (PFC and port speeds supported)."""

    binary = (sys.executable, "-m", "emulator", "switch")

    def target_args(self) -> list[str]:
        """``--priority-queues`` plus our PFC options and port speeds."""
        args = ["--priority-queues", str(self.priority_queues)]
        if self.pfc_ports:
            args += ["--pfc-ports", ",".join(str(p) for p in self.pfc_ports)]
        for port, bps in sorted(self.port_speeds.items()):
            args += ["--port-speed", f"{port}@{bps:g}"]
        if self.pfc_consume:
            args.append("--pfc-consume")
        if self.pfc_thresholds:
            xoff, xon = self.pfc_thresholds
            args += ["--pfc-xoff", str(xoff), "--pfc-xon", str(xon)]
        if self.line_rate:
            args.append("--line-rate")
        if self.ib_credits is not None:
            args += ["--ib-credits", str(self.ib_credits)]
        if self.pfc_watchdog_ms is not None:
            args += ["--pfc-watchdog-ms", f"{self.pfc_watchdog_ms:g}"]
        return args

    def cli_commands(self, lines: Iterable[str]) -> list[str]:
        """Send the commands over the control socket."""
        from emulator.target.control_client import send_commands

        return send_commands(self.thrift_port, lines)


class Bmv2Switch(P4ProcessSwitch):
    """Real BMv2 ``simple_switch`` with the same arguments (no PFC: BMv2 has none)."""

    binary = ("simple_switch",)

    def __init__(self, name: str, **params: Any) -> None:
        if not shutil.which("simple_switch"):
            raise UserError("Bmv2Switch: simple_switch is not on PATH (install BMv2)")
        if params.get("pfc_ports"):
            raise UserError(f"switch {name}: BMv2 simple_switch has no PFC (pfc_ports given)")
        if params.get("pfc_thresholds") or params.get("port_speeds"):
            raise UserError(f"switch {name}: pfc_thresholds/port_speeds are fabemu-only options")
        if params.get("pfc_watchdog_ms") is not None:
            raise UserError(f"switch {name}: BMv2 simple_switch has no PFC watchdog")
        if params.get("ib_credits") is not None:
            raise UserError(
                f"switch {name}: BMv2 simple_switch has no link-level flow control (ib_credits)"
            )
        super().__init__(name, **params)

    def cli_commands(self, lines: Iterable[str]) -> list[str]:
        """Pipe the commands into ``simple_switch_CLI --thrift-port N``."""
        from emulator.target.control_client import command_lines
        from emulator.target.ops import simple_switch_has

        every = command_lines(lines)  # blank lines would repeat the last command
        keep = [simple_switch_has(c) for c in every]  # its clones stay at priority 0
        commands = [c for c, k in zip(every, keep) if k]
        text = "".join(c + "\n" for c in commands)
        res = subprocess.run(
            ["simple_switch_CLI", "--thrift-port", str(self.thrift_port)],
            input=text, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if res.returncode != 0:
            raise UserError(f"simple_switch_CLI failed on {self.name}: {res.stderr.strip()}")
        outputs = iter(split_cli_output(res.stdout, len(commands)))
        return [next(outputs) if k else "" for k in keep]
