"""Externs and primitives: registers, counters, meters, hashes, random, log_msg, assert,
header copies, stacks, signed arithmetic."""

from __future__ import annotations

import pytest

from emulator.target import hashes
from emulator.target.cli_values import parse_counter
from emulator.target.errors import CliError
from emulator.target.switch import Switch

from .bmv2json import Program, assign, eth_ipv4_udp, ex, fld, hdr, hexv, masked, prim
from .fakes import FifoTM, ipv4_udp

SM = "standard_metadata"
ES = fld(SM, "egress_spec")
TTL, TOS, SRC = fld("ipv4", "ttl"), fld("ipv4", "diffserv"), fld("ipv4", "srcAddr")
REG = {"type": "register_array", "value": "MyIngress.reg"}


def program(prims, scalars=None, **extra):
    """eth/ipv4/udp; ingress = one keyless table whose default action runs ``prims``."""
    p = Program(scalars=scalars or [("tmp", 32), ("s", 8)])
    eth_ipv4_udp(p)
    a = p.action("MyIngress.act", [], [assign(ES, hexv(1)), *prims])
    p.table(0, "MyIngress.t", [], [a], a)
    p.doc["register_arrays"].append({"name": "MyIngress.reg", "id": 0, "size": 8, "bitwidth": 16})
    p.doc["counter_arrays"].append(
        {"name": "MyIngress.ctr", "id": 0, "size": 4, "is_direct": False}
    )
    p.doc["meter_arrays"].append(
        {
            "name": "MyIngress.mtr",
            "id": 0,
            "size": 2,
            "type": "packets",
            "rate_count": 2,
            "is_direct": False,
        }
    )
    for k, v in extra.items():
        p.doc[k] = v
    return p.doc


class Clock:
    now = 0

    def __call__(self):
        return self.now


def run(sw, frame=None):
    [(_, out)] = sw.process(1, frame or ipv4_udp())
    return out


def test_register_read_modify_write_and_cli():
    idx = hexv(3)
    sw = Switch(
        program(
            [
                prim("register_read", fld("scalars", "tmp"), REG, idx),
                prim(
                    "register_write", REG, idx, masked(ex("+", fld("scalars", "tmp"), hexv(5)), 16)
                ),
                assign(TOS, fld("scalars", "tmp")),
            ]
        ),
        tm=FifoTM(lambda: 0),
    )
    assert run(sw)[15] == 0
    assert run(sw)[15] == 5
    assert sw.cli("register_read MyIngress.reg 3") == "MyIngress.reg[3]= 10"
    sw.cli("register_write reg 3 100")
    assert run(sw)[15] == 100
    assert sw.registers["MyIngress.reg"].values[3] == 105
    sw.cli("register_reset reg")
    assert sw.cli("register_read reg").startswith("MyIngress.reg= 0, 0")
    with pytest.raises(CliError, match="out of range"):
        sw.cli("register_read reg 8")
    with pytest.raises(CliError, match="does not fit"):
        sw.cli("register_write reg 0 0x10000")


def test_indirect_counter():
    sw = Switch(
        program([prim("count", {"type": "counter_array", "value": "MyIngress.ctr"}, hexv(2))]),
        tm=FifoTM(lambda: 0),
    )
    frame = ipv4_udp(payload=b"12345")
    run(sw, frame)
    run(sw, frame)
    reply = sw.cli("counter_read MyIngress.ctr 2")
    assert reply == f"MyIngress.ctr[2]= ({2 * len(frame)} bytes, 2 packets)"  # as simple_switch_CLI
    assert parse_counter(sw.cli("counter_read ctr 2")) == (2 * len(frame), 2)
    assert sw.counters["MyIngress.ctr"].packets == [0, 0, 2, 0]
    sw.cli("counter_reset ctr")
    assert sw.counters["MyIngress.ctr"].packets == [0, 0, 0, 0]


def test_meter_colors_trtcm():
    clock = Clock()
    sw = Switch(
        program(
            [prim("execute_meter", {"type": "meter_array", "value": "MyIngress.mtr"}, hexv(0), TOS)]
        ),
        clock=clock,
        tm=FifoTM(clock),
    )
    assert run(sw)[15] == 0  # unconfigured: GREEN
    # committed 1 pkt/us burst 2, peak 1 pkt/us burst 3 (packet meter)
    sw.cli("meter_set_rates mtr 0 0.000001:2 0.000001:3")
    colors = [run(sw)[15] for _ in range(4)]
    assert colors == [0, 0, 1, 2]  # green, green, yellow (peak has 1 left), red
    clock.now = 10**12  # long idle: buckets refill
    assert run(sw)[15] == 0
    sw.cli("meter_array_set_rates mtr 1:1 1:1")
    with pytest.raises(CliError, match="2 rates"):
        sw.cli("meter_array_set_rates mtr 1:1")
    with pytest.raises(CliError, match="lowest to the highest"):
        sw.cli("meter_set_rates mtr 0 2:1 1:1")


def test_meter_index_out_of_range_leaves_the_destination():
    """simple_switch leaves an execute_meter's destination as it was when the index is
    out of range (found by a differential probe); in range it writes the colour."""
    mtr = {"type": "meter_array", "value": "MyIngress.mtr"}
    prims = [
        assign(TOS, hexv(0xFF)),
        prim("execute_meter", mtr, hexv(9), TOS),  # size 2: out of range
    ]
    assert run(Switch(program(prims), tm=FifoTM(Clock())))[15] == 0xFF
    prims[1] = prim("execute_meter", mtr, hexv(1), TOS)
    assert run(Switch(program(prims), tm=FifoTM(Clock())))[15] == 0  # GREEN


def test_hash_matches_hashes_module_and_crc_custom():
    calc_in = [fld("ipv4", "srcAddr"), fld("ipv4", "dstAddr")]
    calcs = [
        {"name": "h32", "id": 0, "algo": "crc32", "input": calc_in},
        {"name": "h16c", "id": 1, "algo": "crc16_custom", "input": calc_in},
    ]
    sw = Switch(
        program(
            [
                prim(
                    "modify_field_with_hash_based_offset",
                    TOS,
                    hexv(10),
                    {"type": "calculation", "value": "h16c"},
                    hexv(100),
                ),
                prim(
                    "modify_field_with_hash_based_offset",
                    fld("scalars", "tmp"),
                    hexv(0),
                    {"type": "calculation", "value": "h32"},
                    hexv(1 << 32),
                ),
                assign(SRC, fld("scalars", "tmp")),
            ],
            calculations=calcs,
        ),
        tm=FifoTM(lambda: 0),
    )
    out = run(sw, ipv4_udp(src=0x01020304, dst=0x0A010101))
    data = bytes.fromhex("010203040a010101")
    assert int.from_bytes(out[26:30], "big") == hashes.crc32(data)
    assert out[15] == 10 + hashes.crc16(data) % 100
    sw.cli("set_crc16_parameters h16c 0x1021 0xffff 0x0000 false false")
    out = run(sw, ipv4_udp(src=0x01020304, dst=0x0A010101))
    assert out[15] == 10 + hashes.crc16_ccitt(data) % 100
    with pytest.raises(CliError, match="not crc16_custom"):
        sw.cli("set_crc16_parameters h32 1 2 3 true true")


def test_random_is_seeded_and_in_range():
    prims = [prim("modify_field_rng_uniform", TOS, hexv(10), hexv(20))]
    a = Switch(program(prims), seed=7, tm=FifoTM(lambda: 0))
    b = Switch(program(prims), seed=7, tm=FifoTM(lambda: 0))
    va = [run(a)[15] for _ in range(20)]
    assert va == [run(b)[15] for _ in range(20)]
    assert all(10 <= v <= 20 for v in va) and len(set(va)) > 1


def test_log_msg_and_assert():
    logged = []
    sw = Switch(
        program(
            [
                prim(
                    "log_msg",
                    {"type": "string", "value": "ttl={} tos={}"},
                    {"type": "parameters_vector", "value": [TTL, TOS]},
                ),
                prim("assert", ex("!=", TTL, hexv(1))),
            ]
        ),
        log=logged.append,
        tm=FifoTM(lambda: 0),
    )
    run(sw, ipv4_udp(ttl=9))
    assert logged == ["ttl=9 tos=0"]
    assert sw.process(1, ipv4_udp(ttl=1)) == []  # assertion failure: packet dropped, counted
    assert sw.stats["assert_failures"] == 1


def test_header_copy_remove_and_add():
    sw = Switch(
        program(
            [
                prim("assign_header", hdr("udp"), hdr("udp")),
                prim("remove_header", hdr("udp")),
            ]
        ),
        tm=FifoTM(lambda: 0),
    )
    frame = ipv4_udp(payload=b"zz")
    assert run(sw, frame) == frame[:34] + b"zz"  # udp no longer emitted


def test_signed_arithmetic_and_casts():
    p = Program(scalars=[("tmp", 32)])
    p.doc["header_types"].append({"name": "sg_t", "id": 99, "fields": [["v", 8, True]]})
    p.doc["headers"].append({"name": "sg", "id": 2, "header_type": "sg_t", "metadata": False})
    p.doc["deparsers"][0]["order"].append("sg")
    p.state("start", [prim("extract", {"type": "regular", "value": "sg"})])
    a = p.action(
        "act",
        [],
        [
            assign(fld(SM, "egress_spec"), hexv(1)),
            # v = (v < 0) ? two_comp_mod(v - 100, 8) : v
            assign(
                fld("sg", "v"),
                {
                    "type": "expression",
                    "value": {
                        "op": "?",
                        "cond": ex("<", fld("sg", "v"), hexv(0)),
                        "left": {
                            "type": "expression",
                            "value": {
                                "op": "two_comp_mod",
                                "left": ex("-", fld("sg", "v"), hexv(100)),
                                "right": hexv(8),
                            },
                        },
                        "right": fld("sg", "v"),
                    },
                },
            ),
        ],
    )
    p.table(0, "t", [], [a], a)
    sw = Switch(p.doc, tm=FifoTM(lambda: 0))
    assert sw.process(1, b"\xfe") == [(1, bytes([(-2 - 100) & 0xFF]))]
    assert sw.process(1, b"\x05") == [(1, b"\x05")]


def test_random_hash_algorithm_is_seeded():
    calcs = [{"name": "hr", "id": 0, "algo": "random", "input": [fld("ipv4", "srcAddr")]}]
    prims = [prim("modify_field_with_hash_based_offset", TOS, hexv(0),
                  {"type": "calculation", "value": "hr"}, hexv(256))]  # fmt: skip
    a = Switch(program(prims, calculations=calcs), seed=3, tm=FifoTM(lambda: 0))
    b = Switch(program(prims, calculations=calcs), seed=3, tm=FifoTM(lambda: 0))
    va = [run(a)[15] for _ in range(10)]
    assert va == [run(b)[15] for _ in range(10)] and len(set(va)) > 1
