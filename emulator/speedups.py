"""Switches for the virtual-time pipeline's speed-ups, read from the environment.

Each speed-up must change nothing but speed (tests/target/test_speedups_scenarios.py runs
every shipped scenario with each one off and compares result.json). ``FABEMU_<NAME>=0``
turns one off, ``FABEMU_FAST=0`` turns every one off (the unoptimised path the
benchmarks compare with); ``FABEMU_<NAME>=1`` forces one on.
"""

from __future__ import annotations

import os

#: speed-up -> on by default
DEFAULTS = {
    "FLOWCACHE": False,  # target/flowcache.py: the megaflow-style decision cache
    "REPLAY": False,  # target/framereplay.py: whole-switch replay (opt-in: docs/target.md)
    "FASTMATCH": True,  # target/fastmatch.py: table nodes specialised to their entries
    "FASTACTIONS": True,  # target/fastmatch.py: straight-line actions inlined (implies FASTMATCH)
    "FASTPARSE": True,  # target/parsefuse.py: a loop-free parser as one function
    "LAZYSAMPLE": True,  # runtime/virtual/lazysample.py: samples filled in on change
    "FASTHOP": True,  # runtime/virtual/fasthop.py, target/tm_fast.py: hop plumbing inlined
    "FASTFRAME": True,  # traffic/framing_fast.py: RNIC frames from per-QP templates
    "FASTNIC": True,  # traffic/rnic_fast.py, qp_fast.py: RNIC per-packet paths inlined
    "COMPILECACHE": True,  # p4c/cache.py: compiled programs kept on disk by content
}
ALL_OFF = "FABEMU_FAST"
_ON = ("1", "on", "true", "yes")
_OFF = ("0", "off", "false", "no")


def enabled(name: str) -> bool:
    """Whether speed-up ``name`` (a key of ``DEFAULTS``) is on in this environment."""
    own = os.environ.get(f"FABEMU_{name}", "").strip().lower()
    if own in _ON:
        return True
    if own in _OFF:
        return False
    if os.environ.get(ALL_OFF, "").strip().lower() in _OFF:
        return False
    return DEFAULTS[name]


def turned_off(name: str) -> bool:
    """Whether ``FABEMU_<name>`` itself turns speed-up ``name`` off (not just FABEMU_FAST=0)."""
    return os.environ.get(f"FABEMU_{name}", "").strip().lower() in _OFF


def environment(on: bool) -> dict[str, str]:
    """Environment variables turning every speed-up on (or off)."""
    value = "1" if on else "0"
    return {f"FABEMU_{name}": value for name in DEFAULTS}
