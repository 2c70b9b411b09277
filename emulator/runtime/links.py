"""Root-namespace link operations over netlink (pyroute2), for the Mininet runtime and clean.

Netlink instead of shelling out to ``ip``: no command strings, errors as exceptions.
pyroute2 is imported on first use: importing it costs ~0.2 s of CPU, and every
``fabemu run`` imports this module (through the run-state records) without needing it.
"""

from __future__ import annotations

import re
from typing import Any


def _iproute() -> Any:
    """A pyroute2 ``IPRoute`` (imported now: see the module docstring)."""
    from pyroute2 import IPRoute

    return IPRoute()


#: the root-namespace interfaces fabemu creates: switch ports named after fabemu's switch
#: names (``rtswN-ethP``, ``ctswN-ethP``, ``atswN-ethP``; see emulator.topology.addressing)
_FABEMU_LINK = re.compile(r"(?:rtsw|ctsw|atsw)\d{1,5}-eth\d{1,3}")


def is_fabemu_link(name: str) -> bool:
    """Whether ``name`` is one of fabemu's interface names (the only ones clean deletes)."""
    return bool(_FABEMU_LINK.fullmatch(name)) and len(name) <= 15  # IFNAMSIZ - 1


def link_exists(name: str) -> bool:
    """Whether an interface called ``name`` exists in this network namespace."""
    with _iproute() as ipr:
        return bool(ipr.link_lookup(ifname=name))


def delete_link(name: str) -> bool:
    """Delete interface ``name`` (its veth peer goes with it); False if it was not there."""
    with _iproute() as ipr:
        idx = ipr.link_lookup(ifname=name)
        if not idx:
            return False
        from pyroute2.netlink.exceptions import NetlinkError

        try:
            ipr.link("del", index=idx[0])
        except NetlinkError:
            return False
        return True


def set_link_state(name: str, up: bool) -> None:
    """Bring interface ``name`` up or down (a link failing mid-run)."""
    with _iproute() as ipr:
        idx = ipr.link_lookup(ifname=name)
        if not idx:
            raise LookupError(f"no interface {name!r}")
        ipr.link("set", index=idx[0], state="up" if up else "down")
