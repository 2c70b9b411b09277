"""Whether a Mininet run's configured link rates are within what its switches can forward.

Mininet links are shaped to the configured rate, but the switches are processes on this
machine: the built-in switch forwards about 30 kpps through veth and the real BMv2
simple_switch about 11.5 kpps (README "Measured here": benchmarks/bench_switch_veth.py,
benchmarks/bench_target.py). Above that, measured rates describe the switches' CPU, not
the fabric, and the run says so.
"""

from __future__ import annotations

from typing import Any

#: packets per second one switch process forwards on a 2-core machine (measured, see above)
FORWARDING_PPS = {"builtin": 30_000.0, "bmv2": 11_500.0}
#: bytes a RoCEv2 frame adds to its payload on the wire (pfc_headroom.FRAME_OVERHEAD)
FRAME_OVERHEAD = 98


def capacity_warning(topo: Any, target: str, mtu: int) -> str | None:
    """A sentence saying the fastest link outruns the switches, or None when it does not."""
    pps = FORWARDING_PPS.get(target)
    rates = [p.rate_bps for s in topo.switches for p in s.ports]
    if pps is None or not rates:
        return None
    fastest = max(rates)
    need = fastest / ((mtu + FRAME_OVERHEAD) * 8)
    if need <= pps:
        return None
    can = pps * (mtu + FRAME_OVERHEAD) * 8
    return (
        f"links are configured at {fastest / 1e9:g} Gb/s ({need / 1e3:,.0f} kpps per port at "
        f"MTU {mtu}), but a {target} switch forwards only about {pps / 1e3:g} kpps "
        f"(~{can / 1e6:,.0f} Mb/s) on this machine: measured rates will reflect the "
        "switches' CPU, not the links (use --runtime virtual for the configured rate)"
    )
