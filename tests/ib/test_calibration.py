"""The analytic scaler reads IB emulator runs: ib-ftree[-ar] runs calibrate ib_static/ib_adaptive."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.scaler.calibration.emulated import read_runs, scaler_mode, slowdowns
from emulator.scaler.calibration.emurun import Case, run_case


def test_lb_labels_map_to_scaler_modes() -> None:
    assert scaler_mode("ib-ftree") == "ib_static"
    assert scaler_mode("ib-updn-ar") == "ib_adaptive"
    assert scaler_mode("eecmp") == "eecmp"


def test_ib_case_overrides() -> None:
    case = Case("calib_4x2", 8, "ring", "ib_adaptive", 1, 65536)
    ov = case.overrides()
    assert ov["fabric"] == "ib" and ov["ib.adaptive_routing"] is True
    assert "switch.lb" not in ov


@pytest.mark.ib
def test_ib_runs_are_read_as_ib_modes(tmp_path: Path) -> None:
    for lb in ("ib_static", "ib_adaptive"):
        run_case(Case("calib_4x2", 8, "halving_doubling", lb, 1, 65536), tmp_path)
    runs = {r.lb: r for r in read_runs([tmp_path])}
    assert set(runs) == {"ib_static", "ib_adaptive"}
    static = runs["ib_static"]
    assert static.drops == 0 and static.retransmissions == 0
    assert all(q.uplink >= 0 for q in static.qps if q.src // 2 != q.dst // 2)
    # OpenSM's ftree on this fabric is d-mod-k: the measured paths give the model's B
    assert slowdowns(static, "measured") == slowdowns(static, "model")
    assert slowdowns(runs["ib_adaptive"], "measured") == slowdowns(runs["ib_adaptive"], "model")
