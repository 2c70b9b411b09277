"""Root-namespace link operations over netlink (pyroute2), for the Mininet runtime and clean.

Netlink instead of shelling out to ``ip``: no command strings, errors as exceptions.
"""

from __future__ import annotations

from pyroute2 import IPRoute
from pyroute2.netlink.exceptions import NetlinkError


def link_exists(name: str) -> bool:
    """Whether an interface called ``name`` exists in this network namespace."""
    with IPRoute() as ipr:
        return bool(ipr.link_lookup(ifname=name))


def delete_link(name: str) -> bool:
    """Delete interface ``name`` (its veth peer goes with it); False if it was not there."""
    with IPRoute() as ipr:
        idx = ipr.link_lookup(ifname=name)
        if not idx:
            return False
        try:
            ipr.link("del", index=idx[0])
        except NetlinkError:
            return False
        return True


def set_link_state(name: str, up: bool) -> None:
    """Bring interface ``name`` up or down (a link failing mid-run)."""
    with IPRoute() as ipr:
        idx = ipr.link_lookup(ifname=name)
        if not idx:
            raise LookupError(f"no interface {name!r}")
        ipr.link("set", index=idx[0], state="up" if up else "down")
