"""Regression: the switch process sends frames that egress enqueued (E2E clones, e.g. PFC XON).

It used to wake only the ports that ``receive()`` routed to, so a PFC XON cloned in egress
towards a paused neighbour that no longer received traffic stayed queued until the pause
expired. Drives the real ``SwitchProcess`` loop with in-memory ports (no root).
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path

from emulator import p4c
from emulator.control import FabricConfig, FabricController, PfcConfig
from emulator.target.options import SwitchOptions
from emulator.target.process import SwitchProcess
from emulator.topology import load_clos, resolve
from tests.roce_program.roce_frames import Flow, parse_pfc, roce_frame

ROOT = Path(__file__).resolve().parents[2]


class MemPort:
    """A raw port stand-in: frames to receive, frames sent."""

    def __init__(self, port: int) -> None:
        self.port, self.rx, self.tx = port, deque[bytes](), list[bytes]()

    def recv(self) -> bytes | None:
        return self.rx.popleft() if self.rx else None

    def send(self, frame: bytes) -> None:
        self.tx.append(frame)


def test_xon_cloned_in_egress_leaves_the_switch(tmp_path: Path) -> None:
    program = tmp_path / "roce.json"
    program.write_text(json.dumps(p4c.compile_file(ROOT / "p4" / "roce_fabric.p4")))
    topo = resolve(load_clos("two_rack_4spine"))
    node = topo.switch("rtsw0")
    opts = SwitchOptions(
        program=str(program),
        priority_queues=8,
        interfaces=tuple((p.number, f"mem{p.number}") for p in node.ports),
        port_speeds=tuple((p.number, float(p.rate_bps)) for p in node.ports),
    )
    proc = SwitchProcess(opts)
    for p in node.ports:
        proc.ports[p.number] = MemPort(p.number)  # type: ignore[assignment]
    ctl = FabricController(topo, FabricConfig(pfc=PfcConfig(xoff=12, xon=4), queue_depth=48))
    ctl.apply({"rtsw0": proc.switch})
    h0, h1 = topo.host("h0"), topo.host("h1")
    proc.switch.cli(f"set_queue_rate 1000 {h0.leaf_port}")  # h0's queue drains at 1000 pps
    sender = proc.ports[h1.leaf_port]
    flow = Flow(h1.ip, h0.ip, 0xC001, 0x101)
    for psn in range(12):  # enough to cross XOFF: h1 gets paused
        sender.rx.append(roce_frame(flow, h1.gateway_mac, h1.mac, psn=psn))
    proc._on_rx(sender)  # type: ignore[arg-type]
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and len(proc.ports[h0.leaf_port].tx) < 12:
        proc._drain()
        time.sleep(0.001)
    for _ in range(5):  # a few more rounds for the XON's own egress
        proc._drain()
    quanta = [parse_pfc(f)[1][3] for f in sender.tx if parse_pfc(f)]
    assert len(proc.ports[h0.leaf_port].tx) == 12
    assert quanta and quanta[0] > 0, quanta  # XOFF ...
    assert quanta[-1] == 0, quanta  # ... and the XON, cloned in egress, was sent
    assert proc.switch.transmit_ready(h1.leaf_port) is None  # nothing left behind
