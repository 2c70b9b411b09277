"""Scapy layers of the IB fabric: the LRH, bound to the 0x88B5 Ethernet shim and to BTH.

Field names and widths equal ``lrh_t`` in ``p4/include/ib_headers.p4`` (tests check); BTH
is scapy.contrib.roce's, as on the RoCE fabric.
"""

from __future__ import annotations

from scapy.contrib.roce import BTH
from scapy.fields import BitField, ShortField
from scapy.layers.l2 import Ether
from scapy.packet import Packet, bind_layers

from emulator.vocab import EtherType

ETHERTYPE_IB_SHIM = int(EtherType.IB_SHIM)
LNH_IBA_LOCAL = 2  # LRH.LNH: BTH follows directly (no GRH)

__all__ = ["BTH", "ETHERTYPE_IB_SHIM", "LNH_IBA_LOCAL", "LRH"]


class LRH(Packet):
    """InfiniBand Local Route Header (IBTA 7.7), 8 bytes."""

    name = "LRH"
    fields_desc = [
        BitField("vl", 0, 4),
        BitField("lver", 0, 4),
        BitField("sl", 0, 4),
        BitField("rsvd2", 0, 2),
        BitField("lnh", LNH_IBA_LOCAL, 2),
        ShortField("dlid", 0),
        BitField("rsvd5", 0, 5),
        BitField("pktlen", 0, 11),
        ShortField("slid", 0),
    ]


bind_layers(Ether, LRH, type=ETHERTYPE_IB_SHIM)
bind_layers(LRH, BTH, lnh=LNH_IBA_LOCAL)
