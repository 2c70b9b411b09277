"""RNIC counters (one mutable record per RNIC, written to RunResult / JSON at the end)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class RnicCounters:
    """What an RNIC sent, received, retransmitted and honoured."""

    tx_pkts: int = 0
    tx_bytes: int = 0
    rx_pkts: int = 0
    rx_bytes: int = 0
    tx_data_pkts: int = 0  # RDMA WRITE / SEND packets, first transmissions and retransmissions
    tx_payload_bytes: int = 0
    rx_payload_bytes: int = 0  # payload accepted in sequence (goodput)
    retransmitted_pkts: int = 0
    acks_sent: int = 0
    acks_received: int = 0
    naks_sent: int = 0
    naks_received: int = 0
    bad_acks: int = 0  # ACK/NAKs for PSNs never sent or already acknowledged (ignored)
    timeouts: int = 0
    duplicates_received: int = 0
    out_of_sequence_dropped: int = 0
    out_of_order_placed: int = 0  # accepted ahead of the expected PSN (ooo_window > 0)
    icrc_errors: int = 0
    unknown_qp: int = 0
    not_for_us: int = 0
    pause_frames: int = 0
    pauses_honoured: int = 0  # pause requests for a priority this RNIC transmits on
    cnps_sent: int = 0
    cnps_received: int = 0
    cts_sent: int = 0
    cts_received: int = 0
    messages_sent: int = 0  # messages fully acknowledged
    messages_received: int = 0
    cts_latency_ns: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """Plain dict (JSON-ready), including the ``cts_latency_ns`` sample list."""
        return asdict(self)

    def scalars(self) -> dict[str, float]:
        """The numeric counters only (RunResult.hosts form: no sample lists)."""
        return scalar_counters(self.as_dict())


def scalar_counters(counters: dict[str, object]) -> dict[str, float]:
    """Numeric entries of a counters dict (e.g. an rnic_process report's ``counters``)."""
    return {
        k: float(v)
        for k, v in counters.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
