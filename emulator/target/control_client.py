"""Client of the ``fabemu switch`` control socket, and a simple_switch_CLI look-alike.

    python -m emulator.target.control_client --thrift-port 9090 < commands.txt

mirrors ``simple_switch_CLI --thrift-port 9090 < commands.txt``: every non-blank,
non-comment line is sent as one command and its output printed. Like simple_switch_CLI the
exit status is 0 even when commands fail, unless ``--strict`` is given.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from emulator.errors import UserError
from emulator.target.control_socket import HOST, TERMINATOR


@dataclass(frozen=True)
class CommandReply:
    """One command's outcome: its output text and whether the switch accepted it."""

    command: str
    ok: bool
    output: str


def command_lines(lines: Iterable[str]) -> list[str]:
    """The commands among ``lines``: stripped of newlines, blank and ``#`` lines dropped."""
    out = []
    for line in lines:
        text = line.rstrip("\r\n")
        if "\n" in text or "\r" in text:
            raise UserError(f"a command must be one line: {text!r}")
        if text.strip() and not text.lstrip().startswith("#"):
            out.append(text)
    return out


def run_commands(
    port: int, lines: Iterable[str], host: str = HOST, timeout: float = 30.0
) -> list[CommandReply]:
    """Send each command line to the switch on ``host:port``; one reply per command."""
    commands = command_lines(lines)
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise UserError(f"cannot reach the switch control port {host}:{port}: {exc}") from None
    replies: list[CommandReply] = []
    with sock, sock.makefile("rwb") as stream:
        for cmd in commands:
            stream.write(cmd.encode() + b"\n")
            stream.flush()
            body: list[str] = []
            while True:
                raw = stream.readline()
                if not raw:
                    raise UserError(f"switch on port {port} closed the connection during {cmd!r}")
                text = raw.decode("utf-8", "replace").rstrip("\n")
                if text.startswith(TERMINATOR + " "):
                    ok = text[len(TERMINATOR) + 1 :] == "ok"
                    break
                body.append(text[1:] if text.startswith("@@@") else text)
            replies.append(CommandReply(cmd, ok, "\n".join(body)))
    return replies


class ControlConnection:
    """A persistent connection to one switch; ``cli(line)`` like ``Switch.cli``.

    A rejected command raises :class:`UserError` with the switch's message, so this is a
    ``CommandSink`` for :func:`emulator.control.apply.apply_commands`.
    """

    def __init__(self, port: int, host: str = HOST, timeout: float = 30.0) -> None:
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise UserError(f"cannot reach the switch control port {host}:{port}: {exc}") from None
        self._stream = self._sock.makefile("rwb")
        self.port = port

    def cli(self, line: str) -> str:
        """Run one command; its output (UserError if the switch rejected it)."""
        [cmd] = command_lines([line]) or [""]
        if not cmd:
            return ""
        self._stream.write(cmd.encode() + b"\n")
        self._stream.flush()
        body: list[str] = []
        while True:
            raw = self._stream.readline()
            if not raw:
                raise UserError(f"switch on port {self.port} closed the connection")
            text = raw.decode("utf-8", "replace").rstrip("\n")
            if text.startswith(TERMINATOR + " "):
                break
            body.append(text[1:] if text.startswith("@@@") else text)
        output = "\n".join(body)
        if text[len(TERMINATOR) + 1 :] != "ok":
            raise UserError(output or f"command failed: {cmd}")
        return output

    def close(self) -> None:
        """Close the connection."""
        self._stream.close()
        self._sock.close()

    def __enter__(self) -> ControlConnection:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def send_commands(port: int, lines: Iterable[str], host: str = HOST) -> list[str]:
    """Send command lines to the switch on ``port``; the output text of each command."""
    return [r.output for r in run_commands(port, lines, host)]


def main(argv: Sequence[str] | None = None) -> int:
    """simple_switch_CLI-compatible entry point: commands on stdin, output on stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m emulator.target.control_client",
        description="Send simple_switch_CLI commands (stdin) to a fabemu switch.",
    )
    parser.add_argument("--thrift-port", type=int, default=9090, help="control port (9090)")
    parser.add_argument("--thrift-ip", default=HOST, help="control address (127.0.0.1)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any command fails")
    args = parser.parse_args(argv)
    try:
        replies = run_commands(args.thrift_port, sys.stdin, host=args.thrift_ip)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for r in replies:
        print(f"RuntimeCmd: {r.output}" if r.output else "RuntimeCmd: ")
    return 1 if args.strict and not all(r.ok for r in replies) else 0


if __name__ == "__main__":
    raise SystemExit(main())
