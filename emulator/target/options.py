"""Command-line options of ``fabemu switch``: simple_switch's flags, then target options.

The same argument list starts either binary (``simple_switch`` or ``fabemu switch``)::

    [-i PORT@IFACE]... [--thrift-port N] [--device-id N] [--log-console] [--log-file F]
    [-L LEVEL] [--pcap [DIR]] [--nanolog ADDR] PROG.json
    -- [--priority-queues N] [--pfc-ports 1,2] [--port-speed PORT@BPS]... [--pfc-consume]
       [--pfc-xoff PKTS [--pfc-xon PKTS]] [--line-rate] [--ib-credits BYTES]

``--nanolog``, ``--notifications-addr`` and ``--debugger`` are accepted and ignored
(noted in the log). ``--pfc-ports``, ``--port-speed`` and ``--pfc-consume`` are ours (BMv2
has no PFC); ``--pfc-consume`` stops PFC frames at the "MAC" instead of also handing them
to the P4 parser (the switch core's default). ``--pfc-xoff``/``--pfc-xon`` make the PFC
ports also *generate* PFC (pause upstream when that many of their arrivals are queued).
``--line-rate`` makes every egress port send at its ``--port-speed`` (TM serialisation), so
queues, PFC and ECN build up as on a real link. ``--ib-credits BYTES`` turns on InfiniBand
credit-based flow control per VL (a receive buffer of BYTES per port and VL; credit updates
are flow control packets on the links, :mod:`emulator.ib.linkfc`).
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass, field

from emulator.errors import UserError

DEFAULT_THRIFT_PORT = 9090
DEFAULT_SPEED_BPS = 10e9
MAX_PORT = 510  # 511 is the drop port

_LEVELS = {
    "trace": logging.DEBUG,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "off": logging.CRITICAL + 10,
}


@dataclass(frozen=True)
class SwitchOptions:
    """Everything ``fabemu switch`` needs to start, validated."""

    program: str
    interfaces: tuple[tuple[int, str], ...] = ()
    thrift_port: int = DEFAULT_THRIFT_PORT
    device_id: int = 0
    log_console: bool = False
    log_file: str | None = None
    log_level: int = logging.DEBUG
    pcap_dir: str | None = None
    priority_queues: int = 1
    pfc_ports: tuple[int, ...] = ()
    port_speeds: tuple[tuple[int, float], ...] = ()
    pfc_consume: bool = False
    pfc_xoff: int | None = None
    pfc_xon: int = 0
    line_rate: bool = False
    ib_credits: int | None = None  # InfiniBand receive buffer per (port, VL), bytes
    #: PFC watchdog (ms): a class paused without a break this long stops honouring pauses
    pfc_watchdog_ms: float | None = None
    notes: tuple[str, ...] = field(default=())

    def speed(self, port: int) -> float:
        """Configured speed of ``port`` in bit/s (default 10 Gb/s)."""
        return dict(self.port_speeds).get(port, DEFAULT_SPEED_BPS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register simple_switch's flags and the ``--``-separated target options."""
    parser.add_argument(
        "-i", "--interface", action="append", default=[], metavar="PORT@IFACE",
        help="attach interface IFACE as switch port PORT (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--thrift-port",
        type=int,
        default=DEFAULT_THRIFT_PORT,
        help="TCP port of the control socket on 127.0.0.1 (default 9090)",
    )
    parser.add_argument("--device-id", type=int, default=0, help="device id (default 0)")
    parser.add_argument("--log-console", action="store_true", help="log to stdout")
    parser.add_argument("--log-file", metavar="PATH", help="log to this file")
    parser.add_argument(
        "-L",
        "--log-level",
        default="trace",
        choices=sorted(_LEVELS),
        help="log level when logging is on (default trace)",
    )
    parser.add_argument(
        "--pcap",
        nargs="?",
        const=".",
        metavar="DIR",
        help="write <iface>_in.pcap / <iface>_out.pcap into DIR (default .)",
    )
    parser.add_argument("--nanolog", metavar="ADDR", help="accepted and ignored")
    parser.add_argument("--notifications-addr", metavar="ADDR", help="accepted and ignored")
    parser.add_argument("--debugger", action="store_true", help="accepted and ignored")
    parser.add_argument("program", nargs="?", metavar="PROG.json", help="BMv2 JSON program")
    parser.add_argument("target_options", nargs=argparse.REMAINDER,
                        help="after --: --priority-queues N, --pfc-ports 1,2, "
                        "--port-speed PORT@BPS, --pfc-consume, --pfc-xoff N, --pfc-xon N, --line-rate, --ib-credits BYTES")  # fmt: skip


def _port(text: str, what: str) -> int:
    try:
        port = int(text, 0)
    except ValueError:
        raise UserError(f"{what}: port must be an integer, got {text!r}") from None
    if not 0 <= port <= MAX_PORT:
        raise UserError(f"{what}: port must be 0..{MAX_PORT}, got {port}")
    return port


def _interfaces(specs: list[str]) -> tuple[tuple[int, str], ...]:
    out: list[tuple[int, str]] = []
    for spec in specs:
        port_text, sep, ifname = spec.partition("@")
        if not sep or not ifname:
            raise UserError(f"-i {spec}: expected PORT@IFACE, e.g. 1@veth1")
        if len(ifname) > 15 or "/" in ifname or ifname.strip() != ifname:
            raise UserError(f"-i {spec}: {ifname!r} is not a valid interface name")
        port = _port(port_text, f"-i {spec}")
        if any(p == port for p, _ in out):
            raise UserError(f"-i {spec}: port {port} given twice")
        if any(n == ifname for _, n in out):
            raise UserError(f"-i {spec}: interface {ifname} given twice")
        out.append((port, ifname))
    return tuple(out)


def _target_parser() -> argparse.ArgumentParser:
    tp = argparse.ArgumentParser(prog="fabemu switch ... --", add_help=False, exit_on_error=False)
    tp.add_argument("--priority-queues", type=int, default=1)
    tp.add_argument("--pfc-ports", default="")
    tp.add_argument("--port-speed", action="append", default=[])
    tp.add_argument("--pfc-consume", action="store_true")
    tp.add_argument("--pfc-xoff", type=int, default=None)
    tp.add_argument("--pfc-xon", type=int, default=None)
    tp.add_argument("--line-rate", action="store_true")
    tp.add_argument("--ib-credits", type=int, default=None)
    tp.add_argument("--pfc-watchdog-ms", type=float, default=None)
    return tp


def options_from_args(args: argparse.Namespace) -> SwitchOptions:
    """Validate parsed arguments into :class:`SwitchOptions` (UserError on bad input)."""
    program, pcap_dir = args.program, args.pcap
    if program is None and pcap_dir and pcap_dir.endswith(".json"):
        program, pcap_dir = pcap_dir, "."  # "--pcap prog.json": --pcap took no directory
    if program is None:
        raise UserError("missing the program: fabemu switch [options] PROG.json")
    rest = list(args.target_options)
    if rest and rest[0] == "--":
        rest = rest[1:]
    try:
        tns, unknown = _target_parser().parse_known_args(rest)
    except argparse.ArgumentError as exc:
        raise UserError(f"target option: {exc}") from None
    if unknown:
        raise UserError(f"unknown target option(s) after --: {' '.join(unknown)}")
    if not 1 <= tns.priority_queues <= 32:
        raise UserError(f"--priority-queues must be 1..32, got {tns.priority_queues}")
    pfc = tuple(_port(p.strip(), "--pfc-ports") for p in tns.pfc_ports.split(",") if p.strip())
    speeds: list[tuple[int, float]] = []
    for spec in tns.port_speed:
        port_text, sep, bps = spec.partition("@")
        try:
            speed = float(bps)
        except ValueError:
            speed = -1.0
        if not sep or not speed > 0:
            raise UserError(f"--port-speed {spec}: expected PORT@BPS with BPS > 0, e.g. 1@25e9")
        speeds.append((_port(port_text, f"--port-speed {spec}"), speed))
    xoff, xon = tns.pfc_xoff, tns.pfc_xon
    if xoff is None and xon is not None:
        raise UserError("--pfc-xon needs --pfc-xoff")
    xon = 0 if xon is None else xon
    if xoff is not None and not (0 <= xon < xoff):
        raise UserError(f"--pfc-xoff/--pfc-xon need 0 <= xon < xoff, got {xoff}/{xon}")
    if xoff is not None and not pfc:
        raise UserError("--pfc-xoff needs --pfc-ports (the ports that generate PFC)")
    if tns.ib_credits is not None and tns.pfc_ports.strip():
        raise UserError("--ib-credits and --pfc-ports exclude each other (IB has no PFC)")
    wd = tns.pfc_watchdog_ms
    if wd is not None and not (wd > 0 and pfc):
        raise UserError(f"--pfc-watchdog-ms needs a time > 0 and --pfc-ports, got {wd}")
    if not 0 < args.thrift_port < 65536:
        raise UserError(f"--thrift-port must be 1..65535, got {args.thrift_port}")
    notes = []
    for flag in ("nanolog", "notifications_addr"):
        if getattr(args, flag, None):
            notes.append(f"--{flag.replace('_', '-')} is accepted but ignored by fabemu switch")
    if getattr(args, "debugger", False):
        notes.append("--debugger is accepted but ignored by fabemu switch")
    return SwitchOptions(
        program=program,
        interfaces=_interfaces(args.interface),
        thrift_port=args.thrift_port,
        device_id=args.device_id,
        log_console=args.log_console,
        log_file=args.log_file,
        log_level=_LEVELS[args.log_level],
        pcap_dir=pcap_dir,
        priority_queues=tns.priority_queues,
        pfc_ports=pfc,
        port_speeds=tuple(speeds),
        pfc_consume=tns.pfc_consume,
        pfc_xoff=xoff,
        pfc_xon=xon,
        line_rate=tns.line_rate,
        ib_credits=tns.ib_credits,
        pfc_watchdog_ms=wd,
        notes=tuple(notes),
    )
