"""Link-level flow control seen by the traffic manager: a small swappable protocol.

The traffic manager asks every registered scheme when a (port, priority) queue may send
next and tells it about every frame it releases. PFC (IEEE 802.1Qbb, :mod:`pfc`) is the
first scheme; InfiniBand per-VL credits can sit beside it with the same three calls:

    receive side                        traffic manager (egress of port P)
    ------------                        ----------------------------------
    control frame --on_control_frame--> scheme updates its per-(P, prio) state
                                        eligible_at(P, prio, now) -> earliest send ns
                                        on_transmit(P, prio, length, now)  (credits)
"""

from __future__ import annotations

from typing import Protocol

#: ``eligible_at`` result meaning "blocked until some external event" (no timer helps).
BLOCKED: int = 2**63 - 1


class FlowControl(Protocol):
    """A link-level flow-control scheme that can hold back egress queues."""

    def eligible_at(self, port: int, priority: int, now: int) -> int:
        """Earliest ns (>= ``now``) at which queue (port, priority) may send, or BLOCKED."""
        ...

    def on_control_frame(self, port: int, frame: bytes, now: int) -> bool:
        """Consume a control frame received on ``port``; True if it belonged to this scheme."""
        ...

    def on_transmit(self, port: int, priority: int, length: int, now: int) -> None:
        """Note that a frame of ``length`` bytes left queue (port, priority) at ``now``."""
        ...
