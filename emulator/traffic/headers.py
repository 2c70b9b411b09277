"""Scapy layers for the RoCEv2 headers fabemu sends: scapy's BTH/AETH plus RETH, ImmDt, CTS.

scapy.contrib.roce provides BTH (with ICRC computation), AETH and the CNP padding; it lacks
the RDMA Extended Transport Header and the Immediate Data header, declared here with field
names and widths equal to the P4 headers in ``p4/roce_fabric.p4`` (``bth_t``, ``reth_t``,
``aeth_t``). The fast struct codec in :mod:`emulator.traffic.roce` is tested byte-for-byte
against these layers; the RNIC hot path never imports scapy.
"""

from __future__ import annotations

from scapy.contrib.roce import AETH, BTH, CNPPadding
from scapy.fields import IntField, XIntField, XLongField
from scapy.packet import Packet, bind_layers

from emulator.traffic import opcodes as op

__all__ = ["AETH", "BTH", "CTS", "RETH", "CNPPadding", "ImmDt", "scapy_layer_fields"]


class ImmDt(Packet):
    """Immediate data header (4 bytes), after BTH (or after RETH for WRITE_ONLY_WITH_IMM)."""

    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


class RETH(Packet):
    """RDMA Extended Transport Header (16 bytes): virtual address, R_Key, DMA length."""

    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]

    def guess_payload_class(self, payload: bytes) -> type[Packet]:
        """ImmDt follows RETH only for RDMA WRITE ONLY with immediate."""
        bth = self.underlayer
        if isinstance(bth, BTH) and bth.opcode == op.RC_RDMA_WRITE_ONLY_IMM:
            return ImmDt
        return Packet.guess_payload_class(self, payload)


class CTS(Packet):
    """Payload of an NCCL-style clear-to-send SEND: where and how much the sender may write.

    Fields: destination buffer address, byte count, message tag, the receiver's send time.
    """

    name = "CTS"
    fields_desc = [
        XLongField("va", 0),
        IntField("length", 0),
        XIntField("tag", 0),
        XLongField("ts_ns", 0),
    ]


for _code in (op.RC_RDMA_WRITE_FIRST, op.RC_RDMA_WRITE_ONLY, op.RC_RDMA_WRITE_ONLY_IMM):
    bind_layers(BTH, RETH, opcode=_code)
bind_layers(BTH, ImmDt, opcode=op.RC_RDMA_WRITE_LAST_IMM)


def scapy_layer_fields(layer: type[Packet]) -> list[tuple[str, int]]:
    """(name, bit width) of a scapy layer's header fields (BTH without its trailing ICRC)."""
    out = []
    for field in layer.fields_desc:
        if field.name == "icrc":
            continue
        width = getattr(field, "size", None)
        if width is None:
            width = field.sz * 8
        out.append((field.name, int(width)))
    return out
