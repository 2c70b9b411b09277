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

from emulator.vocab import (
    DSCP_BULK,
    DSCP_CNP,
    DSCP_CTS,
    ECN_NOT_ECT,
    TC_BULK,
    TC_CNP,
    TC_CTS,
    TC_DEFAULT,
)

#: DSCP -> TC; DSCPs not listed map to TC_DEFAULT
DSCP_TO_TC: dict[int, int] = {DSCP_BULK: TC_BULK, DSCP_CNP: TC_CNP, DSCP_CTS: TC_CTS}


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
