"""The ibsim net file and the readback parsers (no processes started)."""

from __future__ import annotations

import re

import pytest

from emulator.ib import subnet
from emulator.ib.netfile import render_netfile
from emulator.ib.routing import IbRoutingError, parse_ibroute, parse_subnet_lst
from emulator.ib.subnet import IbToolsMissing, SmOptions, find_tools
from emulator.topology import load_clos, resolve

_REC = re.compile(r'^(Switch|Hca)\t(\d+) "(\S+)"$')
_PORT = re.compile(r'^\[(\d+)\]\t"(\S+)"\[(\d+)\]$')


def _parse(text: str) -> dict[tuple[str, int], tuple[str, int]]:
    wires: dict[tuple[str, int], tuple[str, int]] = {}
    node = ""
    for line in text.splitlines():
        if m := _REC.match(line):
            node = m.group(3)
        elif m := _PORT.match(line):
            wires[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return wires


@pytest.mark.parametrize("name", ["two_rack_2spine", "two_zone_atsw"])
def test_netfile_lists_every_link_from_both_ends(name: str) -> None:
    topo = resolve(load_clos(name))
    wires = _parse(render_netfile(topo))
    assert len(wires) == 2 * len(topo.links)
    for end, peer in wires.items():
        assert wires[peer] == end  # symmetric
    for lk in topo.links:
        a_port = 1 if topo.is_host(lk.a) else lk.a_port
        assert wires[(lk.a, a_port)] == (lk.b, lk.b_port)


IBROUTE = """Unicast lids [0x0-0x5] of switch Lid 4 guid 0x0000000000200000 (rtsw0):
  Lid  Out   Destination
       Port     Info
0x0001 255 : (illegal port)
0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'h0')
0x0003 001 : (path #2 out of 2: portguid 0x0000000000100001)
0x0004 000 : (Switch portguid 0x0000000000200000: 'rtsw0')
0x0005 003 : (Switch portguid 0x0000000000200001: 'rtsw1')
4 lids dumped
"""


def test_parse_ibroute() -> None:
    name, lft, names = parse_ibroute(IBROUTE)
    assert name == "rtsw0"
    assert lft == {2: 1, 3: 1, 4: 0, 5: 3}
    assert names == {2: "h0", 4: "rtsw0", 5: "rtsw1"}
    with pytest.raises(IbRoutingError):
        parse_ibroute("ibwarn: cannot connect")


def test_parse_subnet_lst() -> None:
    line = "{ CA Ports:01 {h0} LID:0002 PN:01 } { SW Ports:04 {rtsw0} LID:000A PN:01 } PHY=4x"
    assert parse_subnet_lst(line) == {"h0": 2, "rtsw0": 10}
    with pytest.raises(IbRoutingError):
        parse_subnet_lst("")


def test_missing_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subnet.shutil, "which", lambda exe: None)
    monkeypatch.setattr(subnet.os, "access", lambda path, mode: False)
    with pytest.raises(IbToolsMissing, match=r"ibsim-utils.*scripts/setup\.sh"):
        find_tools()


def test_missing_umad2sim_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subnet.shutil, "which", lambda exe: f"/usr/bin/{exe}")
    monkeypatch.setattr(subnet, "UMAD2SIM_GLOB", "/nonexistent/*/libumad2sim.so")
    with pytest.raises(IbToolsMissing, match="libumad2sim0"):
        find_tools()


@pytest.mark.parametrize(
    ("kw", "msg"),
    [({"engine": "lash"}, "choose one of"), ({"lmc": 8}, "0..7"), ({"lmc": 1}, "ftree")],
)
def test_bad_sm_options(kw: dict[str, object], msg: str) -> None:
    with pytest.raises(Exception, match=msg):
        SmOptions(**kw)  # type: ignore[arg-type]
