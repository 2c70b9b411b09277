"""The shared vocabulary (emulator.vocab) agrees with the P4 programs' constants, name by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from emulator import vocab
from emulator.control import names
from emulator.ib import commands as ib_commands
from emulator.ib import headers as ib_headers
from emulator.vocab import EtherType, HashAlgo, LbMode, MacControlOpcode, Role

ROOT = Path(__file__).resolve().parents[2]
_CONST = re.compile(r"^\s*const\s+bit<\d+>\s+(\w+)\s*=\s*(0x[0-9A-Fa-f]+|\d+)\s*;", re.M)
_DEFINE = re.compile(r"^\s*#define\s+(\w+)\s+(?:\d+w)?(0x[0-9A-Fa-f]+|\d+)\b", re.M)


def p4_constants(*files: str) -> dict[str, int]:
    """``const bit<N> NAME = V;`` and numeric ``#define NAME V`` of the given p4/ files."""
    out: dict[str, int] = {}
    for name in files:
        text = (ROOT / "p4" / "include" / name).read_text()
        for m in (*_CONST.finditer(text), *_DEFINE.finditer(text)):
            out[m.group(1)] = int(m.group(2), 0)
    return out


ROCE = p4_constants("headers.p4")
IB = p4_constants("ib_headers.p4")

#: every number the vocabulary mirrors: (P4 constant, file's constants, Python value)
MIRRORED = [
    *((m.p4_name, ROCE, m.code) for m in LbMode),
    *((h.p4_name, ROCE, h.code) for h in HashAlgo),
    *((r.p4_name, ROCE, r.code) for r in Role),
    ("ETHERTYPE_IPV4", ROCE, EtherType.IPV4),
    ("ETHERTYPE_VLAN", ROCE, EtherType.VLAN),
    ("ETHERTYPE_MAC_CTRL", ROCE, EtherType.MAC_CONTROL),
    ("MAC_CTRL_OPCODE_PFC", ROCE, MacControlOpcode.PFC),
    ("MAC_CTRL_DST", ROCE, vocab.MAC_CONTROL_DST),
    ("IP_PROTO_UDP", ROCE, vocab.IP_PROTO_UDP),
    ("UDP_PORT_ROCEV2", ROCE, vocab.UDP_PORT_ROCEV2),
    ("NUM_PRIOS", ROCE, vocab.NUM_TCS),
    ("PFC_MIRROR_BASE", ROCE, vocab.PFC_MIRROR_BASE),
    ("DROP_PORT", ROCE, vocab.DROP_PORT),
    ("ETHERTYPE_IB_SHIM", IB, EtherType.IB_SHIM),
    # the IB fabric's own numbers, mirrored where the IB layer uses them
    ("ETHERTYPE_IB_SHIM", IB, ib_headers.ETHERTYPE_IB_SHIM),
    ("LNH_IBA_LOCAL", IB, ib_headers.LNH_IBA_LOCAL),
    ("AR_MAX", IB, ib_commands.AR_MAX),
    ("IB_LIDS", IB, ib_commands.IB_LIDS),
]


@pytest.mark.parametrize(("p4_name", "consts", "value"), MIRRORED, ids=[m[0] for m in MIRRORED])
def test_vocabulary_equals_the_p4_constant(
    p4_name: str, consts: dict[str, int], value: int
) -> None:
    assert p4_name in consts, f"{p4_name} is not a constant of the P4 program any more"
    assert consts[p4_name] == int(value), f"{p4_name}: P4 {consts[p4_name]}, Python {value}"


def test_every_p4_lb_hash_and_role_constant_has_a_python_name() -> None:
    """A mode added to headers.p4 but not to the vocabulary fails here (and vice versa)."""
    for prefix, enum in (("LB_", LbMode), ("HASH_", HashAlgo), ("ROLE_", Role)):
        p4 = {k: v for k, v in ROCE.items() if k.startswith(prefix)}
        py = {m.p4_name: m.code for m in enum}  # type: ignore[attr-defined]
        assert p4 == py


def test_codes_are_distinct_and_the_wire_overhead_adds_up() -> None:
    for enum in (LbMode, HashAlgo, Role):
        codes = [m.code for m in enum]  # type: ignore[attr-defined]
        assert len(set(codes)) == len(codes)
    assert vocab.WIRE_OVERHEAD_BYTES == 24 == vocab.PREAMBLE_BYTES + vocab.IFG_BYTES + 4
    assert names.port_prio_index(2, 3) == 2 * vocab.NUM_TCS + 3


def test_scenario_and_control_plane_speak_the_same_lb_names() -> None:
    """The scenario schema's ``switch.lb`` values are the vocabulary's (no translation table)."""
    from emulator.scenario.schema import SwitchSettings

    for mode in LbMode:
        assert SwitchSettings(lb=mode.value).lb is mode
