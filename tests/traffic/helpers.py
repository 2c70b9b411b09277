"""Shared builders for the traffic tests."""

from __future__ import annotations

from hypothesis import strategies as st

from emulator.traffic import opcodes as op
from emulator.traffic.connection import Connection, ConnSpec, connect_pair
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.traffic.rnic_fast import FastRnic, make_rnic
from emulator.vocab import TC_BULK, TC_CTS

from .netsim import Sim, Wire

DATA_OPS = frozenset(
    {op.RC_RDMA_WRITE_FIRST, op.RC_RDMA_WRITE_MIDDLE, op.RC_RDMA_WRITE_LAST}
    | {op.RC_RDMA_WRITE_LAST_IMM, op.RC_RDMA_WRITE_ONLY, op.RC_RDMA_WRITE_ONLY_IMM}
)


def opcode_of(frame: bytes) -> int | None:
    """BTH opcode of a RoCEv2 frame (None for anything else)."""
    if len(frame) > 42 and frame[12:14] == b"\x08\x00" and frame[36:38] == b"\x12\xb7":
        return frame[42]
    return None


def payload_len(frame: bytes) -> int:
    """RDMA payload bytes of a data frame (without pad bytes)."""
    code = frame[42]
    hdr = 12 + (16 if code in op.HAS_RETH else 0) + (4 if code in op.HAS_IMM else 0)
    pad = (frame[43] >> 4) & 3
    return len(frame) - 42 - hdr - 4 - pad


def pair(
    cfg: RnicConfig,
    num_qps: int = 1,
    delay_ns: int = 1000,
    drop=None,
    conn_id: int = 0,
    fast: bool | None = None,
) -> tuple[Sim, Wire, Rnic, Rnic, Connection, Connection]:
    """Two RNICs on a wire with one connection between them.

    ``fast``: :class:`FastRnic` (True), the base :class:`Rnic` (False) or, by default,
    whichever ``make_rnic`` builds (the runtimes' choice: FASTNIC on or off)."""
    build = make_rnic if fast is None else FastRnic if fast else Rnic
    a = build("02:00:00:00:00:01", "10.0.0.1", "02:00:00:00:00:02", config=cfg, name="a")
    b = build("02:00:00:00:00:02", "10.0.0.2", "02:00:00:00:00:01", config=cfg, name="b")
    sim = Sim()
    wire = Wire(sim, a, b, delay_ns=delay_ns, drop=drop)
    ca, cb = connect_pair(a, b, ConnSpec(conn_id, a.ip, b.ip, num_qps=num_qps))
    return sim, wire, a, b, ca, cb


def pause_lists(latest_ns: int, max_quanta: int, max_size: int) -> st.SearchStrategy:
    """Hypothesis: PFC pauses ``(nic "a"/"b", at ns, traffic class, quanta)`` to deliver."""
    return st.lists(
        st.tuples(
            st.sampled_from(["a", "b"]),
            st.integers(0, latest_ns),
            st.sampled_from([TC_BULK, TC_CTS]),
            st.integers(0, max_quanta),
        ),
        max_size=max_size,
    )
