"""The program's PFC frames leave ahead of the lossless class's data (not behind it).

Regression for the drops of the roce_vs_ib ECMP AllReduce: the XOFF clone went to
simple_switch's clone priority 0 of the neighbour's port, so, with strict priority, it
waited behind every priority-3 frame queued for that neighbour while the congested queue
overflowed. The controller now maps the PFC mirror sessions to queue 7.
"""

from __future__ import annotations

import pytest

from emulator import vocab
from emulator.control import FabricConfig, PfcConfig
from emulator.target.errors import CliError
from emulator.target.ops import MirroringPriority, apply_op
from emulator.topology import load_clos, resolve

from .roce_frames import Flow, parse_pfc, roce_frame

XOFF, XON = 12, 4


def _frames(sw, topo, port: int, dst: str, count: int) -> None:
    """``count`` RoCE packets to host ``dst`` arriving on ``port`` of rtsw0."""
    peer = next(p for p in topo.switch("rtsw0").ports if p.number == port)
    src = f"10.0.1.{port}" if peer.peer.startswith("ctsw") else topo.host(peer.peer).ip
    flow = Flow(src, topo.host(dst).ip, 0xC000 + port, 0x100 + port)
    for i in range(count):
        sw.receive(port, roce_frame(flow, peer.mac, "02:00:00:00:00:99", psn=i))


def test_xoff_overtakes_the_data_queued_for_the_paused_neighbour(make_switch) -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    cfg = FabricConfig(pfc=PfcConfig(xoff=XOFF, xon=XON, quanta=1000), queue_depth=48)
    sw, _, _clock = make_switch(topo, "rtsw0", cfg)
    h1 = 2  # rtsw0 port of h1
    _frames(sw, topo, 5, "h1", 20)  # a spine fills h1's bulk queue
    assert sw.tm.depth(h1, vocab.TC_BULK) == 20
    _frames(sw, topo, h1, "h0", XOFF)  # h1 congests h0's queue: XOFF to h1
    assert sw.tm.depth(h1, vocab.PFC_FRAME_QUEUE) == 1
    first = sw.transmit(h1)
    assert first is not None
    pfc = parse_pfc(first)
    assert pfc is not None and pfc[1][vocab.TC_BULK] == 1000  # the XOFF, not data
    assert sw.tm.depth(h1, vocab.TC_BULK) == 20


def test_without_the_session_priority_the_xoff_waits_behind_the_data(make_switch) -> None:
    """What simple_switch does (clones at priority 0): the bug this guards against."""
    topo = resolve(load_clos("two_rack_4spine"))
    cfg = FabricConfig(pfc=PfcConfig(xoff=XOFF, xon=XON, quanta=1000), queue_depth=48)
    sw, _, _clock = make_switch(topo, "rtsw0", cfg)
    sw.mirror_priority.clear()
    h1 = 2
    _frames(sw, topo, 5, "h1", 20)
    _frames(sw, topo, h1, "h0", XOFF)
    sent = [sw.transmit(h1) for _ in range(21)]
    assert [parse_pfc(f) is not None for f in sent if f is not None] == [False] * 20 + [True]


def test_mirroring_set_priority_cli_and_typed_op_agree(make_switch) -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    sw, _, _clock = make_switch(topo, "rtsw0")
    assert sw.mirror_priority[vocab.PFC_MIRROR_BASE + 1] == vocab.PFC_FRAME_QUEUE
    sw.cli("mirroring_set_priority 7 5")
    apply_op(sw, MirroringPriority(8, 5))
    assert sw.mirror_priority[7] == sw.mirror_priority[8] == 5
    assert MirroringPriority(8, 5).cli() == "mirroring_set_priority 8 5"
    sw.cli("mirroring_add 7 3")
    sw.cli("mirroring_delete 7")
    assert 7 not in sw.mirror_priority
    with pytest.raises(CliError, match="priority"):
        apply_op(sw, MirroringPriority(8, 32))
