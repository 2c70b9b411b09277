"""Control-plane names of roce_fabric.p4's tables, actions and externs (as p4c names them).

The numbers the program and the control plane share (LB modes, hashes, roles, mirror
sessions) are in :mod:`emulator.vocab`.
"""

from __future__ import annotations

from pathlib import Path

from emulator.vocab import NUM_TCS

#: the program source, relative to the repository root
PROGRAM_PATH = Path("p4") / "roce_fabric.p4"

INGRESS = "RoceIngress"
EGRESS = "RoceEgress"

SWITCH_CONFIG = f"{INGRESS}.switch_config"
SET_SWITCH_CONFIG = f"{INGRESS}.set_switch_config"
DSCP_TO_TC = f"{INGRESS}.dscp_to_tc"
SET_TRAFFIC_CLASS = f"{INGRESS}.set_traffic_class"
TC_TO_QUEUE = f"{INGRESS}.tc_to_queue"
SET_QUEUE = f"{INGRESS}.set_queue"
PATH_PIN = f"{INGRESS}.path_pin"
PIN_PATH = f"{INGRESS}.pin_path"
IPV4_ROUTE = f"{INGRESS}.ipv4_route"
ECMP_SELECTOR = f"{INGRESS}.ecmp_selector"
SET_NHOP = f"{INGRESS}.set_nhop"
DROP = f"{INGRESS}.drop"

PORT_MAC = f"{EGRESS}.port_mac"
SET_SRC_MAC = f"{EGRESS}.set_src_mac"
ECN_CONFIG = f"{EGRESS}.ecn_config"
SET_ECN_THRESHOLD = f"{EGRESS}.set_ecn_threshold"
PFC_THRESHOLDS = f"{INGRESS}.pfc_thresholds"
SET_PFC_THRESHOLDS = f"{INGRESS}.set_pfc_thresholds"

# counters, index port * 8 + priority
RX_COUNTER = f"{INGRESS}.rx_counter"
DROP_COUNTER = f"{INGRESS}.drop_counter"
PFC_RX_COUNTER = f"{INGRESS}.pfc_rx_counter"
TX_COUNTER = f"{EGRESS}.tx_counter"
PFC_TX_COUNTER = f"{EGRESS}.pfc_tx_counter"
ECN_MARK_COUNTER = f"{EGRESS}.ecn_mark_counter"

# registers
PFC_RX_QUANTA = f"{INGRESS}.pfc_rx_quanta"
PFC_RX_SEQ = f"{INGRESS}.pfc_rx_seq"
# top-level registers shared by ingress and egress (no control prefix)
PFC_PAUSED = "pfc_paused"
QUEUE_OCCUPANCY = "queue_occupancy"


def port_prio_index(port: int, priority: int) -> int:
    """Index of the (port, priority) slot of every per-queue counter and register."""
    return port * NUM_TCS + priority
