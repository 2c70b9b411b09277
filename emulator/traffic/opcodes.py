"""InfiniBand BTH opcodes of the Reliable Connected transport used by fabemu RNICs."""

from __future__ import annotations

RC_SEND_FIRST = 0x00
RC_SEND_MIDDLE = 0x01
RC_SEND_LAST = 0x02
RC_SEND_ONLY = 0x04
RC_RDMA_WRITE_FIRST = 0x06
RC_RDMA_WRITE_MIDDLE = 0x07
RC_RDMA_WRITE_LAST = 0x08
RC_RDMA_WRITE_LAST_IMM = 0x09
RC_RDMA_WRITE_ONLY = 0x0A
RC_RDMA_WRITE_ONLY_IMM = 0x0B
RC_ACK = 0x11
CNP = 0x81

#: opcodes followed by a RETH
HAS_RETH = frozenset({RC_RDMA_WRITE_FIRST, RC_RDMA_WRITE_ONLY, RC_RDMA_WRITE_ONLY_IMM})
#: opcodes followed by an ImmDt (after the RETH when both are present)
HAS_IMM = frozenset({RC_RDMA_WRITE_LAST_IMM, RC_RDMA_WRITE_ONLY_IMM})
#: opcodes that end a message
ENDS_MESSAGE = frozenset(
    {RC_SEND_LAST, RC_SEND_ONLY, RC_RDMA_WRITE_LAST, RC_RDMA_WRITE_LAST_IMM}
    | {RC_RDMA_WRITE_ONLY, RC_RDMA_WRITE_ONLY_IMM}
)
#: opcodes that start a message
STARTS_MESSAGE = frozenset(
    {RC_SEND_FIRST, RC_SEND_ONLY, RC_RDMA_WRITE_FIRST, RC_RDMA_WRITE_ONLY, RC_RDMA_WRITE_ONLY_IMM}
)
SENDS = frozenset({RC_SEND_FIRST, RC_SEND_MIDDLE, RC_SEND_LAST, RC_SEND_ONLY})

#: AETH syndromes: ACK with "unlimited credits" and NAK "PSN sequence error"
AETH_ACK = 0x1F
AETH_NAK_SEQ_ERR = 0x60
