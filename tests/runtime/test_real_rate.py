"""The shipped fabrics at their real rate (400 Gb/s, cable delays, 4 KiB MTU, NCCL-like
chunks, 2 MiB queues) in virtual time, and PFC thresholds derived from them.

Tolerances: an unloaded flow reaches >= 95% of the 400 Gb/s line rate in goodput (4 KiB
payload per 4,194-byte frame on the wire caps it at 97.7%); two flows sharing an uplink
get 45-55% of an uncollided flow's rate; incasts drop nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.control import FabricConfig, PfcConfig
from emulator.control.controller import FabricController
from emulator.control.errors import ControlError
from emulator.control.pfc_headroom import (
    FRAME_OVERHEAD,
    PFC_FRAME,
    derive,
    headroom_bytes,
    headroom_pkts,
    pause_quanta,
)
from emulator.scenario.runner import run_scenario
from emulator.topology import load_clos, resolve

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIP_400G = ROOT / "scenarios" / "fat_flow_collision_400g.yaml"
INCAST_10M = ROOT / "scenarios" / "pfc_incast.yaml"
INCAST_400G = ROOT / "scenarios" / "pfc_incast_400g.yaml"
LINE = 400e9
SIXTEEN = "[h4,h8,h12,h16,h20,h24,h28,h1,h5,h9,h13,h17,h21,h25,h29,h2]"


def test_headroom_is_the_8021qbb_sum() -> None:
    # 400 Gb/s, 500 ns of fibre, 4 KiB MTU: two frames, a PFC frame, 2 x 500 ns of wire
    frame = 4096 + FRAME_OVERHEAD
    assert headroom_bytes(400e9, 500, 4096) == pytest.approx(2 * frame + PFC_FRAME + 50_000)
    assert headroom_bytes(400e9, 500, 4096, response_ns=1158) == pytest.approx(
        2 * frame + PFC_FRAME + 50_000 + 400e9 * 1158 / 8e9
    )
    assert headroom_pkts(400e9, 500, 4096) == 15  # ceil(58,472 / 4,194) + the trigger
    assert headroom_pkts(10e6, 1000, 1024) == 4  # slow links: frames in progress dominate
    assert pause_quanta(10e6) == 1000 and pause_quanta(400e9) == 62_500


def test_thresholds_follow_the_fabric() -> None:
    slow = resolve(load_clos(ROOT / "topologies" / "two_rack_4spine.yaml"))
    fast = resolve(load_clos(ROOT / "topologies" / "two_rack_4spine_400g.yaml"))
    t = derive(slow, 1024, 64)
    assert (t.xoff, t.xon, t.overshoot_pkts) == (64 - 7 * 4, (64 - 28) // 2, 28)  # 8-port leaf
    # leaf queue to a host: fed by the 3 other hosts (10 ns: 4 packets) and 4 uplinks (15)
    assert derive(fast, 4096, 512).xoff == 512 - (3 * 4 + 4 * 15)
    with pytest.raises(ControlError, match="at least"):
        derive(fast, 4096, 64)
    ctl = FabricController(fast, FabricConfig(pfc=PfcConfig(mtu=4096), queue_depth=512))
    assert ctl.config.pfc.xoff == derive(fast, 4096, 512).xoff
    assert ctl.config.pfc.quanta == 62_500
    explicit = FabricController(fast, FabricConfig(pfc=PfcConfig(xoff=9, xon=3, quanta=7)))
    assert (explicit.config.pfc.xoff, explicit.config.pfc.xon) == (9, 3)


def _run(path: Path, tmp: Path, **over: object):  # type: ignore[no-untyped-def]
    return run_scenario(path, over, runtime="virtual", out=tmp, report=False)


def test_unloaded_flow_reaches_line_rate(tmp_path: Path) -> None:
    out = _run(
        FLAGSHIP_400G,
        tmp_path,
        **{"workload.pairs": [["h0", "h4"]], "workload.size_bytes": 4 << 20},
    )
    (flow,) = out.result.flows
    assert flow.throughput_bps >= 0.95 * LINE, flow.throughput_bps / 1e9
    assert out.metrics["drops"] == 0


def test_two_flows_on_one_uplink_get_half_each(tmp_path: Path) -> None:
    out = _run(FLAGSHIP_400G, tmp_path, seed=2)  # seed 2: two flows share rtsw0:5
    per: dict[str, list[float]] = {}
    for f in out.result.flows:
        per.setdefault(f.uplinks[0], []).append(f.throughput_bps)
    shared = [r for rates in per.values() if len(rates) == 2 for r in rates]
    alone = [rates[0] for rates in per.values() if len(rates) == 1]
    assert len(shared) == 2 and alone, per
    assert min(alone) >= 0.95 * LINE
    for rate in shared:
        assert 0.45 <= rate / min(alone) <= 0.55
    assert out.metrics["drops"] == 0


@pytest.mark.parametrize("path", [INCAST_10M, INCAST_400G], ids=["10Mbps", "400Gbps"])
@pytest.mark.parametrize("senders", [None, SIXTEEN], ids=["8to1", "16to1"])
def test_incast_is_lossless_with_derived_thresholds(
    path: Path, senders: str | None, tmp_path: Path
) -> None:
    import yaml

    over = {} if senders is None else {"workload.senders": yaml.safe_load(senders)}
    out = _run(path, tmp_path, **over)
    assert out.metrics["completed"] == 1
    assert out.metrics["drops"] == 0
    assert out.metrics["pause_frames"] > 0
