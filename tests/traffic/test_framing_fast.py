"""Template-built RoCEv2 frames (FASTFRAME) equal scapy's and the plain encoder's bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.traffic import opcodes as op
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.framing_fast import MAX_TEMPLATES, TemplateRoceV2Framing, default_framing
from emulator.traffic.roce import encode_transport, udp_sport
from tests.traffic.test_codec import MAC_A, MAC_B, _scapy_frame

PLAIN, FAST = RoceV2Framing(), TemplateRoceV2Framing()
CODES = [op.RC_RDMA_WRITE_FIRST, op.RC_RDMA_WRITE_MIDDLE, op.RC_SEND_ONLY, op.RC_RDMA_WRITE_LAST]


@settings(max_examples=120, deadline=None)
@given(
    packets=st.lists(
        st.tuples(
            st.sampled_from(CODES),
            st.integers(0, 0xFFFFFF),
            st.binary(max_size=96) | st.sampled_from([b"\x00" * 64, b"\x00" * 60]),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    ),
    dscp=st.sampled_from([0, 26, 46]),
    ecn=st.sampled_from([0, 1, 2]),
    lq=st.integers(0, 0xFFFFFF),
    dqpn=st.integers(0, 0xFFFFFF),
)
def test_template_frames_equal_scapy_and_plain(packets, dscp, ecn, lq, dqpn):
    """Many packets along one path (templates reused across lengths and PSNs)."""
    sport = udp_sport(lq, dqpn)
    fast_path = FAST.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", sport, dscp, ecn)
    plain_path = PLAIN.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", sport, dscp, ecn)
    for code, psn, payload, ackreq in packets:
        transport = encode_transport(code, dqpn, psn, payload, ackreq=ackreq)
        frame = FAST.encode(fast_path, transport)
        assert frame == PLAIN.encode(plain_path, transport)
        if ecn == 0:
            assert frame == _scapy_frame(code, dqpn, psn, payload, ackreq, dscp, sport)
        d = FAST.decode(frame, verify_icrc=True)
        assert d is not None and d.icrc_ok and d.transport == transport
    assert 1 <= len(fast_path.templates) <= len(packets)


def test_templates_are_bounded_and_still_right():
    path = FAST.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", 0xC001, 26, 0)
    plain = PLAIN.make_path(MAC_A, MAC_B, "10.0.0.1", "10.0.1.2", 0xC001, 26, 0)
    for n in range(MAX_TEMPLATES + 10):
        t = encode_transport(op.RC_SEND_ONLY, 7, n, bytes(range(n % 256))[:n] + b"x" * (3 * n))
        assert FAST.encode(path, t) == PLAIN.encode(plain, t)
    assert len(path.templates) == MAX_TEMPLATES


def test_default_framing_follows_the_switch(monkeypatch):
    monkeypatch.setenv("FABEMU_FASTFRAME", "1")
    assert type(default_framing()) is TemplateRoceV2Framing
    monkeypatch.setenv("FABEMU_FASTFRAME", "0")
    assert type(default_framing()) is RoceV2Framing
