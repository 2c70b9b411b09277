"""``fabemu switch``: run a BMv2 JSON program on veths, with simple_switch's command line.

    fabemu switch -i 1@s1-eth1 -i 2@s1-eth2 --thrift-port 9090 [--log-console]
                  [--log-file F] [--pcap DIR] [--device-id N] prog.json
                  -- --priority-queues 8 --pfc-ports 1,2 --port-speed 1@25e9 [--pfc-consume]
                     [--pfc-watchdog-ms 200]

One thread, one ``selectors`` loop::

    raw sockets ─rx─► Switch.receive ─► TM queues ─(timer = min transmit_ready)─►
    Switch.transmit ─tx─► raw sockets          control socket (127.0.0.1:thrift-port)
                                               ─► simple_switch_CLI commands

SIGTERM / SIGINT end the loop cleanly (sockets, pcaps and the control port are closed).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import selectors
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.target.control_socket import ControlServer, dispatch
from emulator.target.impair import Impairment
from emulator.target.options import SwitchOptions, options_from_args
from emulator.target.options import add_arguments as _add_arguments
from emulator.target.pcap import PcapWriter
from emulator.target.program import load_json
from emulator.target.rawport import RawPort
from emulator.target.switch import Switch
from emulator.target.tm import TrafficManager
from emulator.vocab import EtherType
from emulator.vocab.pfc import decode_pfc

_MAC_CONTROL = EtherType.MAC_CONTROL.to_bytes(2, "big")

HELP = "Run a P4 program (BMv2 JSON) on the built-in target, simple_switch-compatible."
RX_BATCH = 64  # frames read per socket per wake-up
TX_BATCH = 256  # frames sent per port per loop round (keeps receive responsive)
MAX_SLEEP_S = 0.5
PFC_EVENTS_KEPT = 10_000

log = logging.getLogger("fabemu.switch")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """simple_switch's options plus target options after ``--``."""
    _add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``fabemu switch``."""
    opts = options_from_args(args)
    _setup_logging(opts)
    return SwitchProcess(opts).run()


def _setup_logging(opts: SwitchOptions) -> None:
    log.handlers.clear()
    log.propagate = False
    fmt = logging.Formatter("[%(asctime)s.%(msecs)03d] [%(levelname)s] %(message)s", "%H:%M:%S")
    handlers: list[logging.Handler] = []
    if opts.log_console:
        handlers.append(logging.StreamHandler(sys.stdout))
    if opts.log_file:
        try:
            handlers.append(logging.FileHandler(opts.log_file))
        except OSError as exc:
            raise UserError(f"--log-file {opts.log_file}: {exc.strerror}") from None
    if not handlers:  # still report errors and notes on stderr
        handlers.append(logging.StreamHandler(sys.stderr))
        log.setLevel(logging.WARNING)
    else:
        log.setLevel(opts.log_level)
    for h in handlers:
        h.setFormatter(fmt)
        log.addHandler(h)


def load_program(path: str) -> dict[str, Any]:
    """Read a BMv2 JSON file; a clear UserError (ProgramError) if it is missing or not JSON."""
    return load_json(Path(path))


class SwitchProcess:
    """The single-threaded I/O loop around one :class:`emulator.target.switch.Switch`."""

    def __init__(
        self, opts: SwitchOptions, switch_factory: Callable[..., Any] | None = None
    ) -> None:
        self.opts = opts
        self._t0 = time.monotonic_ns()
        if switch_factory is None:
            switch_factory = Switch
        speeds = {p: opts.speed(p) for p, _ in opts.interfaces}
        extra: dict[str, Any] = {}
        if log.isEnabledFor(logging.DEBUG):  # pipeline trace lines into our log
            extra["log"] = log.debug
        if opts.pfc_consume:  # PFC frames stop at the MAC, the P4 parser never sees them
            extra["pfc_to_pipeline"] = False
        if opts.line_rate:  # egress ports send at their speed: queues build as on a wire
            extra["tm"] = TrafficManager(self.clock, opts.priority_queues, serialize=True)
        self.switch = switch_factory(
            load_program(opts.program),
            device_id=opts.device_id,
            priority_queues=opts.priority_queues,
            clock=self.clock,
            port_speed_bps=speeds,
            **extra,
        )
        for port, speed in speeds.items():
            self.switch.add_port(port, speed)
        for port in opts.pfc_ports:
            self.switch.tm.set_pfc(port, True)
            if opts.pfc_xoff is not None:
                self.switch.tm.set_pfc_thresholds(port, opts.pfc_xoff, opts.pfc_xon)
        if opts.pfc_watchdog_ms is not None:
            self.switch.tm.pfc.set_watchdog(round(opts.pfc_watchdog_ms * 1e6))
        self.ports: dict[int, RawPort] = {}
        self.pcaps: dict[tuple[int, str], PcapWriter] = {}
        self._active: set[int] = set()
        self._stop = False
        self.rx_errors = 0
        self.pfc_tx: dict[int, int] = {}
        #: PFC frames sent: (CLOCK_MONOTONIC ns, port, class, quanta), most recent kept
        self.pfc_events: deque[tuple[int, int, int, int]] = deque(maxlen=PFC_EVENTS_KEPT)
        #: per egress port: seeded loss / corruption of data frames (``set_port_impair``)
        self.impair: dict[int, Impairment] = {}
        self.impaired: dict[int, list[int]] = {}  # port -> [lost, corrupted] so far
        self._debug = False
        self.credits = self._credits() if opts.ib_credits is not None else None

    def _credits(self) -> Any:
        """InfiniBand VL credits on every port (``--ib-credits``): FCPs on the links."""
        from emulator.ib.linkfc import SwitchLinkCredits, port_mac

        assert self.opts.ib_credits is not None
        tm = self.switch.tm
        macs = {p: port_mac(ifname) for p, ifname in self.opts.interfaces}
        credits = SwitchLinkCredits(tm, self.opts.ib_credits, macs, self.clock)
        tm.add_flow_control(credits)
        tm.on_buffer_release = credits.on_release
        tm.set_queue_depth(1 << 20)  # the credits bound each ingress port's buffer
        return credits

    def clock(self) -> int:
        """ns since the process started (the switch's time base)."""
        return time.monotonic_ns() - self._t0

    # -- control commands ----------------------------------------------------------------

    def command(self, line: str) -> str:
        """Answer one control-socket line: a few process-level commands, else Switch.cli."""
        words = line.split()
        if not words:
            return ""
        name = words[0]
        if name == "show_ports":
            rows = ["port # | iface name | status | extra info"]
            rows += [f"{p:>6} | {rp.ifname:>10} | UP | " for p, rp in sorted(self.ports.items())]
            return "\n".join(rows)
        if name == "set_pfc":
            if len(words) != 3 or words[2] not in ("on", "off") or not words[1].isdigit():
                raise UserError("usage: set_pfc <port> on|off")
            self.switch.tm.set_pfc(int(words[1]), words[2] == "on")
            return ""
        if name == "set_pfc_thresholds":
            nums = words[1:]
            if len(nums) not in (2, 3) or not all(w.isdigit() for w in nums):
                raise UserError("usage: set_pfc_thresholds <port> <xoff> [<xon>]  (xoff 0: off)")
            port, xoff = int(nums[0]), int(nums[1])
            xon = int(nums[2]) if len(nums) == 3 else 0
            self.switch.tm.set_pfc_thresholds(port, xoff or None, xon)
            return ""
        if name == "set_port_impair":
            return self._set_impair(words[1:])
        if name == "set_port_link":  # the runtime took the port's link down / up
            if len(words) != 3 or words[2] not in ("up", "down") or not words[1].isdigit():
                raise UserError("usage: set_port_link <port> up|down")
            if self.credits is not None:
                self.credits.set_link(int(words[1]), words[2] == "up")
            return ""
        if name == "show_stats_json":
            return json.dumps(self.stats())
        if name == "show_tm_stats":
            return "\n".join(
                f"port {p} prio {q}: enq {s.enqueued} deq {s.dequeued} drop {s.dropped} "
                f"pause_frames {s.pause_frames} paused_ns {s.paused_ns} "
                f"xoff_sent {s.pfc_xoff_sent} xon_sent {s.pfc_xon_sent}"
                for (p, q), s in self.switch.tm.stats().items()
            )
        return str(self.switch.cli(line))

    def _set_impair(self, args: list[str]) -> str:
        """``set_port_impair <port> loss|corrupt <probability> <seed>`` or ``<port> off``."""
        usage = "usage: set_port_impair <port> loss|corrupt <probability 0..1> <seed> | <port> off"
        if not args or not args[0].isdigit() or int(args[0]) not in self.ports:
            raise UserError(usage)
        port = int(args[0])
        if args[1:] == ["off"]:
            imp = self.impair.pop(port, None)
            if imp is not None:
                self.impaired[port] = [imp.lost, imp.corrupted]
            return ""
        try:
            mode, p, seed = args[1], float(args[2]), int(args[3])
        except (IndexError, ValueError):
            raise UserError(usage) from None
        if mode not in ("loss", "corrupt") or not 0 <= p <= 1 or len(args) != 4:
            raise UserError(usage)
        self.impair[port] = Impairment(mode, p, random.Random(seed), fault=-1)
        return ""

    def _impaired(self, port: int) -> tuple[int, int]:
        """(lost, corrupted) data frames on ``port`` so far, current impairment included."""
        lost, bad = self.impaired.get(port, [0, 0])
        imp = self.impair.get(port)
        return (lost + imp.lost, bad + imp.corrupted) if imp else (lost, bad)

    def _watchdog_stats(self) -> dict[str, int]:
        """PFC watchdog storms declared and pause frames ignored in them, over every class."""
        pfc = self.switch.tm.pfc
        counts = [pfc.storms(p, q) for p in self.ports for q in range(8)]
        return {
            "storms": sum(s for s, _ in counts),
            "ignored_pauses": sum(i for _, i in counts),
        }

    def stats(self) -> dict[str, Any]:
        """Machine-readable counters: per port (rx/tx), per queue (TM), the switch's own."""
        ports = {
            str(p): {"iface": rp.ifname, "rx_pkts": rp.rx, "rx_bytes": rp.rx_bytes,
                     "tx_pkts": rp.tx, "tx_bytes": rp.tx_bytes, "tx_errors": rp.tx_errors,
                     "pfc_tx": self.pfc_tx.get(p, 0), "impaired_lost": self._impaired(p)[0],
                     "impaired_corrupted": self._impaired(p)[1]}
            for p, rp in sorted(self.ports.items())
        }  # fmt: skip
        queues = {
            f"{p}:{q}": {
                "enqueued": s.enqueued, "dequeued": s.dequeued, "dropped": s.dropped,
                "depth": self.switch.tm.depth(p, q), "pause_frames": s.pause_frames,
                "paused_ns": s.paused_ns, "pfc_xoff_sent": s.pfc_xoff_sent,
                "pfc_xon_sent": s.pfc_xon_sent,
            }
            for (p, q), s in self.switch.tm.stats().items()
        }  # fmt: skip
        own = getattr(self.switch, "stats", {})
        extra = {} if self.credits is None else {"credits": self.credits.stats(self.clock())}
        if self.opts.pfc_watchdog_ms is not None:
            extra["pfc_watchdog"] = self._watchdog_stats()
        return extra | {"ports": ports, "queues": queues, "switch": dict(own) if isinstance(own, dict) else {},
                "rx_errors": self.rx_errors, "uptime_ns": self.clock(),
                "monotonic_ns": time.monotonic_ns(), "pfc_events": list(self.pfc_events)}  # fmt: skip

    # -- data path -----------------------------------------------------------------------

    def _on_rx(self, rp: RawPort) -> None:
        pcap = self.pcaps.get((rp.port, "in"))
        for _ in range(RX_BATCH):
            frame = rp.recv()
            if frame is None:
                return
            if pcap:
                pcap.write(frame)
            if self._debug:
                log.debug("port %d: received %d bytes", rp.port, len(frame))
            try:
                if self.credits is None:
                    out = self.switch.receive(rp.port, frame)
                elif self.switch.tm.on_control_frame(rp.port, frame):
                    continue  # an FCP: credits from the peer
                else:
                    out = self.credits.receive(rp.port, frame, self.switch.receive)
            except Exception:  # a pipeline bug must not take the switch down
                self.rx_errors += 1
                log.exception("port %d: error processing a %d-byte frame", rp.port, len(frame))
                continue
            if out:
                self._active.update(out)

    def _send_control(self) -> None:
        """Send PFC frames (generated or refreshed) and due IB flow control ahead of data."""
        tm = self.switch.tm
        if self.credits is not None:
            for port, frame in self.credits.due(self.clock()):
                if (rp := self.ports.get(port)) is not None:
                    self._tx(rp, frame)
        tm.fire_control_timers()  # pause refreshes due now join the control queues
        for port in tm.control_pending():
            rp = self.ports.get(port)
            while (frame := tm.pop_control_frame(port)) is not None:
                if rp is not None:
                    self._tx(rp, frame)

    def _tx(self, rp: RawPort, frame: bytes) -> None:
        """Put one frame on the wire: pcap, PFC accounting, send."""
        pcap = self.pcaps.get((rp.port, "out"))
        if pcap:
            pcap.write(frame)
        if frame[12:14] == _MAC_CONTROL:
            pfc = decode_pfc(frame)
            if pfc is not None:
                self.switch.tm.note_sent(rp.port, frame)  # arms/stops the pause refresh
                self.pfc_tx[rp.port] = self.pfc_tx.get(rp.port, 0) + 1
                now = time.monotonic_ns()
                for cls in pfc.paused_classes():
                    self.pfc_events.append((now, rp.port, cls, pfc.quanta[cls]))
        elif (imp := self.impair.get(rp.port)) is not None:
            impaired = imp(frame)
            if impaired is None:
                return  # lost on the wire (counted: impaired_lost)
            frame = impaired
        rp.send(frame)

    def _drain(self) -> int | None:
        """Send what the TM releases now; the earliest future release time, if any."""
        self._send_control()
        next_t: int | None = None
        for port in list(self._active):
            rp = self.ports.get(port)
            for _ in range(TX_BATCH):
                t = self.switch.transmit_ready(port)
                if t is None:
                    self._active.discard(port)
                    break
                if t > self.clock():
                    next_t = t if next_t is None else min(next_t, t)
                    break
                frame = self.switch.transmit(port)
                if frame is None or rp is None:  # dropped in egress / port without iface
                    continue
                if self._debug:
                    log.debug("port %d: transmitting %d bytes", port, len(frame))
                self._tx(rp, frame)
            else:
                next_t = self.clock()  # batch limit hit: come back at once
        # egress can enqueue too (E2E clones such as a PFC XON, recirculation): pick up every
        # port that has something queued, not only those that received()'s output touched
        for port in self.ports:
            if port not in self._active and (t := self.switch.transmit_ready(port)) is not None:
                self._active.add(port)
                next_t = t if next_t is None else min(next_t, t)
        self._send_control()
        if self.credits is not None and (due := self.credits.next_due()) is not None:
            next_t = due if next_t is None else min(next_t, due)
        if (due := self.switch.tm.control_timer()) is not None:
            next_t = due if next_t is None else min(next_t, due)
        return next_t

    # -- lifecycle -----------------------------------------------------------------------

    def _open(self, sel: selectors.BaseSelector) -> None:
        for port, ifname in self.opts.interfaces:
            rp = RawPort(port, ifname)
            self.ports[port] = rp
            sel.register(rp.sock, selectors.EVENT_READ, lambda _m, rp=rp: self._on_rx(rp))
            if self.opts.pcap_dir is not None:
                d = Path(self.opts.pcap_dir)
                try:
                    d.mkdir(parents=True, exist_ok=True)
                    for way in ("in", "out"):
                        self.pcaps[(port, way)] = PcapWriter(d / f"{ifname}_{way}.pcap")
                except OSError as exc:
                    raise UserError(f"--pcap {d}: {exc.strerror}") from None
            log.info("Adding interface %s as port %d", ifname, port)

    def run(self) -> int:
        """Serve until SIGTERM/SIGINT; returns the exit status (0)."""
        self._debug = log.isEnabledFor(logging.DEBUG)
        sel = selectors.DefaultSelector()
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        old_handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
        old_wakeup = signal.set_wakeup_fd(wake_w.fileno())
        for s in old_handlers:
            signal.signal(s, self._on_signal)
        server = None
        try:
            self._open(sel)
            server = ControlServer(self.command, self.opts.thrift_port, sel)
            sel.register(wake_r, selectors.EVENT_READ, lambda _m: wake_r.recv(4096))
            for note in self.opts.notes:
                log.warning("%s", note)
            log.info("Control socket listening on 127.0.0.1:%d", server.port)
            while not self._stop:
                next_t = self._drain()
                timeout = MAX_SLEEP_S
                if next_t is not None:
                    timeout = min(MAX_SLEEP_S, max(0.0, (next_t - self.clock()) / 1e9))
                dispatch(sel, timeout)
            self._drain()
        finally:
            if server is not None:
                server.close()
            for rp in self.ports.values():
                rp.close()
            for pw in self.pcaps.values():
                pw.close()
            signal.set_wakeup_fd(old_wakeup)
            for s, h in old_handlers.items():
                signal.signal(s, h)
            sel.close()
            wake_r.close()
            wake_w.close()
        for port, rp in sorted(self.ports.items()):
            log.info(
                "port %d (%s): rx %d tx %d tx_errors %d",
                port,
                rp.ifname,
                rp.rx,
                rp.tx,
                rp.tx_errors,
            )
        return 0

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._stop = True
