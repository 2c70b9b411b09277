"""A scenario's ``faults:`` expanded into primitive timed actions, in time order.

    link_down A-B  @t          -> down(A,B)@t
    switch_down S  @t          -> down(S,peer)@t for every link of S
    flap A-B period P, count N -> down@t, up@t+P/2, down@t+P, ... (N cycles)
    loss / corrupt A-B p, for W-> impair_on@t, impair_off@t+W
    stuck_receiver H for W     -> stuck_on@t, stuck_off@t+W

Every action keeps the index of the fault it came from (``fault``) for per-fault metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from emulator.faults.schema import Fault

Op = Literal["down", "up", "impair_on", "impair_off", "stuck_on", "stuck_off"]
NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class Action:
    """One primitive fault action at ``t_ns`` (run clock)."""

    t_ns: int
    op: Op
    fault: int  # index into the scenario's ``faults:``
    a: str  # link end / switch / host
    b: str = ""  # the other link end ("" for hosts)
    mode: str = ""  # impair_on: "loss" | "corrupt"
    probability: float = 0.0


def _ns(ms: float) -> int:
    return round(ms * NS_PER_MS)


def switch_links(topo: Any, switch: str) -> list[tuple[str, str]]:
    """(switch, peer) for every distinct neighbour of ``switch``, in port order."""
    peers: list[str] = []
    for p in sorted(topo.switch(switch).ports, key=lambda q: q.number):
        if p.peer not in peers:
            peers.append(p.peer)
    return [(switch, peer) for peer in peers]


def _link_actions(i: int, f: Fault, topo: Any) -> list[Action]:
    t = _ns(f.at_ms)

    def act(at: int, op: Op, a: str, b: str) -> Action:
        return Action(at, op, i, a, b)

    if f.kind in ("switch_down", "switch_up"):
        assert f.switch is not None
        op: Op = "down" if f.kind == "switch_down" else "up"
        return [act(t, op, a, b) for a, b in switch_links(topo, f.switch)]
    assert f.link is not None
    a, b = f.link
    if f.kind in ("link_down", "link_up"):
        return [act(t, "down" if f.kind == "link_down" else "up", a, b)]
    assert f.period_ms is not None  # flap
    period = _ns(f.period_ms)
    out = []
    for k in range(f.count):
        out.append(act(t + k * period, "down", a, b))
        out.append(act(t + k * period + period // 2, "up", a, b))
    return out


def expand(faults: Sequence[Fault], topo: Any) -> list[Action]:
    """Every fault's primitive actions, sorted by time (stable: scenario order breaks ties)."""
    out: list[Action] = []
    for i, f in enumerate(faults):
        t = _ns(f.at_ms)
        if f.kind in ("loss", "corrupt"):
            assert f.link is not None and f.for_ms is not None and f.probability is not None
            a, b = f.link
            on = Action(t, "impair_on", i, a, b, mode=f.kind, probability=f.probability)
            out += [on, Action(t + _ns(f.for_ms), "impair_off", i, a, b, mode=f.kind)]
        elif f.kind == "stuck_receiver":
            assert f.host is not None and f.for_ms is not None
            out += [
                Action(t, "stuck_on", i, f.host),
                Action(t + _ns(f.for_ms), "stuck_off", i, f.host),
            ]
        else:
            out += _link_actions(i, f, topo)
    return sorted(out, key=lambda x: x.t_ns)
