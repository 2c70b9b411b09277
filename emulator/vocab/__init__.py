"""The fabric's shared vocabulary: one name and one number for each notion several layers use.

Scenario files, the control plane, the switch programs, the RNICs and the scaler all speak
of load-balancing modes, hash algorithms, switch roles, traffic classes, EtherTypes and the
Ethernet wire overhead. Each is defined here once; the P4 programs carry the same numbers
as constants (``p4/include/headers.p4``, ``p4/include/ib_headers.p4``) and
``tests/foundation/test_vocab.py`` checks that both sides agree, name by name.

The PFC frame codec (IEEE 802.1Qbb) is :mod:`emulator.vocab.pfc`.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class LbMode(StrEnum):
    """How a switch spreads flows over equal-cost next hops (``switch.lb`` in a scenario)."""

    ECMP = "ecmp"  #: IPv4/UDP 5-tuple hash
    EECMP = "eecmp"  #: 5-tuple + BTH destination QP (Meta's E-ECMP)
    PINNING = "pinning"  #: path pinning: uplink chosen by the destination host's downlink
    FLOWLET = "flowlet"  #: 5-tuple + flowlet id

    @property
    def code(self) -> int:
        """The value ``switch_config`` carries (``LB_*`` in headers.p4)."""
        return _LB_CODES[self]

    @property
    def p4_name(self) -> str:
        """The constant's name in headers.p4."""
        return _LB_P4[self]


_LB_CODES = {LbMode.ECMP: 0, LbMode.EECMP: 1, LbMode.PINNING: 2, LbMode.FLOWLET: 3}
_LB_P4 = {LbMode.ECMP: "LB_ECMP", LbMode.EECMP: "LB_EECMP", LbMode.PINNING: "LB_PIN",
          LbMode.FLOWLET: "LB_FLOWLET"}  # fmt: skip


class HashAlgo(StrEnum):
    """The hash a switch computes over the flow key (``switch.hash``)."""

    CRC16 = "crc16"  #: CRC-16/ARC
    CRC32 = "crc32"  #: CRC-32/ISO-HDLC, low 16 bits kept

    @property
    def code(self) -> int:
        """The value ``switch_config`` carries (``HASH_*`` in headers.p4)."""
        return 0 if self is HashAlgo.CRC16 else 1

    @property
    def p4_name(self) -> str:
        """The constant's name in headers.p4."""
        return f"HASH_{self.name}"


class Role(StrEnum):
    """A switch's tier: rack (leaf, RTSW), spine (CTSW), aggregation (ATSW)."""

    LEAF = "leaf"
    SPINE = "spine"
    AGG = "agg"

    @property
    def code(self) -> int:
        """The value ``switch_config`` carries (``ROLE_*`` in headers.p4)."""
        return list(Role).index(self)

    @property
    def p4_name(self) -> str:
        """The constant's name in headers.p4."""
        return f"ROLE_{self.name}"


class EtherType(IntEnum):
    """EtherTypes the fabric's frames carry."""

    IPV4 = 0x0800
    VLAN = 0x8100
    #: MAC control (802.3x PAUSE, 802.1Qbb PFC)
    MAC_CONTROL = 0x8808
    #: IEEE 802 Local Experimental EtherType 2: the shim carrying IB packets on emulated links
    IB_SHIM = 0x88B5


class MacControlOpcode(IntEnum):
    """Opcodes of MAC control frames (EtherType 0x8808)."""

    PAUSE = 0x0001
    PFC = 0x0101


#: destination MAC of MAC control frames (PAUSE and PFC), 01:80:c2:00:00:01
MAC_CONTROL_DST = 0x0180C2000001
IP_PROTO_UDP = 17
UDP_PORT_ROCEV2 = 4791

# -- traffic classes (DSCP -> TC = egress queue = PFC priority) --------------------------

#: DSCP of bulk RDMA data (and the ACK/NAKs of data QPs): AF31
DSCP_BULK = 26
#: DSCP of NCCL-style clear-to-send messages: CS6
DSCP_CTS = 48
#: DSCP of DCQCN congestion notification packets: EF
DSCP_CNP = 46

TC_DEFAULT = 0
#: lossless (PFC) class of bulk data
TC_BULK = 3
#: CTS messages, above bulk so they are not stuck behind it
TC_CTS = 6
TC_CNP = 6
#: traffic classes = priority queues per port = PFC priorities
NUM_TCS = 8

#: ECN codepoints (two low bits of the IPv4 TOS byte)
ECN_NOT_ECT = 0b00
ECN_ECT0 = 0b10
ECN_CE = 0b11

# -- the wire ------------------------------------------------------------------------------

PREAMBLE_BYTES = 8  # preamble + start-of-frame delimiter
IFG_BYTES = 12  # inter-frame gap
FCS_BYTES = 4
#: bytes a frame occupies on the wire beyond what a capture shows: (len + 24) * 8 / rate
WIRE_OVERHEAD_BYTES = PREAMBLE_BYTES + IFG_BYTES + FCS_BYTES
#: Ethernet minimum frame length without the FCS
MIN_FRAME_BYTES = 60

# -- roce_fabric.p4 layout -------------------------------------------------------------------

#: mirror session of port p is PFC_MIRROR_BASE + p (the switch's PFC frames leave by p)
PFC_MIRROR_BASE = 100
#: queue of those PFC frames on the built-in target: the highest of the NUM_TCS queues, so
#: a pause leaves after at most the frame on the wire, as a MAC control frame would (at
#: simple_switch's clone priority 0 it waits behind all the lossless class's data)
PFC_FRAME_QUEUE = NUM_TCS - 1
#: v1model drop port
DROP_PORT = 511

__all__ = [
    "DROP_PORT",
    "DSCP_BULK",
    "DSCP_CNP",
    "DSCP_CTS",
    "ECN_CE",
    "ECN_ECT0",
    "ECN_NOT_ECT",
    "FCS_BYTES",
    "IFG_BYTES",
    "IP_PROTO_UDP",
    "MAC_CONTROL_DST",
    "MIN_FRAME_BYTES",
    "NUM_TCS",
    "PFC_FRAME_QUEUE",
    "PFC_MIRROR_BASE",
    "PREAMBLE_BYTES",
    "TC_BULK",
    "TC_CNP",
    "TC_CTS",
    "TC_DEFAULT",
    "UDP_PORT_ROCEV2",
    "WIRE_OVERHEAD_BYTES",
    "EtherType",
    "HashAlgo",
    "LbMode",
    "MacControlOpcode",
    "Role",
]
