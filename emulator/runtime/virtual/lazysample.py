"""The sampler of :mod:`.measure`, filled in lazily: the same series at a fraction of the cost.

The eager ``Sampler`` visits every link direction and every used queue at every sample,
though most of them did not change since the last one (a 256-host fabric: ~1,000 link
directions, ~1,200 queues, ~20 % of the run's CPU time). Between two of its own frames a
link's ``busy_ns``/``busy_until`` are constant, and between two enqueues/dequeues a queue's
depth is, so the samples taken meanwhile can be computed later from that constant state:

* ``sample(t)`` only records ``t`` (and which queues became used since the last sample);
* ``LinkDir.send`` calls back before changing that state, the TM's observer
  (``QueueWatch``) right after an enqueue/dequeue with the depth before it, and the
  samples taken since that object's last change are filled in then;
* ``util`` / ``queues`` fill in every object up to the last sample when they are read.

Every value is computed by the same expression from the same inputs as the eager sampler,
so the series are identical (``FABEMU_LAZYSAMPLE=0`` runs the eager one).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence, Sized
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from emulator.runtime.virtual.links import LinkDir
    from emulator.runtime.virtual.nodes import QueueWatch
    from emulator.target.tm import TrafficManager

QueueKey = tuple[int, int]  # (port, priority)


class SampledBox(Protocol):
    """What the sampler reads of a switch box (a ``SwitchBox``, or a test's stand-in)."""

    @property
    def name(self) -> str: ...

    @property
    def tm(self) -> TrafficManager: ...

    @property
    def queues(self) -> QueueWatch: ...


class _Track:
    """The depth series of one queue: first sample, samples filled so far, the queue."""

    __slots__ = ("depth", "entries", "filled", "start")

    def __init__(self, start: int, entries: Sized) -> None:
        self.start = self.filled = start
        self.depth: array[int] = array("q")
        self.entries = entries


class LazySampler:
    """Periodic link-utilisation and queue-depth samples, computed when state changes."""

    def __init__(self, links: Sequence[LinkDir], boxes: Sequence[SampledBox]) -> None:
        self.links = list(links)
        self.boxes = list(boxes)
        self.t_ns: array[int] = array("q")
        self.n = 0  # samples taken
        self._util: list[array[float]] = [array("d") for _ in self.links]
        self._prev_t = 0
        self._links_filled = 0  # every link is filled up to this sample
        self._tracks: list[dict[QueueKey, _Track]] = [{} for _ in self.boxes]
        self._order: list[tuple[str, QueueKey, _Track]] = []  # as the eager sampler finds them
        self._queues: tuple[int, int, dict[Any, Any]] = (-1, 0, {})  # (n, len(_order), view)
        for link, out in zip(self.links, self._util):
            link.watch, link.sampled, link.sample_out, link.sample_prev = self, 0, out, 0
        for box, tracks in zip(self.boxes, self._tracks):
            box.queues.watch = self._queue_watch(tracks)
            if hasattr(box.queues, "tracks"):  # fasthop.FastQueueWatch fills tracks itself
                box.queues.tracks, box.queues.sampler = tracks, self  # type: ignore[attr-defined]

    def sample(self, t: int) -> None:
        """Take one sample at ``t`` (no-op when no time passed since the last one)."""
        if t - self._prev_t <= 0:
            return
        for box, tracks in zip(self.boxes, self._tracks):
            if len(tracks) != len(box.queues.active):  # ``active`` only grows, in order
                for key in list(box.queues.active)[len(tracks) :]:
                    track = _Track(self.n, box.tm.depth_gauge(*key))
                    tracks[key] = track
                    self._order.append((box.name, key, track))
        self.t_ns.append(t)
        self.n += 1
        self._prev_t = t

    # -- links -----------------------------------------------------------------------------

    def fill_link(self, link: LinkDir) -> None:
        """Compute ``link``'s samples taken since it last changed (before it changes)."""
        k, n, t_ns = link.sampled, self.n, self.t_ns
        out, prev = link.sample_out, link.sample_prev
        busy_ns, busy_until = link.busy_ns, link.busy_until
        t_last = t_ns[k - 1] if k else 0  # the first interval starts at 0
        while k < n:
            t = t_ns[k]
            rest = busy_until - t
            busy = busy_ns - rest if rest > 0 else busy_ns
            u = (busy - prev) / (t - t_last)
            out.append(u if u < 1.0 else 1.0)
            prev, t_last = busy, t
            k += 1
            if rest <= 0 and k < n:  # idle from here on: busy stays, utilisation 0
                out.extend(array("d", [0.0]) * (n - k))
                k = n
        link.sample_prev = prev
        link.sampled = n

    @property
    def util(self) -> list[array[float]]:
        """Utilisation series per link direction (``links`` order), every sample filled."""
        if self._links_filled != self.n:
            for link in self.links:
                if link.sampled != self.n:
                    self.fill_link(link)
            self._links_filled = self.n
        return self._util

    # -- queues ----------------------------------------------------------------------------

    def _queue_watch(self, tracks: dict[QueueKey, _Track]) -> Any:
        """The callback a box's queue watch calls when a queue's depth changed: ``(port,
        priority, depth before)``; the samples taken since its last change saw that depth."""

        def watch(port: int, priority: int, depth: int) -> None:
            track = tracks.get((port, priority))
            if track is not None and track.filled != self.n:
                self._fill_queue(track, depth)

        return watch

    def _fill_queue(self, track: _Track, depth: int) -> None:
        track.depth.extend(array("q", [depth]) * (self.n - track.filled))
        track.filled = self.n

    @property
    def queues(self) -> dict[tuple[str, int, int], tuple[array[int], array[int]]]:
        """(switch, port, priority) -> (t_ns, depth) from the first sample it was used."""
        n, known, out = self._queues
        if n == self.n and known == len(self._order):
            return out
        out = {}
        for name, key, track in self._order:
            if track.filled != self.n:
                self._fill_queue(track, len(track.entries))
            out[(name, *key)] = (self.t_ns[track.start :], track.depth)
        self._queues = (self.n, len(self._order), out)
        return out
