"""Netlink link helpers (pyroute2) on a throw-away veth pair in the root namespace."""

from __future__ import annotations

import os

import pytest
from pyroute2 import IPRoute

from emulator.runtime.links import delete_link, link_exists, set_link_state

pytestmark = pytest.mark.root


def _state(name: str) -> str:
    with IPRoute() as ipr:
        (link,) = ipr.get_links(ipr.link_lookup(ifname=name)[0])
        return str(link.get_attr("IFLA_OPERSTATE") or "")


def test_veth_lifecycle() -> None:
    name, peer = f"fbt{os.getpid() % 100000}a", f"fbt{os.getpid() % 100000}b"
    with IPRoute() as ipr:
        ipr.link("add", ifname=name, kind="veth", peer=peer)
    try:
        assert link_exists(name) and link_exists(peer)
        set_link_state(peer, up=True)
        set_link_state(name, up=True)
        assert _state(name) in ("UP", "LOWERLAYERDOWN", "UNKNOWN")
        set_link_state(name, up=False)
        assert _state(name) == "DOWN"
        with pytest.raises(LookupError, match="no interface"):
            set_link_state("fbt-no-such", up=True)
    finally:
        assert delete_link(name)  # the peer goes with it
    assert not link_exists(name) and not link_exists(peer)
    assert delete_link(name) is False
