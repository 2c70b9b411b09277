"""Line-oriented control socket of ``fabemu switch`` (our stand-in for BMv2's Thrift port).

TCP on 127.0.0.1 only. Each request line is one simple_switch_CLI command; each reply is
the command's output lines followed by a terminator line ``@@END ok`` or ``@@END error``:

    client: table_add MyIngress.fwd set_port 1 => 2\\n
    server: Adding entry to exact match table MyIngress.fwd\\n
            ...\\n
            @@END ok\\n

An output line that starts with ``@@`` is sent with one more ``@`` (the client strips it),
so output can never forge a terminator. Bad input (non-UTF-8 bytes, a line over
``MAX_LINE`` bytes, a command that fails or is unknown) gets an ``@@END error`` reply; the
server never dies of it. The server is non-blocking and lives in the caller's
``selectors`` loop (the switch process is single-threaded); every registration's
``data`` is a callback taking the event mask.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.errors import UserError

HOST = "127.0.0.1"
TERMINATOR = "@@END"
MAX_LINE = 64 * 1024  # bytes per command line
MAX_CLIENTS = 32
MAX_PENDING_OUTPUT = 4 * 1024 * 1024  # a client that never reads is disconnected

log = logging.getLogger(__name__)

Handler = Callable[[str], str]


def encode_reply(text: str, ok: bool) -> bytes:
    """Frame a command's output: lines (``@@`` escaped) then the terminator line."""
    lines = text.splitlines() if text else []
    body = "".join(("@" + ln if ln.startswith("@@") else ln) + "\n" for ln in lines)
    return (body + f"{TERMINATOR} {'ok' if ok else 'error'}\n").encode()


@dataclass
class _Client:
    sock: socket.socket
    inbuf: bytearray = field(default_factory=bytearray)
    outbuf: bytearray = field(default_factory=bytearray)
    discarding: bool = False  # inside an overlong line: drop bytes until the newline


class ControlServer:
    """Accepts clients on 127.0.0.1:``port`` and answers each line through ``handler``.

    ``handler(line)`` returns the output text; raising :class:`UserError` (or anything)
    turns into an error reply carrying the message.
    """

    def __init__(self, handler: Handler, port: int, selector: selectors.BaseSelector) -> None:
        self._handler = handler
        self._sel = selector
        self._clients: dict[int, _Client] = {}
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            lsock.bind((HOST, port))
        except OSError as exc:
            lsock.close()
            raise UserError(f"control port {HOST}:{port} unavailable: {exc.strerror}") from None
        lsock.listen(16)
        lsock.setblocking(False)
        self._lsock = lsock
        self.port: int = lsock.getsockname()[1]
        selector.register(lsock, selectors.EVENT_READ, self._on_accept)

    def close(self) -> None:
        """Close the listening socket and every client."""
        for fd in list(self._clients):
            self._drop(fd)
        self._sel.unregister(self._lsock)
        self._lsock.close()

    def _on_accept(self, _mask: int) -> None:
        try:
            sock, _addr = self._lsock.accept()
        except (BlockingIOError, InterruptedError):
            return
        if len(self._clients) >= MAX_CLIENTS:
            sock.close()
            return
        sock.setblocking(False)
        client = _Client(sock)
        self._clients[sock.fileno()] = client
        self._sel.register(sock, selectors.EVENT_READ, lambda m, c=client: self._on_client(c, m))

    def _drop(self, fd: int) -> None:
        client = self._clients.pop(fd, None)
        if client is None:
            return
        self._sel.unregister(client.sock)
        client.sock.close()

    def _on_client(self, client: _Client, mask: int) -> None:
        fd = client.sock.fileno()
        if mask & selectors.EVENT_WRITE:
            self._flush(client)
        if not mask & selectors.EVENT_READ or fd not in self._clients:
            return
        try:
            data = client.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(fd)
            return
        if not data:
            self._drop(fd)
            return
        self._feed(client, data)
        if fd in self._clients:
            self._flush(client)

    def _feed(self, client: _Client, data: bytes) -> None:
        client.inbuf += data
        while True:
            nl = client.inbuf.find(b"\n")
            if nl < 0:
                if len(client.inbuf) > MAX_LINE:
                    if not client.discarding:
                        client.outbuf += encode_reply(f"line longer than {MAX_LINE} bytes", False)
                    client.discarding = True
                    client.inbuf.clear()
                return
            raw = bytes(client.inbuf[:nl])
            del client.inbuf[: nl + 1]
            if client.discarding:  # the tail of an overlong line: already answered
                client.discarding = False
                continue
            if len(raw) > MAX_LINE:
                client.outbuf += encode_reply(f"line longer than {MAX_LINE} bytes", False)
                continue
            client.outbuf += self._answer(raw)
            if len(client.outbuf) > MAX_PENDING_OUTPUT:
                self._drop(client.sock.fileno())
                return

    def _answer(self, raw: bytes) -> bytes:
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            return encode_reply("command is not UTF-8 text", False)
        if "\x00" in line:
            return encode_reply("command contains a NUL byte", False)
        try:
            return encode_reply(self._handler(line), True)
        except UserError as exc:
            return encode_reply(f"Error: {exc}", False)
        except Exception as exc:  # a bug must not kill the switch; report it
            log.exception("control command failed: %r", line)
            return encode_reply(f"Error: internal error: {type(exc).__name__}: {exc}", False)

    def _flush(self, client: _Client) -> None:
        fd = client.sock.fileno()
        if client.outbuf:
            try:
                sent = client.sock.send(client.outbuf)
                del client.outbuf[:sent]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self._drop(fd)
                return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.outbuf else 0)
        self._sel.modify(client.sock, events, lambda m, c=client: self._on_client(c, m))


def dispatch(selector: selectors.BaseSelector, timeout: float | None) -> int:
    """Run one select round, calling each ready registration's callback; returns events."""
    events = selector.select(timeout)
    for key, mask in events:
        key.data(mask)
    return len(events)


class ThreadedControlServer:
    """A ControlServer on its own selector and thread (tests, embedding in other tools)."""

    def __init__(self, handler: Handler, port: int = 0) -> None:
        self._sel = selectors.DefaultSelector()
        self.server = ControlServer(handler, port, self._sel)
        self.port = self.server.port
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="control-socket", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            dispatch(self._sel, 0.05)

    def __enter__(self) -> ThreadedControlServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.server.close()
        self._sel.close()
