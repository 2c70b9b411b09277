"""The MAC's pause refresh timer: an XOFF a port sent is re-sent until it sends the XON.

A pause lasts ``quanta * 512`` bit times at the neighbour; if nothing renews it, the
neighbour resumes into a queue that may still be full. Real switches re-send the XOFF on
a timer while the priority group stays above XON. Here the decision (XOFF, XON) is the
generator's (the P4 program's clones, or :mod:`pfc_gen`): the timer only watches the PFC
frames a port transmits and keeps every class it paused paused::

    t0  XOFF(c, q) sent  ──► due = t0 + pause(q) / 2 ──► re-send XOFF(c, q) ──► due = t1 + ...
    XON(c) sent (quanta 0) ──► class c of that port forgotten: no more refreshes

Every generator of fabemu answers an XOFF with an XON once its queue drained (the P4
program's waiting lists, ``pfc_gen``'s XON threshold), so the renewal lasts as long as
the congestion. A refresh waits in the port's control queue, ahead of data.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.vocab.pfc import PFC_CLASSES, decode_pfc, encode_pfc, quanta_to_ns

#: a refresh handed to the control queue and not yet sent
_PENDING = -1


@dataclass
class _Pause:
    """One class paused towards one neighbour: what to re-send and when."""

    src_mac: bytes
    quanta: int
    due: int  # ns, or _PENDING


class PauseRefresher:
    """Per (port, class): the last XOFF sent, re-sent every half pause until an XON."""

    def __init__(self) -> None:
        self._paused: dict[tuple[int, int], _Pause] = {}
        self.refreshes = 0  # XOFF frames re-sent by the timer

    def on_sent(self, port: int, frame: bytes, now: int, speed_bps: float) -> None:
        """``frame`` left ``port`` at ``now``: remember its pauses, forget its resumes."""
        pfc = decode_pfc(frame)
        if pfc is None:
            return
        for cls in pfc.paused_classes():
            quanta = pfc.quanta[cls]
            if quanta == 0:
                self._paused.pop((port, cls), None)
            else:
                due = now + max(1, quanta_to_ns(quanta, speed_bps) // 2)
                self._paused[(port, cls)] = _Pause(pfc.src_mac, quanta, due)

    def next_due(self) -> int | None:
        """Earliest ns a refresh is due, or None (nothing paused, or all pending)."""
        dues = [p.due for p in self._paused.values() if p.due != _PENDING]
        return min(dues) if dues else None

    def due(self, now: int) -> list[tuple[int, bytes]]:
        """(port, XOFF frame) for every refresh due at ``now``; each stays pending until
        :meth:`on_sent` sees it leave (so a slow port never queues two)."""
        out: list[tuple[int, bytes]] = []
        for (port, cls), p in sorted(self._paused.items()):
            if p.due == _PENDING or p.due > now:
                continue
            vec = [0] * PFC_CLASSES
            vec[cls] = p.quanta
            out.append((port, encode_pfc(p.src_mac, 1 << cls, vec)))
            p.due = _PENDING
            self.refreshes += 1
        return out

    def paused(self, port: int, cls: int) -> bool:
        """Whether ``port`` is keeping class ``cls`` of its neighbour paused."""
        return (port, cls) in self._paused
