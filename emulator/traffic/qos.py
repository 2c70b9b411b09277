"""DSCP / traffic-class plan of the fabric: the single source of truth for RNICs and switches.

Meta's RoCE fabric keeps bulk RDMA data lossless in one PFC class and queues the NCCL
clear-to-send (CTS) messages in a higher priority class so they are not stuck behind bulk data.
Switches map DSCP -> traffic class (TC); the TC is the egress queue index (0 lowest, 7 highest,
strict priority) and also the PFC priority (DSCP-based PFC, no VLAN PCP).

    DSCP 26 (AF31) -> TC 3   bulk RDMA WRITE data and its ACK/NAKs      (lossless, PFC)
    DSCP 46 (EF)   -> TC 6   DCQCN congestion notification packets (CNP)
    DSCP 48 (CS6)  -> TC 6   NCCL CTS control messages (receiver-driven admission)
    anything else  -> TC 0   best effort
"""

from __future__ import annotations

from dataclasses import dataclass

#: DSCP of bulk RDMA data (and the ACK/NAKs of data QPs)
DSCP_BULK = 26
#: DSCP of NCCL-style CTS messages
DSCP_CTS = 48
#: DSCP of DCQCN congestion notification packets
DSCP_CNP = 46

TC_BULK = 3
TC_CTS = 6
TC_CNP = 6
TC_DEFAULT = 0

#: number of traffic classes / priority queues / PFC priorities
NUM_TCS = 8

#: DSCP -> TC; DSCPs not listed map to TC_DEFAULT
DSCP_TO_TC: dict[int, int] = {DSCP_BULK: TC_BULK, DSCP_CNP: TC_CNP, DSCP_CTS: TC_CTS}

#: ECN codepoints (two low bits of the IPv4 TOS byte)
ECN_NOT_ECT = 0b00
ECN_ECT0 = 0b10
ECN_CE = 0b11


@dataclass(frozen=True)
class TrafficClassPlan:
    """Which DSCP each kind of RNIC traffic carries (the defaults are the plan above)."""

    dscp_bulk: int = DSCP_BULK
    dscp_cts: int = DSCP_CTS
    dscp_cnp: int = DSCP_CNP


def tc_of_dscp(dscp: int) -> int:
    """Traffic class (= egress queue = PFC priority) of a DSCP value."""
    return DSCP_TO_TC.get(dscp, TC_DEFAULT)


def dscp_to_tc_entries() -> list[tuple[int, int]]:
    """(dscp, tc) pairs for a switch's DSCP->TC table, sorted by DSCP (non-default only)."""
    return sorted(DSCP_TO_TC.items())


def tos_byte(dscp: int, ecn: int = ECN_NOT_ECT) -> int:
    """The IPv4 TOS byte carrying ``dscp`` and ``ecn``."""
    return ((dscp & 0x3F) << 2) | (ecn & 0x3)
