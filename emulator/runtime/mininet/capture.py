"""Which leaf uplink each RoCE flow took in a Mininet run, *measured* from frames on the wire.

One ``tcpdump`` per leaf uplink (the switch side of the veth, outgoing frames only, RoCEv2
only, 64-byte snapshots: headers up to the BTH) runs for the whole run; at the end each
capture is read and every RDMA data frame is counted towards its flow, exactly as the
virtual-time runtime counts frames leaving a leaf (``virtual.measure.Ledger.attribute``)::

    rtsw0-eth5 (out, udp dst port 4791) ─tcpdump─► rtsw0-eth5.pcap
        frame: IPv4 dst @30..33, BTH opcode @42 (<= 0x0B: SEND/WRITE data), dQPN @47..49
        ─► uplink_bytes[(dst ip, dQPN)]["rtsw0:5"] += wire length

A flow's uplinks are the uplinks that carried its data frames: measured, not predicted.
On the InfiniBand fabric the capture takes the 0x88B5 shim's data frames (not its flow
control packets) and the framing's ``flow_key`` (DLID -> HCA address, dQPN) names the flow.
"""

from __future__ import annotations

import logging
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from emulator.vocab import UDP_PORT_ROCEV2, EtherType

log = logging.getLogger("fabemu.capture")

SNAPLEN = 64  # Ether 14 + IPv4 20 + UDP 8 + BTH 12 = 54 bytes are enough
STOP_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 15.0  # how long every tcpdump together may take to start listening
FlowKey = tuple[str, int]  # (destination IPv4 address, destination QPN)
_IPV4 = EtherType.IPV4.to_bytes(2, "big")
_ROCE_PORT = UDP_PORT_ROCEV2.to_bytes(2, "big")
FCP_DST = "01:80:c2:00:00:01"  # emulator.ib.linkfc.FCP_DST_MAC
_MAX_DATA_OPCODE = 0x0B  # RC SEND / RDMA WRITE; ACK (0x11) and CNP (0x81) are not data


def uplink_interfaces(topo: Any) -> dict[str, str]:
    """Leaf uplink name ("rtsw0:5") -> the switch-side interface to capture on."""
    return {
        f"{s.name}:{p.number}": p.intf
        for s in topo.switches
        for p in s.uplink_ports
        if s.host_ports  # leaves only
    }


class UplinkCapture:
    """tcpdump on every leaf uplink for the duration of a run."""

    def __init__(self, topo: Any, outdir: Path | str, framing: Any = None) -> None:
        self.interfaces = uplink_interfaces(topo)
        self.outdir = Path(outdir)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        #: a non-RoCE framing's flow key (IbFraming.flow_key); None: RoCEv2 frames
        self.flow_key: Callable[[bytes], tuple[bytes, int] | None] | None = getattr(
            framing, "flow_key", None
        )

    @staticmethod
    def available() -> str | None:
        """None when tcpdump is on PATH, else why the capture cannot run."""
        return None if shutil.which("tcpdump") else "tcpdump not found (scripts/setup.sh)"

    def pcap(self, uplink: str) -> Path:
        """Where ``uplink``'s frames are written."""
        return self.outdir / f"uplink-{uplink.replace(':', '-')}.pcap"

    def start(self) -> list[subprocess.Popen[bytes]]:
        """Start one tcpdump per uplink; returns the processes at once (for the run's
        cleanup record), before :meth:`wait_listening`."""
        self.outdir.mkdir(parents=True, exist_ok=True)
        for uplink, intf in sorted(self.interfaces.items()):
            # -Z root: as user tcpdump it could not write below a 0700 results directory
            cmd = ["tcpdump", "-i", intf, "-Z", "root", "-Q", "out", "-s", str(SNAPLEN)]
            # --immediate-mode: else frames wait in a kernel ring block until it fills or a
            # 1 s timeout retires it, and a short run's last block is lost at SIGINT
            cmd += ["--immediate-mode", "-U", "-n", "-w", str(self.pcap(uplink))]
            if self.flow_key is None:
                cmd += ["udp", "dst", "port", str(UDP_PORT_ROCEV2)]
            else:  # IB shim data frames; FCPs go to the link-local address
                cmd += ["ether", "proto", "0x88b5", "and", "not", "ether", "dst", FCP_DST]
            with self.log(uplink).open("wb") as err:  # tcpdump's messages, kept with the run
                self.procs[uplink] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        return list(self.procs.values())

    def log(self, uplink: str) -> Path:
        """Where ``uplink``'s tcpdump writes its messages."""
        return self.pcap(uplink).with_suffix(".log")

    def wait_listening(self) -> None:
        """Until every tcpdump says ``listening on`` (bounded; a late one is logged): else
        the first frames of a short run go by unseen."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        for uplink, proc in self.procs.items():
            while b"listening on" not in self.log(uplink).read_bytes():
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.warning("tcpdump on %s is not capturing: see %s", uplink, self.log(uplink))
                    break
                time.sleep(0.02)

    def stop(self) -> None:
        """Stop every tcpdump (SIGINT flushes its file), bounded in time (idempotent)."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=STOP_TIMEOUT_S)

    def measure(self) -> dict[FlowKey, dict[str, int]]:
        """Bytes of each flow's data frames per uplink, from the captures written so far."""
        out: dict[FlowKey, dict[str, int]] = {}
        for uplink in self.interfaces:
            path = self.pcap(uplink)
            if path.exists() and path.stat().st_size > 0:
                count_frames(uplink, read_frames(path), out, self.flow_key)
        return out


def read_frames(path: Path) -> Iterable[tuple[bytes, int]]:
    """(captured bytes, wire length) of each frame of a pcap file (scapy's raw reader)."""
    from scapy.utils import RawPcapReader

    try:
        with RawPcapReader(str(path)) as reader:
            for data, meta in reader:
                yield data, int(getattr(meta, "wirelen", len(data)))
    except (OSError, EOFError, ValueError) as exc:  # a capture cut short keeps what it has
        log.warning("reading %s: %s", path, exc)


def roce_flow_key(data: bytes) -> tuple[bytes, int] | None:
    """(destination IPv4 bytes, dQPN) of a captured RoCEv2 data frame, else None."""
    if (
        len(data) < 50
        or data[12:14] != _IPV4
        or data[36:38] != _ROCE_PORT
        or data[42] > _MAX_DATA_OPCODE
    ):
        return None
    return data[30:34], int.from_bytes(data[47:50], "big")


def count_frames(
    uplink: str,
    frames: Iterable[tuple[bytes, int]],
    out: dict[FlowKey, dict[str, int]],
    flow_key: Callable[[bytes], tuple[bytes, int] | None] | None = None,
) -> None:
    """Add each RDMA data frame's wire length to its flow's count on ``uplink``."""
    key_of = flow_key or roce_flow_key
    for data, wirelen in frames:
        fk = key_of(data)
        if fk is None:
            continue
        per = out.setdefault((".".join(str(b) for b in fk[0]), fk[1]), {})
        per[uplink] = per.get(uplink, 0) + wirelen


def measured_uplinks(counts: dict[FlowKey, dict[str, int]], dst_ip: str, qpn: int) -> list[str]:
    """The uplinks that carried the flow to ``dst_ip``/``qpn`` (sorted; [] if none seen)."""
    return sorted(counts.get((dst_ip, qpn), {}))
