"""What the virtual-time runtime measures while it runs.

* ``Ledger``: PFC frames put on links (``PauseEvent`` data), bytes of each flow per leaf
  uplink, CE-marked frames delivered to RNICs.
* ``Sampler``: every ``interval_ns`` the utilisation of each link direction (the share of
  the interval it spent serialising frames, a frame that straddles a sample counted in
  part, so it never exceeds 1) and the depth of every queue that was ever used.

Flow attribution reads fixed offsets of a RoCEv2 frame (no scapy on the hot path)::

    0 Ether(14) | 14 IPv4(20): tos@15 proto@23 dst@30 | 34 UDP(8): dport@36
                | 42 BTH(12): opcode@42 dqpn@47..49
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from emulator.vocab import UDP_PORT_ROCEV2, EtherType

if TYPE_CHECKING:
    from emulator.runtime.virtual.lazysample import SampledBox
    from emulator.runtime.virtual.links import LinkDir

ROCE_PORT = UDP_PORT_ROCEV2.to_bytes(2, "big")
IPV4 = EtherType.IPV4.to_bytes(2, "big")
MAX_RC_REQUEST_OPCODE = 0x0B  # RC SEND / RDMA WRITE opcodes (data); ACK is 0x11

FlowKey = tuple[bytes, int]  # (destination IPv4 address, destination QPN)


class Ledger:
    """Per-frame observations shared by links and hosts."""

    def __init__(self) -> None:
        #: (t_ns, node, port, priority, quanta) per class enabled in a PFC frame on a wire
        self.pauses: list[tuple[int, str, int, int, int]] = []
        self.uplink_bytes: dict[FlowKey, dict[str, int]] = {}
        self.ce_delivered = 0
        #: flow key of a data frame that is not RoCEv2 (the IB framing's ``flow_key``)
        self.flow_key: Callable[[bytes], FlowKey | None] | None = None

    def on_pfc(self, link: LinkDir, frame: bytes, t: int) -> None:
        """A PFC frame leaves ``link.src``; remember each enabled class and its quanta."""
        if len(frame) < 34 or frame[14:16] != b"\x01\x01":
            return  # 802.3x PAUSE or malformed: no per-class data
        cev = int.from_bytes(frame[16:18], "big")
        for prio in range(8):
            if cev >> prio & 1:
                q = int.from_bytes(frame[18 + 2 * prio : 20 + 2 * prio], "big")
                self.pauses.append((t, link.src, link.src_port, prio, q))

    def attribute(self, uplink: str, frame: bytes) -> None:
        """Count a RoCE (or, with ``flow_key``, IB) data frame leaving a leaf on ``uplink``."""
        if frame[12:14] != IPV4 and self.flow_key is not None:
            found = self.flow_key(frame)
            if found is None:
                return
            key = found
        elif (
            len(frame) < 54
            or frame[12:14] != IPV4
            or frame[36:38] != ROCE_PORT
            or frame[42] > MAX_RC_REQUEST_OPCODE
        ):
            return
        else:
            key = (frame[30:34], int.from_bytes(frame[47:50], "big"))
        per = self.uplink_bytes.get(key)
        if per is None:
            per = self.uplink_bytes[key] = {}
        per[uplink] = per.get(uplink, 0) + len(frame)

    def uplinks(self, dst_ip: str, qpn: int) -> list[str]:
        """Uplinks that carried data of the flow to ``dst_ip``/``qpn``, by name."""
        key = (bytes(int(x) for x in dst_ip.split(".")), qpn)
        return sorted(self.uplink_bytes.get(key, {}))


class Sampler:
    """Periodic link-utilisation and queue-depth samples."""

    def __init__(self, links: Sequence[LinkDir], boxes: Sequence[SampledBox]) -> None:
        self.links = list(links)
        self.boxes = list(boxes)
        self.t_ns: array[int] = array("q")
        self.util: list[array[float]] = [array("d") for _ in self.links]  # 8 B per sample
        self._prev = [0] * len(self.links)
        self._prev_t = 0
        #: (switch, port, priority) -> (t_ns list, depth list), from the first sample it was used
        self.queues: dict[tuple[str, int, int], tuple[array[int], array[int]]] = {}
        self._series: list[list[tuple[array[int], array[int]]]] = [[] for _ in self.boxes]

    def sample(self, t: int) -> None:
        """Take one sample at ``t`` (no-op when no time passed since the last one)."""
        dt = t - self._prev_t
        if dt <= 0:
            return
        self.t_ns.append(t)
        prev, util = self._prev, self.util
        for i, link in enumerate(self.links):
            rest = link.busy_until - t  # busy_at(t), inlined: this loop is per link per sample
            busy = link.busy_ns - rest if rest > 0 else link.busy_ns
            u = (busy - prev[i]) / dt
            util[i].append(u if u < 1.0 else 1.0)
            prev[i] = busy
        self._prev_t = t
        for box, series in zip(self.boxes, self._series):
            # ``active`` only grows, in insertion order: the i-th queue keeps its index
            for i, (key, depth) in enumerate(box.queues.active_depths()):
                if i == len(series):
                    series.append((array("q"), array("q")))
                    self.queues[(box.name, *key)] = series[i]
                series[i][0].append(t)
                series[i][1].append(depth)
