"""The scaler's training step: same job description, each optimisation on/off."""

from __future__ import annotations

import numpy as np
import pytest

from emulator.errors import UserError
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.training_step import (
    Switches,
    axis_groups,
    configurations,
    degrees_at,
    extrapolate,
    rank_gpus,
)
from emulator.traffic.mapping import Degrees
from emulator.traffic.training import ModelShape

FABRIC = meta_fabric(2 * 3072)  # two AI Zones, 1:7 above them
MODEL = ModelShape(params=70e9, layers=80, hidden=8192, micro_batches=8)


def test_groups_match_the_emulator_order() -> None:
    d = Degrees(tp=2, cp=1, pp=2, dp=4)
    gpu = np.arange(16)
    assert axis_groups(gpu, d, "tp")[:2].tolist() == [[0, 1], [2, 3]]
    assert axis_groups(gpu, d, "pp")[:2].tolist() == [[0, 2], [1, 3]]
    assert axis_groups(gpu, d, "dp")[0].tolist() == [0, 4, 8, 12]


def test_mapping_keeps_tp_in_a_host_only_when_on() -> None:
    d = degrees_at(FABRIC.gpus, 8, 1, 16)
    for on in (True, False):
        tp = axis_groups(rank_gpus(FABRIC, d, Switches(mapping=on)), d, "tp")
        hosts = tp // FABRIC.gpus_per_host
        assert bool((hosts == hosts[:, :1]).all()) is on


@pytest.fixture(scope="module")
def table() -> dict[str, dict[str, float]]:
    return extrapolate(FABRIC, 8, 1, 16, MODEL)


def test_step_is_the_sum_of_its_axes(table: dict[str, dict[str, float]]) -> None:
    assert list(table) == [sw.label() for sw in configurations()]
    for row in table.values():
        assert row["step"] == pytest.approx(row["tp"] + row["cp"] + row["pp"] + row["dp"])


def test_each_optimisation_off_costs_time_where_the_model_says(
    table: dict[str, dict[str, float]],
) -> None:
    on = table["all on"]
    assert table["no mapping"]["tp"] > 10 * on["tp"]  # TP leaves NVLink for the fabric
    assert table["no placement"]["pp"] > on["pp"]  # random host order crosses the ATSWs
    assert table["no lb"]["step"] > on["step"]  # ECMP collisions of single-QP flows
    assert table["all off"]["step"] == max(r["step"] for r in table.values())


def test_dp_must_be_whole() -> None:
    with pytest.raises(UserError, match="not a multiple of tp\\*cp\\*pp"):
        degrees_at(1000, 8, 1, 16)
