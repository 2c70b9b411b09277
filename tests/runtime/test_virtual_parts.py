"""Pieces of the virtual-time runtime alone: link directions, the ledger's frame parsing."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.runtime.virtual.engine import Engine
from emulator.runtime.virtual.links import LinkDir
from emulator.runtime.virtual.measure import Ledger
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.qp import wire_ns
from emulator.vocab.pfc import encode_pfc

RATE = 10_000_000


def _link(engine: Engine, ledger: Ledger, **kw) -> tuple[LinkDir, list[tuple[int, bytes]]]:
    got: list[tuple[int, bytes]] = []
    ld = LinkDir(engine, ledger, "a", 1, "b", 2, kind="fabric", up=True, rate_bps=RATE,
                 delay_ns=1000, **kw)  # fmt: skip
    ld.deliver = lambda port, frame, t: got.append((t, frame))
    return ld, got


def _roce(dst_ip: str, dqpn: int, opcode: int, size: int = 100) -> bytes:
    path = RoceV2Framing().make_path(
        "02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", dst_ip, 0xC123, 26, 0
    )
    bth = struct.pack("!BBHI I", opcode, 0, 0xFFFF, dqpn, 7)
    return RoceV2Framing().encode(path, bth + bytes(size))


def test_frame_arrives_after_serialisation_plus_delay() -> None:
    eng, ledger = Engine(), Ledger()
    ld, got = _link(eng, ledger)
    frame = bytes(100)
    ser = ld.send(frame, 0)
    assert ser == wire_ns(100, RATE)
    eng.run(10**9)
    assert got == [(ser + 1000, frame)]
    assert (ld.bytes, ld.packets, ld.busy_at(ser // 2), ld.busy_at(ser)) == (100, 1, ser // 2, ser)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 200_000)), max_size=40))
def test_link_conserves_frames_in_order_across_failures(ops: list[tuple[int, int]]) -> None:
    """Random sends / fails / restores / time steps: sent = delivered + dropped + on wire,
    delivery order = send order, nothing from before a failure arrives after it."""
    eng, ledger = Engine(), Ledger()
    ld, got = _link(eng, ledger)
    sent: list[bytes] = []
    dropped: set[bytes] = set()
    for i, (op, dt) in enumerate(ops):
        if op == 0:
            frame = i.to_bytes(4, "big") + bytes(60)
            sent.append(frame)
            was_up = ld.is_up
            ld.send(frame, eng.now)
            if not was_up:
                dropped.add(frame)
        elif op == 1:
            dropped.update(f for f in sent if f not in {g for _, g in got})
            ld.fail()
        elif op == 2:
            ld.restore()
        eng.run(eng.now + dt)
        assert len(sent) == len(got) + ld.dropped + ld.in_flight()[0]
    delivered = [f for _, f in got]
    assert delivered == [f for f in sent if f in set(delivered)]  # FIFO
    assert not dropped & set(delivered)
    assert ld.dropped == len(dropped)


def test_ledger_reads_pfc_classes_and_quanta() -> None:
    eng, ledger = Engine(), Ledger()
    ld, _ = _link(eng, ledger)
    quanta = [0, 0, 0, 1000, 0, 0, 7, 0]
    ld.send(encode_pfc("02:fa:be:00:00:01", (1 << 3) | (1 << 6), quanta), 5)
    assert ledger.pauses == [(5, "a", 1, 3, 1000), (5, "a", 1, 6, 7)]
    assert ld.pfc_frames == 1
    ld.send(b"\x00" * 12 + b"\x88\x08\x00\x01" + bytes(44), 6)  # 802.3x PAUSE: not per class
    assert len(ledger.pauses) == 2


def test_ledger_attributes_rdma_data_to_its_flow_on_uplinks_only() -> None:
    eng, ledger = Engine(), Ledger()
    up, _ = _link(eng, ledger, uplink="rtsw0:5")
    down, _ = _link(eng, ledger)
    write_only = 0x0A
    ack = 0x11
    data = _roce("10.0.1.1", 0x301, write_only)
    up.send(data, 0)
    up.send(_roce("10.0.1.1", 0x302, ack), 0)  # an ACK: not data
    down.send(_roce("10.0.1.1", 0x303, write_only), 0)  # not a leaf uplink
    assert ledger.uplinks("10.0.1.1", 0x301) == ["rtsw0:5"]
    assert ledger.uplink_bytes == {(bytes([10, 0, 1, 1]), 0x301): {"rtsw0:5": len(data)}}
    assert ledger.uplinks("10.0.1.1", 0x302) == [] == ledger.uplinks("10.0.1.1", 0x303)
