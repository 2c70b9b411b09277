"""The result's ``faults`` section: per fault, what it cost and how fast the fabric healed.

Per fault (``faults[i]`` of the scenario)::

    time_to_detect_ms   link event -> the controller's repair installed (detection delay
                        plus installation; None when nothing was repaired)
    time_to_repair_ms   fault -> first sample interval, after the repair, whose delivered
                        throughput (all leaf->host links) is >= 90% of the median delivered
                        throughput from the repair to the end of the workload (the new
                        steady level: a lost uplink may cap it below the old one)
    packets_lost        data frames dropped on the fault's links (down, loss, stuck host)
    frames_corrupted    frames a corrupt fault altered (the receivers' ICRC errors count them)
    retransmissions     RNIC retransmitted packets from this fault's start to the next's
    timeouts            RNIC retransmission timeouts over the same span

Run level: QP errors (retries exhausted: flow, host, time), ICRC errors, PFC watchdog storms.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any

from emulator.faults.timeline import switch_links
from emulator.traffic.rnic_process import qp_error_records

if TYPE_CHECKING:
    from emulator.faults.session import FaultSession

RECOVERED = 0.9


def _delivered(result: Any) -> tuple[list[int], list[float]]:
    """Sample times and delivered bit/s (sum over leaf->host link directions)."""
    down = [ln for ln in result.links if ln.kind == "host" and not ln.up and ln.t_ns]
    if not down:
        return [], []
    t = list(down[0].t_ns)
    bps = [sum(ln.utilisation[i] * ln.rate_bps for ln in down) for i in range(len(t))]
    return t, bps


def _time_to_repair(
    t: list[int], bps: list[float], fault_ns: int, repaired_ns: int, end_ns: int
) -> float | None:
    after = [(ti, b) for ti, b in zip(t, bps) if repaired_ns < ti <= end_ns]
    if not after:
        return None
    steady = statistics.median(b for _, b in after)
    if steady <= 0:
        return None  # nothing flowed after the fault: not recovered
    for ti, b in after:
        if b >= RECOVERED * steady:
            return (ti - fault_ns) / 1e6
    return None


def _fault_links(f: Any, topo: Any) -> list[tuple[str, str]]:
    if f.link is not None:
        return [tuple(f.link)]
    if f.switch is not None:
        return switch_links(topo, f.switch)
    return []


def _lost_on_links(rt: Any, pairs: list[tuple[str, str]]) -> int | None:
    if not hasattr(rt, "_link_dirs"):
        return None
    return sum(d.dropped for a, b in pairs for d in rt._link_dirs(a, b))


def _lost(f: Any, imps: list[Any], rt: Any, topo: Any) -> int | None:
    """Frames lost to fault ``f``: its impairments' losses, or drops on its links."""
    if f.kind in ("loss", "corrupt", "stuck_receiver"):
        return sum(m.lost for m in imps)
    return _lost_on_links(rt, _fault_links(f, topo))


def _remote_counts(session: FaultSession, rt: Any) -> dict[int, tuple[int, int]]:
    """Mininet: fault -> (lost, corrupted) from the switch processes' port counters and the
    hosts' RNIC processes."""
    remote = session.injector.log.remote if session.injector else []
    if not remote:
        return {}
    try:
        stats = rt.fabric.switch_stats()
    except Exception:  # a switch gone: no figures rather than no result
        return {}
    # the host ends: what the hosts' RNIC processes impaired of what they sent
    out: dict[int, tuple[int, int]] = dict(getattr(rt, "host_impairments", dict)())
    for fault, sw, port in set(remote):
        p = stats.get(sw, {}).get("ports", {}).get(str(port), {})
        lost, bad = out.get(fault, (0, 0))
        out[fault] = (
            lost + int(p.get("impaired_lost", 0)),
            bad + int(p.get("impaired_corrupted", 0)),
        )
    return out


def _workload_end(result: Any) -> int:
    ends = [c.end_ns for c in result.collectives] + [f.end_ns for f in result.flows]
    return max(ends, default=result.meta.end_ns) or result.meta.end_ns


def repairs(session: FaultSession) -> list[dict[str, Any]]:
    """Every installed repair (the live controller's, or IB re-sweeps), with the fault whose
    link event caused it (-1: a link change from elsewhere)."""
    cause = session.injector.log.events if session.injector else []
    out = []
    for r in getattr(session.controller, "repairs", []):
        ops = {sw: v for sw, v in r.ops.items() if v}
        out.append(_repair_row(cause, r.event, r.at_ns, sorted(ops), sum(map(len, ops.values()))))
    ib = session.ib_repair
    for r in ib.repairs if ib else []:
        row = _repair_row(cause, r.event, r.at_ns, list(r.switches), r.commands)
        row["resweep_s"] = round(r.sweep_s, 4)
        if ib is not None and ib.adaptive:
            row["ar_writes"] = r.ar_writes
        out.append(row)
    return out


def _cause(events: list[Any], ev: Any) -> int:
    """The fault of the injector's last change of ``ev``'s link and direction at or before
    ``ev`` (Mininet stamps the runtime's event a little after the injector's scheduled time);
    -1: a link change from elsewhere."""
    link = frozenset((ev.a, ev.b))
    mine = [e for e in events if frozenset((e.a, e.b)) == link and e.up == ev.up]
    done = [e for e in mine if e.t_ns <= ev.t_ns]
    return done[-1].fault if done else -1


def _repair_row(
    cause: list[Any], ev: Any, at_ns: int, switches: list[str], ops: int
) -> dict[str, Any]:
    return {
        "fault": _cause(cause, ev),
        "link": f"{ev.a}-{ev.b}",
        "up": ev.up,
        "event_ns": ev.t_ns,
        "installed_ns": at_ns,
        "switches": switches,
        "operations": ops,
    }


def _per_fault(session: FaultSession, rt: Any, result: Any) -> list[dict[str, Any]]:
    t, bps = _delivered(result)
    end = _workload_end(result)
    inj = session.injector
    done = repairs(session)
    marks, totals = _marks(session, rt, result)
    remote = _remote_counts(session, rt)
    out = []
    for i, f in enumerate(session.faults):
        mine = [r for r in done if r["fault"] == i]
        events = [e for e in (inj.log.events if inj else []) if e.fault == i]
        imps = [m for m in (inj.log.impairments if inj else []) if m.fault == i]
        at_ns = round(f.at_ms * 1e6)
        entry: dict[str, Any] = {
            "index": i,
            "kind": f.kind,
            "target": "-".join(f.link) if f.link else (f.switch or f.host or ""),
            "at_ms": f.at_ms,
            "until_ms": f.at_ms + f.for_ms if f.for_ms is not None else None,
            "link_events": len(events),
            "repairs": len(mine),
            "switches_repaired": sorted({s for r in mine for s in r["switches"]}),
            "time_to_detect_ms": (mine[0]["installed_ns"] - mine[0]["event_ns"]) / 1e6
            if mine
            else None,
            "time_to_repair_ms": _time_to_repair(t, bps, at_ns, mine[0]["installed_ns"], end)
            if mine
            else None,
            "packets_lost": _lost(f, imps, rt, session.topo),
            "frames_corrupted": sum(m.corrupted for m in imps),
        }
        if i in remote:
            entry["packets_lost"], entry["frames_corrupted"] = remote[i]
        if f.kind == "stuck_receiver" and not imps:  # Mininet: what the RNIC process discarded
            entry["packets_lost"] = int(result.hosts.get(f.host, {}).get("stuck_dropped", 0))
        entry |= _span_counts(i, marks, totals)
        out.append(entry)
    return out


def _marks(
    session: FaultSession, rt: Any, result: Any
) -> tuple[list[tuple[int, int, int, int]], tuple[int, int]]:
    """The fault marks in time order with the RNIC counts at each, and the run totals.
    Mininet: counted from the RNIC processes' event logs (``rt.rnic_events()``: when each
    retransmission and timeout happened), so the spans mean what the virtual runtime's do."""
    marks = sorted(session.marks, key=lambda m: (m[1], m[0]))
    if not hasattr(rt, "rnic_events"):
        return marks, (int(result.totals.retransmissions), _timeouts(result))
    ev = rt.rnic_events()
    rx, to = ev.get("retransmissions", []), ev.get("timeouts", [])

    def before(log: list[tuple[int, int]], t: int) -> int:
        return sum(n for ti, n in log if ti < t)

    counted = [(f, t, before(rx, t), before(to, t)) for f, t, _, _ in marks]
    return counted, (sum(n for _, n in rx), sum(n for _, n in to))


def _span_counts(
    fault: int, marks: list[tuple[int, int, int, int]], totals: tuple[int, int]
) -> dict[str, int | None]:
    """Retransmissions and timeouts from ``fault``'s mark to the next mark (or the end)."""
    for k, (idx, _t, rx, to) in enumerate(marks):
        if idx == fault:
            nxt = marks[k + 1] if k + 1 < len(marks) else (0, 0, *totals)
            return {"retransmissions": nxt[2] - rx, "timeouts": nxt[3] - to}
    return {"retransmissions": None, "timeouts": None}


def _timeouts(result: Any) -> int:
    return int(sum(c.get("timeouts", 0) for c in result.hosts.values()))


def qp_errors(rt: Any) -> list[dict[str, Any]]:
    """Every QP in the error state (retries exhausted), as a real RNIC's completion error:
    the virtual runtime's RNICs, or what the Mininet RNIC processes reported."""
    if hasattr(rt, "qp_errors"):
        return list(rt.qp_errors())
    out = []
    for name, hb in sorted(getattr(rt, "hosts", {}).items()):
        out += qp_error_records(name, hb.nic)
    return out


def _watchdog(session: FaultSession, rt: Any) -> dict[str, Any] | None:
    if session.watchdog_ns is None:
        return None
    if hasattr(rt, "pfc_watchdog_stats"):  # Mininet: the switch processes' counters
        storms, ignored = rt.pfc_watchdog_stats()
        return {
            "watchdog_ms": session.watchdog_ns / 1e6,
            "storms": storms,
            "ignored_pauses": ignored,
        }
    storms = ignored = 0
    for box in rt.boxes.values():
        for port in box.tm.ports():
            for prio in range(8):
                s, ig = box.tm.pfc.storms(port, prio)
                storms, ignored = storms + s, ignored + ig
    return {"watchdog_ms": session.watchdog_ns / 1e6, "storms": storms, "ignored_pauses": ignored}


def fault_section(session: FaultSession, rt: Any, result: Any) -> dict[str, Any]:
    """The ``faults`` section of ``result`` (see the module doc)."""
    errors = qp_errors(rt)
    return {
        "faults": _per_fault(session, rt, result),
        "qp_errors": len(errors),
        "qp_error_flows": errors,
        "icrc_errors": int(sum(c.get("icrc_errors", 0) for c in result.hosts.values())),
        "retransmissions": int(result.totals.retransmissions),
        "timeouts": _timeouts(result),
        "pfc_watchdog": _watchdog(session, rt),
        "link_events": [
            {"t_ns": e.t_ns, "link": f"{e.a}-{e.b}", "up": e.up, "fault": e.fault}
            for e in (session.injector.log.events if session.injector else [])
        ],
        "repairs": repairs(session),
    }
