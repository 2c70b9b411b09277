"""Run one host's RNIC + workload ranks on a real interface (Mininet host / netns).

    python -m emulator.traffic.rnic_process CONFIG.json

The RNIC object is driven by the host's CLOCK_MONOTONIC (shared by all network namespaces,
so CTS latencies measured across processes are meaningful) and talks through an AF_PACKET
raw socket bound to ``iface``. The run is bounded: it stops when the workload is done (after
a short linger for final ACKs), after ``duration_s``, or after ``max_packets`` frames
sent+received. At exit it writes its counters and records to ``out``.

Config keys: host, iface, mac, ip, gateway_mac, ips {host: ip}, workload {see
:func:`emulator.traffic.workloads.workload_from_dict`}, out, and optional rnic {RnicConfig
fields; dcqcn / qos as nested mappings}, seed, conn_id_base, duration_s (10), max_packets
(1e6), start_at_ns (monotonic ns at which the ranks start; lets all hosts begin together),
start_file + ready_file (a start barrier: the process writes ready_file once its socket is
open, then waits for start_file, which holds start_at_ns: no host starts before every
process listens, however slowly they started),
linger_s (0.2), framing (``IbFraming.to_dict()``: InfiniBand framing; default RoCEv2),
ib_credits (bytes of receive buffer per VL: InfiniBand credit flow control with the switch,
:mod:`emulator.ib.linkfc`), impair_file (the host end of a loss / corrupt fault, read on
SIGHUP: :mod:`emulator.traffic.host_faults`). :func:`process_config` builds one from a
topology host. The report also carries ``events``: when retransmissions and timeouts happened.
"""

from __future__ import annotations

import errno
import json
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.traffic.dcqcn import DcqcnConfig
from emulator.traffic.host_faults import EventLog, HostImpair, impair_file
from emulator.traffic.qos import TrafficClassPlan
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.traffic.start_barrier import await_start, ready_file
from emulator.traffic.workloads import Deployment, workload_from_dict
from emulator.vocab import UDP_PORT_ROCEV2
from emulator.vocab.pfc import encode_pfc

#: a stuck host's PFC storm (as emulator.faults.inject sends it in virtual time)
STORM_PERIOD_NS = 1_000_000
STORM_QUANTA = 0xFFFF

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
_MAX_SLEEP_S = 0.001


def process_config(
    host: Any,
    iface: str,
    ips: Mapping[str, str],
    workload: Mapping[str, Any],
    out: str,
    *,
    rnic: Mapping[str, Any] | None = None,
    start_at_ns: int | None = None,
    duration_s: float = 10.0,
    max_packets: int = 1_000_000,
    seed: int = 0,
    conn_id_base: int = 0,
    framing: Mapping[str, Any] | None = None,
    ib_credits: int | None = None,
    start_file: str | None = None,
) -> dict[str, Any]:
    """The JSON config for ``host`` (a topology HostNode or anything with name/mac/ip/gateway_mac)."""
    cfg: dict[str, Any] = {
        "host": host.name,
        "iface": iface,
        "mac": host.mac,
        "ip": host.ip,
        "gateway_mac": host.gateway_mac,
        "ips": dict(ips),
        "workload": dict(workload),
        "out": out,
        "rnic": dict(rnic or {}),
        "duration_s": duration_s,
        "max_packets": max_packets,
        "seed": seed,
        "conn_id_base": conn_id_base,
    }
    rate = getattr(getattr(host, "port", None), "rate_bps", None)
    if rate:  # the RNIC serialises at its own host link's rate, as in virtual time
        cfg["rnic"]["link_bps"] = float(rate)
    if start_at_ns is not None:
        cfg["start_at_ns"] = start_at_ns
    if start_file is not None:
        cfg["start_file"], cfg["ready_file"] = start_file, ready_file(out)
    cfg["impair_file"] = impair_file(out)
    if framing is not None:
        cfg["framing"] = dict(framing)
    if ib_credits is not None:
        cfg["ib_credits"] = int(ib_credits)
    return cfg


def _sub(cls: type, value: Any, where: str) -> Any:
    """A frozen settings dataclass from a mapping of its fields (True: the defaults)."""
    if value is True:
        return cls()
    if not isinstance(value, Mapping):
        raise UserError(f"{where}: want a mapping or true, got {value!r}")
    names = {f.name for f in fields(cls)}
    bad = set(value) - names
    if bad:
        raise UserError(f"{where}: unknown keys {sorted(bad)} (known: {sorted(names)})")
    try:
        return cls(**dict(value))
    except TypeError as exc:
        raise UserError(f"{where}: {exc}") from None


def rnic_config_from_dict(d: Mapping[str, Any], where: str = "rnic") -> RnicConfig:
    """RnicConfig from a mapping of its fields; ``dcqcn`` and ``qos`` take nested mappings."""
    names = {f.name for f in fields(RnicConfig)}
    bad = set(d) - names
    if bad:
        raise UserError(f"{where}: unknown keys {sorted(bad)} (known: {sorted(names)})")
    kw = dict(d)
    if kw.get("dcqcn") not in (None, False):
        kw["dcqcn"] = _sub(DcqcnConfig, kw["dcqcn"], f"{where}.dcqcn")
    else:
        kw["dcqcn"] = None
    if "qos" in kw:
        kw["qos"] = _sub(TrafficClassPlan, kw["qos"], f"{where}.qos")
    try:
        return RnicConfig(**kw)
    except TypeError as exc:
        raise UserError(f"{where}: {exc}") from None


def open_socket(iface: str) -> socket.socket:
    """A non-blocking AF_PACKET socket on ``iface`` receiving every EtherType."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    return s


def udp_sink(ip: str) -> socket.socket | None:
    """Bind UDP 4791 on the host's own address so its kernel does not answer RoCE frames
    with ICMP port-unreachable. None when ``ip`` is not configured here (then the kernel
    does not take those datagrams either)."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((ip, UDP_PORT_ROCEV2))
    except OSError:
        s.close()
        return None
    return s


def send_frame(sock: socket.socket, frame: bytes, retries: int = 50) -> bool:
    """Send one frame, retrying briefly while the device queue is full; False if dropped
    (also while the host's link is down: lost like on a dead wire)."""
    for _ in range(retries):
        try:
            sock.send(frame)
            return True
        except (BlockingIOError, InterruptedError):
            select.select([], [sock], [], 0.001)
        except OSError as exc:
            if exc.errno in (errno.ENETDOWN, errno.ENXIO):
                return False
            if exc.errno != errno.ENOBUFS:
                raise
            time.sleep(0.0005)
    return False


class HostLink:
    """The host's side of its link: sends frames; with IB credits, the transmit FIFO's head
    waits for credits (the RNIC is not polled meanwhile) and FCPs go both ways."""

    def __init__(
        self, sock: socket.socket, credits: Any = None, impair: HostImpair | None = None
    ) -> None:
        self.sock, self.credits, self.impair = sock, credits, impair
        self.held: bytes | None = None
        self.tx_dropped = 0

    def received(self, frame: bytes) -> bool:
        """Account a received frame; True if the link consumed it (a credit update)."""
        return self.credits is not None and bool(self.credits.on_frame(frame))

    def _put(self, frame: bytes) -> None:
        if self.impair is not None:  # a loss / corrupt fault on the host's link
            impaired = self.impair(frame)
            if impaired is None:
                return
            frame = impaired
        if not send_frame(self.sock, frame):
            self.tx_dropped += 1  # lost like on a wire; go-back-N (and FCTBS) recover

    def send(self, frame: bytes, now: int) -> None:
        """Send ``frame`` now, or hold it until credits arrive."""
        if self.credits is not None and not self.credits.try_send(frame, now):
            self.held = frame
            return
        self._put(frame)

    def flush(self, now: int) -> bool:
        """Send due credit updates and the held frame if it fits now; True if none is held."""
        if self.credits is None:
            return True
        for fcp in self.credits.port.due(now):
            self._put(fcp)
        if self.held is not None and self.credits.try_send(self.held, now):
            self._put(self.held)
            self.held = None
        return self.held is None

    def next_due(self) -> int | None:
        """When a credit update may be due (None without credits)."""
        return None if self.credits is None else self.credits.port.next_due()

    def report(self, now: int) -> dict[str, Any]:
        """Credit counters for the host's report (empty without credits)."""
        if self.credits is None:
            return {}
        st = self.credits.port.stats(now)
        return {"credits": st, "credit_held": int(self.held is not None)}


def _framing_and_credits(cfg: Mapping[str, Any]) -> tuple[Any, Any]:
    """The RNIC's framing (None: RoCEv2) and its IB link credits (None: none)."""
    framing = credits = None
    if cfg.get("framing"):
        from emulator.ib.framing import framing_from_dict

        framing = framing_from_dict(cfg["framing"])
    if cfg.get("ib_credits"):
        from emulator.ib.linkfc import HostLinkCredits
        from emulator.traffic.framing import mac_bytes

        credits = HostLinkCredits(int(cfg["ib_credits"]), mac_bytes(cfg["mac"]))
    return framing, credits


_REQUIRED = ("host", "iface", "mac", "ip", "gateway_mac", "ips", "workload", "out")


def _setup(cfg: Mapping[str, Any]) -> tuple[Rnic, Deployment, Any]:
    """The host's RNIC, its deployment of the workload and its IB link credits (or None)."""
    for key in _REQUIRED:
        if key not in cfg:
            raise UserError(f"rnic_process config: missing key '{key}'")
    host = cfg["host"]
    framing, credits = _framing_and_credits(cfg)
    seed = int(cfg.get("seed", 0))
    nic = Rnic(
        cfg["mac"],
        cfg["ip"],
        cfg["gateway_mac"],
        framing=framing,
        seed=seed,
        config=rnic_config_from_dict(cfg.get("rnic", {})),
        name=host,
    )
    workload = workload_from_dict(cfg["workload"])
    dep = Deployment(workload, {host: nic}, cfg["ips"], seed, int(cfg.get("conn_id_base", 0)))
    return nic, dep, credits


@dataclass
class _Loop:
    """The bounded event loop's state: limits, start time, and whether it must stop."""

    deadline: int
    start_at: int
    max_packets: int
    linger_ns: int
    started: bool = False
    done_at: int | None = None
    stop: bool = False
    #: a stuck receiver (SIGUSR1 on, SIGUSR2 off): frames to the host are discarded and it
    #: pauses its leaf, every class, every STORM_PERIOD_NS (as the virtual runtime models it)
    stuck: bool = False
    storm_at: int | None = None  # next storm frame (None: not storming)
    stuck_dropped: int = 0
    storm_frames: int = 0
    #: when retransmissions and timeouts happened (per-fault spans: emulator.faults.report)
    events: EventLog = field(default_factory=EventLog)

    def on_term(self, _signum: int, _frame: object) -> None:
        """SIGTERM: finish the loop and still write the report."""
        self.stop = True

    def on_stuck(self, signum: int, _frame: object) -> None:
        """SIGUSR1: the host gets stuck; SIGUSR2: it recovers."""
        self.stuck = signum == signal.SIGUSR1

    def finished(self, now: int, nic: Rnic, dep: Deployment) -> bool:
        """Past the deadline or the frame budget, or done and lingered long enough."""
        if now >= self.deadline or nic.counters.tx_pkts + nic.counters.rx_pkts >= self.max_packets:
            return True
        if self.done_at is None and self.started and dep.done:
            self.done_at = now
        return self.done_at is not None and now - self.done_at >= self.linger_ns


def _drain(loop: _Loop, sock: socket.socket, link: HostLink, nic: Rnic) -> None:
    """Hand every frame waiting on the socket to the link (credits) or the RNIC (a stuck
    host discards them)."""
    while True:
        try:
            frame, addr = sock.recvfrom(65535)
        except BlockingIOError:
            return
        except OSError as exc:  # the link went down (reported once): nothing to receive
            if exc.errno not in (errno.ENETDOWN, errno.ENXIO):
                raise
            return
        if addr[2] == PACKET_OUTGOING:
            continue
        if loop.stuck:
            loop.stuck_dropped += 1
        elif not link.received(frame):
            nic.on_frame(frame, time.monotonic_ns())


def _storm(loop: _Loop, link: HostLink, nic: Rnic, now: int) -> None:
    """A stuck host's PFC storm: all-class XOFF (quanta 65535) every STORM_PERIOD_NS, one
    XON when it recovers."""
    if loop.stuck and (loop.storm_at is None or now >= loop.storm_at):
        link.send(encode_pfc(nic.mac, 0xFF, [STORM_QUANTA] * 8), now)
        loop.storm_frames += 1
        loop.storm_at = now + STORM_PERIOD_NS
    elif not loop.stuck and loop.storm_at is not None:
        link.send(encode_pfc(nic.mac, 0xFF, [0] * 8), now)
        loop.storm_frames += 1
        loop.storm_at = None


def _step(loop: _Loop, sock: socket.socket, link: HostLink, nic: Rnic, dep: Deployment) -> None:
    """One turn of the loop: start, receive, send one frame or sleep until the next wakeup."""
    if not loop.started and time.monotonic_ns() >= loop.start_at:
        dep.start(time.monotonic_ns())
        loop.started = True
    _drain(loop, sock, link, nic)
    _storm(loop, link, nic, time.monotonic_ns())
    if not link.flush(time.monotonic_ns()):  # waiting for credits
        select.select([sock], [], [], _MAX_SLEEP_S)
        return
    frame_out = nic.poll(time.monotonic_ns())
    if frame_out is not None:
        link.send(frame_out, time.monotonic_ns())
        return
    wakes = [w for w in (nic.next_wakeup(), link.next_due(), loop.storm_at) if w is not None]
    if not loop.started:
        wakes.append(loop.start_at)
    now = time.monotonic_ns()
    wake = min(wakes, default=None)
    sleep_s = _MAX_SLEEP_S if wake is None else max(0.0, (wake - now) / 1e9)
    select.select([sock], [], [], min(sleep_s, _MAX_SLEEP_S))


def _install_handlers(loop: _Loop, impair: HostImpair) -> dict[int, Any]:
    """SIGTERM (finish), SIGUSR1/2 (stuck receiver), SIGHUP (host impairment); the old ones.
    Installed before the start barrier: a fault may signal a process still waiting."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old: dict[int, Any] = {signal.SIGTERM: signal.signal(signal.SIGTERM, loop.on_term)}
    for sig in (signal.SIGUSR1, signal.SIGUSR2):
        old[sig] = signal.signal(sig, loop.on_stuck)
    old[signal.SIGHUP] = signal.signal(signal.SIGHUP, impair.on_signal)
    return old


def run(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Run the bounded loop described by ``cfg``; returns the report (also written to out)."""
    nic, dep, credits = _setup(cfg)
    sock = open_socket(cfg["iface"])
    sink = udp_sink(cfg["ip"])
    impair = HostImpair(cfg.get("impair_file"))
    link = HostLink(sock, credits, impair)
    t0 = time.monotonic_ns()
    deadline = t0 + int(float(cfg.get("duration_s", 10.0)) * 1e9)
    loop = _Loop(
        deadline,
        int(cfg.get("start_at_ns", t0)),
        int(cfg.get("max_packets", 1_000_000)),
        int(float(cfg.get("linger_s", 0.2)) * 1e9),
    )
    old_handlers = _install_handlers(loop, impair)
    try:
        if cfg.get("start_file"):
            loop.start_at = await_start(cfg, deadline)
        while not loop.stop and not loop.finished(time.monotonic_ns(), nic, dep):
            _step(loop, sock, link, nic, dep)
            loop.events.observe(nic.counters, time.monotonic_ns())
    finally:
        sock.close()
        if sink is not None:
            sink.close()
        for sig, handler in old_handlers.items():
            signal.signal(sig, handler)
    report = _report(cfg["host"], dep, nic, loop.stop, time.monotonic_ns() - t0, link.tx_dropped)
    report["counters"] |= _credit_counters(link)
    if loop.storm_frames:  # a stuck_receiver fault happened here
        report["counters"] |= {
            "stuck_dropped": loop.stuck_dropped,
            "pfc_storm_tx": loop.storm_frames,
        }
    report |= link.report(time.monotonic_ns())
    report["events"] = loop.events.as_dict()
    if impair.by_fault:  # the host end of a loss / corrupt fault on its link
        report["impairments"] = impair.report()
        report["counters"] |= {
            "impaired_lost": sum(m.lost for m in impair.by_fault.values()),
            "impaired_corrupted": sum(m.corrupted for m in impair.by_fault.values()),
        }
    Path(cfg["out"]).write_text(json.dumps(report, indent=1))
    return report


def qp_error_records(host: str, nic: Rnic) -> list[dict[str, Any]]:
    """The RNIC's QPs in the error state (retries exhausted), as a completion error says:
    host, flow id (``qpn->remote qpn``), error, time (the RNIC's clock)."""
    return [
        {
            "host": host,
            "flow_id": f"{qp.qpn:#x}->{qp.remote_qpn:#x}",
            "error": qp.error,
            "t_ns": qp.error_ns,
        }
        for qp in nic.qps.values()
        if qp.error is not None
    ]


def _report(
    host: str, dep: Deployment, nic: Rnic, signalled: bool, elapsed_ns: int, tx_dropped: int
) -> dict[str, Any]:
    """What the process reports: done, counters, the collective, flows and ranks."""
    rec = dep.record()
    return {
        "host": host,
        "done": dep.done,
        "stopped_by_signal": signalled,
        "elapsed_ns": elapsed_ns,
        "tx_dropped": tx_dropped,
        "counters": nic.counters.as_dict(),
        "qp_errors": qp_error_records(host, nic),
        "collective": rec.as_dict() if rec else None,
        "flows": [f.as_dict() for f in dep.flow_records()],
        "ranks": {
            h: {
                "bytes_sent": r.bytes_sent,
                "bytes_received": r.bytes_received,
                "start_ns": r.start_ns,
                "end_ns": r.end_ns,
            }
            for h, r in dep.runners.items()
        },
    }


def _credit_counters(link: HostLink) -> dict[str, int]:
    """``credit_stalls`` / ``credit_stalled_ns`` as the virtual runtime counts them."""
    st = link.report(time.monotonic_ns()).get("credits")
    return (
        {} if st is None else {"credit_stalls": st["stalls"], "credit_stalled_ns": st["stalled_ns"]}
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point: one argument, the JSON config path."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m emulator.traffic.rnic_process CONFIG.json", file=sys.stderr)
        return 2
    try:
        cfg = json.loads(Path(args[0]).read_text())
        run(cfg)
    except (UserError, OSError, json.JSONDecodeError) as exc:
        print(f"rnic_process: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
