"""Parser semantics: errors reach ingress (not dropped), stacks, lookahead, value sets, checksums."""

from __future__ import annotations

import struct

import pytest

from emulator.target.errors import ProgramError
from emulator.target.switch import Switch

from .bmv2json import IPV4, UDP, Program, assign, ex, fld, hexv, masked, prim
from .fakes import FifoTM, ipv4_udp

MPLS = [("label", 20), ("tc", 3), ("bos", 1), ("ttl", 8)]
REPORT_SRC = fld("ethernet", "srcAddr")


def parser_program():
    p = Program()
    p.doc["errors"].append(["BadVersion", 7])
    p.header("ethernet", [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)])
    for i in range(2):
        p.header(f"mpls[{i}]", MPLS, type_name="mpls_t")
    p.stack("mpls", ["mpls[0]", "mpls[1]"])
    p.header("ipv4", IPV4)
    p.header("udp", UDP)
    ext = lambda h: prim("extract", {"type": "regular", "value": h})  # noqa: E731
    p.state(
        "start",
        [ext("ethernet")],
        [fld("ethernet", "etherType")],
        [
            ("0x8847", None, "parse_mpls"),
            ("0x0800", None, "parse_ipv4"),
            ("0x88b6", None, "peek"),
            ("0x1234", "0xff00", "parse_ipv4"),
            ("0x9999", None, "nomatch"),
        ],
    )
    p.doc["parsers"][0]["parse_states"][-1]["transitions"].append(
        {"type": "parse_vset", "value": "pvs", "mask": None, "next_state": "parse_ipv4"}
    )
    p.doc["parsers"][0]["parse_states"][-1]["transitions"].append(
        {"type": "default", "value": None, "mask": None, "next_state": None}
    )
    p.doc["parse_vsets"].append({"name": "pvs", "id": 0, "compressed_bitwidth": 16})
    p.state(
        "parse_mpls",
        [prim("extract", {"type": "stack", "value": "mpls"})],
        [{"type": "stack_field", "value": ["mpls", "bos"]}],
        [("0x00", None, "parse_mpls"), (None, None, "parse_ipv4")],
    )
    p.state(
        "parse_ipv4",
        [
            ext("ipv4"),
            prim("verify", ex("==", fld("ipv4", "version"), hexv(4)), hexv(7)),
        ],
        [fld("ipv4", "protocol")],
        [("0x11", None, "parse_udp"), (None, None, None)],
    )
    p.state("parse_udp", [ext("udp")])
    p.state(
        "peek",
        [],
        [{"type": "lookahead", "value": [4, 4]}],
        [("0x05", None, "parse_ipv4"), (None, None, None)],
    )
    p.state("nomatch", [], [fld("ethernet", "dstAddr")], [("0x01", None, None)])
    report = p.action(
        "report",
        [],
        [
            assign(
                REPORT_SRC,
                ex(
                    "|",
                    ex("<<", fld("standard_metadata", "parser_error"), hexv(8)),
                    fld("standard_metadata", "checksum_error"),
                ),
            ),
            assign(fld("standard_metadata", "egress_spec"), hexv(1)),
        ],
    )
    p.table(0, "t0", [], [report], report)
    p.ipv4_checksum("c", "ck", verify=True, update=False)
    return p.doc


@pytest.fixture
def sw():
    return Switch(parser_program(), tm=FifoTM(lambda: 0))


def report(sw, frame):
    [(port, out)] = sw.process(0, frame)
    assert port == 1
    value = int.from_bytes(out[6:12], "big")
    return value >> 8, value & 0xFF, out


def test_good_packet_no_error(sw):
    assert report(sw, ipv4_udp())[:2] == (0, 0)


def test_too_short_reaches_ingress_with_packet_too_short(sw):
    frame = ipv4_udp()[:30]  # ethernet + 16 bytes: the 20-byte IPv4 header does not fit
    err, _, out = report(sw, frame)
    assert err == 1
    assert out[12:] == frame[12:]  # ipv4 stayed invalid: the rest is payload, untouched
    # even Ethernet fails: ingress still runs (forwards), nothing valid to deparse
    assert sw.process(0, b"\x01\x02") == [(1, b"\x01\x02")]


def test_verify_failure_sets_custom_error(sw):
    frame = bytearray(ipv4_udp())
    frame[14] = 0x65  # version 6
    assert report(sw, bytes(frame))[0] == 7


def test_no_match_without_default_accepts_like_bmv2(sw):
    # BMv2's ParseState falls back to its default next state, which is "accept" (nullptr)
    # when the JSON has no default transition: no NoMatch error is raised.
    frame = b"\x02" * 6 + b"\x00" * 6 + b"\x99\x99" + b"x" * 10
    err, _, out = report(sw, frame)
    assert err == 0 and out[14:] == b"x" * 10


def test_checksum_error_is_flagged(sw):
    frame = bytearray(ipv4_udp())
    frame[24] ^= 0xFF
    assert report(sw, bytes(frame))[:2] == (0, 1)


def test_mpls_stack_and_out_of_bounds(sw):
    ip = ipv4_udp()[14:]

    def mpls(label, bos):
        return struct.pack("!I", (label << 12) | (bos << 8) | 64)

    eth = b"\x00" * 12 + b"\x88\x47"
    assert report(sw, eth + mpls(5, 0) + mpls(6, 1) + ip)[0] == 0
    assert report(sw, eth + mpls(5, 0) + mpls(6, 0) + mpls(7, 1) + ip)[0] == 3


def test_lookahead_masked_and_value_set(sw):
    ip = ipv4_udp()[14:]
    err, _, out = report(sw, b"\x00" * 12 + b"\x88\xb6" + ip)  # lookahead sees ihl 5
    assert err == 0 and out[14:] == ip
    assert report(sw, b"\x00" * 12 + b"\x12\x99" + ip)[0] == 0  # 0x1234 &&& 0xff00
    err, _, out = report(sw, b"\x00" * 12 + b"\x77\x77" + ip)
    assert (err, out[14:]) == (0, ip)  # default accept: ip unparsed
    sw.cli("pvs_add pvs 0x7777")
    frame = bytearray(b"\x00" * 12 + b"\x77\x77" + ip)
    frame[14] = 0x65
    assert report(sw, bytes(frame))[0] == 7  # now parsed as IPv4 -> verify fails


def test_varbit_programs_are_rejected_clearly():
    doc = Program().doc
    doc["header_types"].append({"name": "opt_t", "id": 9, "fields": [["data", "*"]]})
    with pytest.raises(ProgramError, match="unsupported width"):  # varbit needs max_length
        Switch(doc, tm=FifoTM(lambda: 0))


def test_malformed_json_is_a_program_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ProgramError, match=r"bad\.json:1:2"):
        Switch(str(bad), tm=FifoTM(lambda: 0))
    with pytest.raises(ProgramError):
        Switch({"headers": [{"name": "x"}]}, tm=FifoTM(lambda: 0))
    doc = parser_program()
    doc["actions"][0]["primitives"].append(prim("frobnicate"))
    with pytest.raises(ProgramError, match="frobnicate"):
        Switch(doc, tm=FifoTM(lambda: 0))


def test_masked_helper_truncates():
    assert masked(hexv(1), 8)["value"]["op"] == "&"


def test_parser_loop_without_progress_stops_with_parser_timeout():
    p = Program()
    p.header("ethernet", [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)])
    p.state("start", [prim("extract", {"type": "regular", "value": "ethernet"})], [],
            [(None, None, "spin")])  # fmt: skip
    p.state("spin", [], [], [(None, None, "spin")])
    a = p.action("report", [], [
        assign(fld("ethernet", "srcAddr"), fld("standard_metadata", "parser_error")),
        assign(fld("standard_metadata", "egress_spec"), hexv(1)),
    ])  # fmt: skip
    p.table(0, "t0", [], [a], a)
    [(_, out)] = Switch(p.doc, tm=FifoTM(lambda: 0)).process(0, ipv4_udp())
    assert int.from_bytes(out[6:12], "big") == 5  # ParserTimeout


def _advance_program(bits: int):
    p = Program()
    p.header("ethernet", [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)])
    p.state("start", [prim("extract", {"type": "regular", "value": "ethernet"}),
                      prim("advance", hexv(bits))])  # fmt: skip
    a = p.action("report", [], [
        assign(fld("ethernet", "srcAddr"), fld("standard_metadata", "parser_error")),
        assign(fld("standard_metadata", "egress_spec"), hexv(1)),
    ])  # fmt: skip
    p.table(0, "t0", [], [a], a)
    return Switch(p.doc, tm=FifoTM(lambda: 0))


def test_advance_errors_match_bmv2():
    frame = b"\x00" * 14 + b"abcd"
    [(_, out)] = _advance_program(12).process(0, frame)
    assert int.from_bytes(out[6:12], "big") == 6  # ParserInvalidArgument
    [(_, out)] = _advance_program(64).process(0, frame)
    assert int.from_bytes(out[6:12], "big") == 1 and out[14:] == b"abcd"  # nothing skipped
    [(_, out)] = _advance_program(16).process(0, frame)
    assert int.from_bytes(out[6:12], "big") == 0 and out[14:] == b"cd"
