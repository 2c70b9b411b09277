"""The struct codec equals scapy's bytes; ICRC, UDP sport, PFC frames."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.contrib.mac_control import MACControlClassBasedFlowControl
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from emulator.traffic import opcodes as op
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.headers import AETH, BTH, CTS, RETH, ImmDt
from emulator.traffic.qos import tos_byte
from emulator.traffic.roce import (
    decode_transport,
    encode_transport,
    pack_cts,
    udp_sport,
    unpack_cts,
)
from emulator.vocab.pfc import (
    build_pause,
    build_pfc,
    decode_pfc,
    encode_pfc,
    parse_pfc,
    quanta_to_ns,
)

MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"
FR = RoceV2Framing()

qpns = st.integers(0, 0xFFFFFF)
psns = st.integers(0, 0xFFFFFF)
payloads = st.binary(min_size=0, max_size=300)
dscps = st.sampled_from([0, 26, 46, 48])


def _scapy_frame(opcode, dqpn, psn, payload, ackreq, dscp, sport, reth=None, aeth=None, imm=None):
    pad = -len(payload) & 3
    pkt = (
        Ether(dst=MAC_B, src=MAC_A)
        / IP(src="10.0.0.1", dst="10.0.1.2", tos=tos_byte(dscp), ttl=64, flags="DF", id=0)
        / UDP(sport=sport, dport=4791, chksum=0)
        / BTH(opcode=opcode, dqpn=dqpn, psn=psn, ackreq=int(ackreq), padcount=pad)
    )
    if reth is not None:
        pkt = pkt / RETH(va=reth[0], rkey=reth[1], dlen=reth[2])
    if aeth is not None:
        pkt = pkt / AETH(syndrome=aeth[0], msn=aeth[1])
    if imm is not None:
        pkt = pkt / ImmDt(imm=imm)
    return bytes(pkt / (payload + b"\x00" * pad))


@settings(max_examples=150, deadline=None)
@given(
    code=st.sampled_from(
        [
            op.RC_RDMA_WRITE_FIRST,
            op.RC_RDMA_WRITE_MIDDLE,
            op.RC_RDMA_WRITE_LAST,
            op.RC_SEND_ONLY,
            op.RC_RDMA_WRITE_ONLY,
            op.RC_RDMA_WRITE_ONLY_IMM,
            op.RC_RDMA_WRITE_LAST_IMM,
        ]
    ),
    dqpn=qpns,
    psn=psns,
    payload=payloads,
    ackreq=st.booleans(),
    dscp=dscps,
    lq=qpns,
    va=st.integers(0, 2**64 - 1),
    rkey=st.integers(0, 2**32 - 1),
    imm=st.integers(0, 2**32 - 1),
)
def test_fast_codec_equals_scapy_and_round_trips(
    code, dqpn, psn, payload, ackreq, dscp, lq, va, rkey, imm
):
    reth = (va, rkey, len(payload)) if code in op.HAS_RETH else None
    imm_v = imm if code in op.HAS_IMM else None
    sport = udp_sport(lq, dqpn)
    path = FR.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", sport, dscp, 0)
    transport = encode_transport(code, dqpn, psn, payload, ackreq=ackreq, reth=reth, imm=imm_v)
    fast = FR.encode(path, transport)
    assert fast == _scapy_frame(code, dqpn, psn, payload, ackreq, dscp, sport, reth, None, imm_v)
    # scapy dissects it and recomputes the same ICRC
    parsed = Ether(fast)
    again = Ether(fast)
    again[BTH].icrc = None
    assert bytes(again) == fast
    # and our decoder gives the fields back
    d = FR.decode(fast, verify_icrc=True)
    assert d is not None and d.icrc_ok and d.tos == tos_byte(dscp)
    t = decode_transport(d.transport)
    assert t is not None
    assert (t.opcode, t.dqpn, t.psn, t.ackreq, t.payload) == (code, dqpn, psn, ackreq, payload)
    if reth is not None:
        assert (t.va, t.rkey, t.dma_len) == reth
        assert parsed[RETH].va == va
    assert t.imm == imm_v


@settings(max_examples=60, deadline=None)
@given(dqpn=qpns, psn=psns, msn=st.integers(0, 0xFFFFFF), nak=st.booleans())
def test_ack_matches_scapy(dqpn, psn, msn, nak):
    syn = op.AETH_NAK_SEQ_ERR if nak else op.AETH_ACK
    path = FR.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", 0xC123, 26, 0)
    fast = FR.encode(path, encode_transport(op.RC_ACK, dqpn, psn, aeth=(syn, msn)))
    assert fast == _scapy_frame(op.RC_ACK, dqpn, psn, b"", False, 26, 0xC123, aeth=(syn, msn))
    t = decode_transport(FR.decode(fast).transport)
    assert (t.syndrome, t.msn, t.psn) == (syn, msn, psn)


def test_icrc_detects_corruption_but_ignores_variant_fields():
    path = FR.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", 0xC001, 26, 0)
    frame = bytearray(FR.encode(path, encode_transport(op.RC_SEND_ONLY, 5, 9, b"abcd" * 8)))
    # a switch decrementing TTL / marking ECN / setting FECN keeps the ICRC valid
    frame[22] -= 1
    frame[15] |= 3
    frame[14 + 20 + 8 + 4] |= 0x80
    assert FR.decode(bytes(frame), verify_icrc=True).icrc_ok
    frame[-10] ^= 0xFF
    assert FR.decode(bytes(frame), verify_icrc=True).icrc_ok is False


@given(lq=qpns, rq=qpns)
def test_udp_sport_range_and_symmetry(lq, rq):
    sp = udp_sport(lq, rq)
    assert 0xC000 <= sp <= 0xFFFF
    assert sp == udp_sport(rq, lq)


def test_udp_sport_spreads_qps():
    ports = {udp_sport(0x100 + i, 0x140 + i) for i in range(16)}
    assert len(ports) == 16


@given(va=st.integers(0, 2**64 - 1), n=st.integers(0, 2**32 - 1), tag=st.integers(0, 2**32 - 1))
def test_cts_payload_matches_scapy(va, n, tag):
    raw = pack_cts(va, n, tag, 123456789)
    assert raw == bytes(CTS(va=va, length=n, tag=tag, ts_ns=123456789))
    assert unpack_cts(raw) == (va, n, tag, 123456789)


@given(quanta=st.dictionaries(st.integers(0, 7), st.integers(0, 0xFFFF), min_size=1))
def test_pfc_frames_match_scapy(quanta):
    frame = build_pfc(MAC_A, quanta)
    assert len(frame) == 60
    assert parse_pfc(frame) == quanta
    pkt = Ether(frame)
    cbfc = pkt[MACControlClassBasedFlowControl]
    for prio in range(8):
        assert getattr(cbfc, f"c{prio}_enabled") == (prio in quanta)
        assert getattr(cbfc, f"c{prio}_pause_time") == quanta.get(prio, 0)


def test_pause_frame_and_quanta_time():
    assert parse_pfc(build_pause(MAC_A, 7)) == dict.fromkeys(range(8), 7)
    # 1 quantum = 512 bit times: 51.2 ns at 10 Gb/s, 5.12 ns at 100 Gb/s
    assert quanta_to_ns(1000, 10e9) == 51_200
    assert quanta_to_ns(1, 100e9) == 6  # rounded up
    assert parse_pfc(b"\x00" * 60) is None


@given(quanta=st.dictionaries(st.integers(0, 7), st.integers(0, 0xFFFF), min_size=1))
def test_pfc_mapping_and_vector_forms_agree(quanta):
    """The RNICs' form ({priority: quanta}) and the switch's (enable vector + 8 quanta) of the
    one codec (emulator.vocab.pfc) write and read the same frames."""
    ours = build_pfc(MAC_A, quanta)
    theirs = decode_pfc(ours)
    assert theirs is not None and theirs.paused_classes() == sorted(quanta)
    assert all(theirs.quanta[p] == q for p, q in quanta.items())
    enable = sum(1 << p for p in quanta)
    back = encode_pfc(MAC_A, enable, [quanta.get(p, 0) for p in range(8)])
    assert back == ours and parse_pfc(back) == quanta
