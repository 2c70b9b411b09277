"""Glue for runtimes: RNICs for a resolved topology's hosts, and its racks for placement.

Duck-typed on ``emulator.topology.resolve.HostNode`` (name, mac, ip, gateway_mac, zone,
rack, port.rate_bps) so the traffic layer does not import the topology layer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from emulator.traffic.framing import Framing
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.traffic.rnic_fast import make_rnic


def build_rnics(
    hosts: Iterable[Any],
    config: RnicConfig | None = None,
    seed: int = 0,
    framing: Framing | None = None,
) -> dict[str, Rnic]:
    """One RNIC per host, its ``link_bps`` set to the host port's rate when it has one.

    ``framing``: the wire format of every RNIC (None: RoCEv2; the IB fabric passes
    ``emulator.ib.framing.IbFraming``).
    """
    base = config or RnicConfig()
    out = {}
    for i, h in enumerate(hosts):
        rate = getattr(getattr(h, "port", None), "rate_bps", None)
        cfg = dataclasses.replace(base, link_bps=float(rate)) if rate else base
        out[h.name] = make_rnic(
            h.mac, h.ip, h.gateway_mac, framing=framing, seed=seed + i, config=cfg, name=h.name
        )
    return out


def racks(hosts: Iterable[Any]) -> dict[str, list[str]]:
    """``z<zone>r<rack>`` -> host names in topology order (the input of ``workloads.place``)."""
    out: dict[str, list[str]] = {}
    for h in hosts:
        out.setdefault(f"z{h.zone}r{h.rack}", []).append(h.name)
    return out
