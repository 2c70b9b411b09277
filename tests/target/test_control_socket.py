"""Control socket (loopback, no root): framing, garbage input, and the client."""

from __future__ import annotations

import io
import socket
import sys

import pytest

from emulator.errors import UserError
from emulator.target import control_client
from emulator.target.control_client import run_commands, send_commands
from emulator.target.control_socket import MAX_LINE, ThreadedControlServer, encode_reply


def handler(line: str) -> str:
    words = line.split()
    if not words:
        return ""
    if words[0] == "echo":
        return " ".join(words[1:])
    if words[0] == "multi":
        return "line one\n@@END ok\nline three"
    if words[0] == "boom":
        raise ZeroDivisionError("bug")
    raise UserError(f"Unknown command {words[0]!r}")


@pytest.fixture
def server():
    with ThreadedControlServer(handler) as srv:
        yield srv


def raw_exchange(port: int, payload: bytes, n_replies: int) -> list[str]:
    """Send raw bytes; read until ``n_replies`` terminators came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(payload)
        data = b""
        while data.count(b"@@END ") < n_replies:
            chunk = s.recv(65536)
            assert chunk, f"server closed early; got {data!r}"
            data += chunk
    return data.decode().splitlines()


def test_binds_loopback_only(server: ThreadedControlServer) -> None:
    assert server.server._lsock.getsockname()[0] == "127.0.0.1"


def test_commands_round_trip(server: ThreadedControlServer) -> None:
    assert send_commands(server.port, ["echo hello world", "echo 2"]) == ["hello world", "2"]


def test_output_cannot_forge_terminator(server: ThreadedControlServer) -> None:
    [r] = run_commands(server.port, ["multi"])
    assert r.ok and r.output == "line one\n@@END ok\nline three"


def test_errors_are_replies_not_crashes(server: ThreadedControlServer) -> None:
    replies = run_commands(server.port, ["nope 1", "boom", "echo still alive"])
    assert [r.ok for r in replies] == [False, False, True]
    assert "Unknown command 'nope'" in replies[0].output
    assert "internal error: ZeroDivisionError" in replies[1].output
    assert replies[2].output == "still alive"


def test_binary_garbage_and_nul(server: ThreadedControlServer) -> None:
    lines = raw_exchange(server.port, b"\xff\xfe\x80garbage\nab\x00cd\necho ok\n", 3)
    assert lines == [
        "command is not UTF-8 text",
        "@@END error",
        "command contains a NUL byte",
        "@@END error",
        "ok",
        "@@END ok",
    ]


def test_overlong_line_is_rejected_and_server_continues(server: ThreadedControlServer) -> None:
    payload = b"echo " + b"x" * (MAX_LINE * 3) + b"\necho after\n"
    lines = raw_exchange(server.port, payload, 2)
    assert lines[0].startswith("line longer than") and lines[1] == "@@END error"
    assert lines[2:] == ["after", "@@END ok"]


def test_many_clients_and_abrupt_disconnects(server: ThreadedControlServer) -> None:
    for _ in range(40):  # connect and vanish mid-line
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.sendall(b"echo half a li")
    assert send_commands(server.port, ["echo fine"]) == ["fine"]


def test_blank_and_comment_lines_are_skipped_by_client(server: ThreadedControlServer) -> None:
    replies = run_commands(server.port, ["", "  ", "# comment", "echo x\n"])
    assert [r.command for r in replies] == ["echo x"]


def test_encode_reply_escapes() -> None:
    assert encode_reply("", True) == b"@@END ok\n"
    assert encode_reply("@@x\nfine", False) == b"@@@x\nfine\n@@END error\n"


def test_client_unreachable_port_is_user_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connection refused
        with pytest.raises(UserError, match="cannot reach"):
            send_commands(port, ["echo"])


def test_port_in_use_is_user_error(server: ThreadedControlServer) -> None:
    with pytest.raises(UserError, match="unavailable"):
        ThreadedControlServer(handler, server.port)


def test_cli_main_reads_stdin(
    server: ThreadedControlServer, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("echo a\nbad\n"))
    assert control_client.main(["--thrift-port", str(server.port)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "RuntimeCmd: a" and "Unknown command" in out[1]
    monkeypatch.setattr(sys, "stdin", io.StringIO("bad\n"))
    assert control_client.main(["--thrift-port", str(server.port), "--strict"]) == 1


def test_persistent_connection_is_a_command_sink(server: ThreadedControlServer) -> None:
    from emulator.target.control_client import ControlConnection

    with ControlConnection(server.port) as conn:
        assert conn.cli("echo one") == "one"
        assert conn.cli("# comment") == ""
        with pytest.raises(UserError, match="Unknown command"):
            conn.cli("nope")
        assert conn.cli("echo two") == "two"
