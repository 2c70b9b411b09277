"""The RNIC process's fault side (no root): its retransmission event log, the impairment of
what its host sends, and how the report attributes the logged events to fault windows."""

from __future__ import annotations

import itertools
import random
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.faults.inject import FaultLinkEvent
from emulator.faults.report import _cause, _marks
from emulator.target.impair import HEADERS, Impairment
from emulator.traffic.host_faults import (
    MAX_ENTRIES,
    RESOLUTION_NS,
    EventLog,
    HostImpair,
    impair_file,
    write_impair,
)
from emulator.traffic.rnic_process import HostLink
from emulator.traffic.roce import icrc_ipv4
from emulator.vocab.pfc import encode_pfc


def _counters(rx: int, to: int = 0) -> Any:
    return SimpleNamespace(retransmitted_pkts=rx, timeouts=to)


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 5)), max_size=200))
def test_event_log_keeps_every_event_bounded_and_in_time(steps: list[tuple[int, int]]) -> None:
    log, now, total = EventLog(), 0, 0
    for dt, rise in steps:
        now, total = now + dt, total + rise
        log.observe(_counters(total), now)
    rx = log.as_dict()["retransmissions"]
    assert sum(n for _, n in rx) == total
    assert all(b[0] - a[0] >= RESOLUTION_NS for a, b in itertools.pairwise(rx))
    assert len(rx) <= MAX_ENTRIES and log.as_dict()["timeouts"] == []


def test_event_log_stamps_each_rise_when_it_was_seen() -> None:
    log = EventLog()
    log.observe(_counters(0), 5)
    log.observe(_counters(2, 1), 1_000_000)
    log.observe(_counters(3, 1), 1_050_000)  # within the resolution: joins the entry
    log.observe(_counters(4, 1), 2_000_000)
    assert log.as_dict()["retransmissions"] == [[1_000_000, 3], [2_000_000, 1]]
    assert log.as_dict()["timeouts"] == [[1_000_000, 1]]


def _roce_frame(payload: bytes = bytes(64)) -> bytes:
    ip = bytes.fromhex("45000000000000004011000a0000010a000101")
    ip = ip + b"\x00" * (20 - len(ip))
    udp = bytes.fromhex("c00012b700000000")
    transport = bytes(12) + payload
    return b"\x02" * 12 + b"\x08\x00" + ip + udp + transport + icrc_ipv4(ip, udp, transport)


def test_host_impair_follows_the_impair_file_per_fault(tmp_path: Path) -> None:
    path = impair_file(tmp_path / "rnic-h0.json")
    imp = HostImpair(path)
    frame = _roce_frame()
    assert imp(frame) == frame  # nothing set
    write_impair(path, 2, "loss", 0.5, 7)
    imp.on_signal(signal.SIGHUP, None)
    out = [imp(frame) for _ in range(400)]
    lost = out.count(None)
    assert 140 < lost < 260 and all(f in (None, frame) for f in out)
    pfc = encode_pfc("02:00:00:00:00:01", 0xFF, [100] * 8)
    assert all(imp(pfc) == pfc for _ in range(50))  # PFC frames are exempt
    write_impair(path, 3, "corrupt", 0.5, 7)
    imp.on_signal(signal.SIGHUP, None)
    bad = [f for f in (imp(frame) for _ in range(100)) if f != frame]
    assert bad and all(f is not None and f[:HEADERS] == frame[:HEADERS] for f in bad)
    write_impair(path, 2, "off", 0.0, 0)  # fault 2's end: fault 3's corruption stays
    imp.on_signal(signal.SIGHUP, None)
    assert imp.current is not None and imp.current.fault == 3
    write_impair(path, 3, "off", 0.0, 0)
    imp.on_signal(signal.SIGHUP, None)
    assert all(imp(frame) == frame for _ in range(50))
    assert imp.report() == {
        "2": {"lost": lost, "corrupted": 0},
        "3": {"lost": 0, "corrupted": len(bad)},
    }


def test_host_link_drops_what_the_impairment_loses() -> None:
    sent: list[bytes] = []
    sock = SimpleNamespace(send=sent.append)
    imp = HostImpair(None)
    link = HostLink(sock, None, imp)  # type: ignore[arg-type]
    link.send(b"x" * 80, 0)
    imp.current = Impairment("loss", 1.0, random.Random(1), 0)
    link.send(b"y" * 80, 0)
    assert sent == [b"x" * 80] and link.tx_dropped == 0 and imp.current.lost == 1


class _Rt:
    """A Mininet-like runtime: events on the run clock from the RNIC processes' logs."""

    def __init__(self, rx: list[tuple[int, int]], to: list[tuple[int, int]]) -> None:
        self.logs = {"retransmissions": rx, "timeouts": to}

    def rnic_events(self) -> dict[str, list[tuple[int, int]]]:
        return self.logs


def test_logged_events_fall_in_the_window_of_the_fault_they_follow() -> None:
    rx = [(50, 1), (1_000, 4), (2_500, 2), (2_999, 1), (3_000, 5)]
    session = SimpleNamespace(marks=[(1, 3_000, -1, -1), (0, 1_000, -1, -1)])
    marks, totals = _marks(session, _Rt(rx, [(2_600, 1)]), None)  # type: ignore[arg-type]
    assert marks == [(0, 1_000, 1, 0), (1, 3_000, 8, 1)]  # sorted by time
    assert totals == (13, 1)
    # fault 0's window [1000, 3000): 4 + 2 + 1; fault 1's from 3000 on: 5
    assert marks[1][2] - marks[0][2] == 7 and totals[0] - marks[1][2] == 5


def test_a_repair_belongs_to_the_last_injected_change_of_its_link() -> None:
    events = [
        FaultLinkEvent(100, "a", "b", False, 0),
        FaultLinkEvent(200, "a", "b", True, 1),
        FaultLinkEvent(300, "b", "a", False, 2),
    ]
    ev = SimpleNamespace(a="a", b="b", up=False, t_ns=105)  # stamped after the injector
    assert _cause(events, ev) == 0
    assert _cause(events, SimpleNamespace(a="a", b="b", up=False, t_ns=310)) == 2
    assert _cause(events, SimpleNamespace(a="a", b="c", up=False, t_ns=310)) == -1


def test_a_down_link_loses_frames_instead_of_killing_the_process() -> None:
    """ENETDOWN on the packet socket (the host's link went down) is a lost frame when
    sending and nothing to read when receiving; other errors still surface."""
    import errno

    from emulator.traffic.rnic_process import _drain, _Loop, send_frame

    def fail(err: int) -> Any:
        def raise_(*_a: object) -> None:
            raise OSError(err, "x")

        return SimpleNamespace(send=raise_, recvfrom=raise_)

    assert send_frame(fail(errno.ENETDOWN), b"f") is False
    loop = _Loop(deadline=1, start_at=0, max_packets=1, linger_ns=0)
    _drain(loop, fail(errno.ENETDOWN), None, None)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        send_frame(fail(errno.EPERM), b"f")
