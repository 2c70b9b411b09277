"""Throwaway network namespaces joined by veth pairs, for root tests and benchmarks.

    netns <prefix>-h (hosts)           netns <prefix>-s (switch)
      <p>h1  ═══════ veth ═══════  <p>s1   ─┐
      <p>h2  ═══════ veth ═══════  <p>s2   ─┴─ fabemu switch -i 1@<p>s1 -i 2@<p>s2

Everything lives in the two namespaces, so deleting them (always, in ``close``) removes
every veth too; processes started with :meth:`VethLab.popen` are killed by PID first.
Names are unique per lab (prefix from the PID and a counter); only ``ip`` is used, with
argv lists.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
from collections.abc import Sequence
from types import TracebackType

_counter = itertools.count()


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


class VethLab:
    """``pairs`` veth pairs between a host namespace and a switch namespace."""

    def __init__(self, pairs: int = 2) -> None:
        tag = f"fe{os.getpid() % 100000}x{next(_counter)}"
        self.host_ns = f"{tag}-h"
        self.switch_ns = f"{tag}-s"
        self.host_ifs = [f"{tag}h{i + 1}" for i in range(pairs)]
        self.switch_ifs = [f"{tag}s{i + 1}" for i in range(pairs)]
        self._procs: list[subprocess.Popen[bytes]] = []
        self._made: list[str] = []
        try:
            for ns in (self.host_ns, self.switch_ns):
                _ip("netns", "add", ns)
                self._made.append(ns)
            for h, s in zip(self.host_ifs, self.switch_ifs):
                _ip("link", "add", h, "netns", self.host_ns, "type", "veth",
                    "peer", "name", s, "netns", self.switch_ns)  # fmt: skip
            for ns, names in ((self.host_ns, self.host_ifs), (self.switch_ns, self.switch_ifs)):
                self.run_in(ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
                self.run_in(ns, ["ip", "link", "set", "lo", "up"])
                for name in names:
                    self.run_in(ns, ["ip", "link", "set", name, "up"])
        except BaseException:
            self.close()
            raise

    def run_in(
        self, ns: str, argv: Sequence[str], timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside namespace ``ns`` and wait (check=True)."""
        return subprocess.run(
            ["ip", "netns", "exec", ns, *argv],
            check=True, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def popen(self, ns: str, argv: Sequence[str], **kw: object) -> subprocess.Popen[bytes]:
        """Start ``argv`` inside ``ns``; killed by PID in :meth:`close` if still running."""
        proc = subprocess.Popen(["ip", "netns", "exec", ns, *argv], **kw)  # type: ignore[call-overload]
        self._procs.append(proc)
        return proc

    def close(self) -> None:
        """Kill our processes (by PID) and delete both namespaces with their veths."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
        for ns in reversed(self._made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        self._made.clear()

    def exists(self) -> bool:
        """Whether either namespace still exists (for leak checks)."""
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        names = {line.split()[0] for line in out.splitlines() if line.strip()}
        return self.host_ns in names or self.switch_ns in names

    def __enter__(self) -> VethLab:
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()
