"""Failure rates -> interruptions/day and goodput: Llama 3 reproduced at 16K GPUs, monotone
in every rate and in the GPU count, Young/Daly checkpointing checked against its formula."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.scaler.cli import add_arguments, run
from emulator.scaler.model.reliability import (
    LLAMA3_GPUS,
    FailureRates,
    component_counts,
    goodput,
    llama3_rates,
    reliability,
)


def test_llama3_rates_reproduce_the_report() -> None:
    rates = llama3_rates()
    r = reliability(LLAMA3_GPUS, rates)
    assert r.per_day == pytest.approx(466 / 54)
    assert r.network_per_day == pytest.approx((0.084 + 0.017) * 419 / 54)
    assert r.mtbi_hours == pytest.approx(24 * 54 / 466)


def test_counts_follow_the_cluster_shape() -> None:
    c = component_counts(24_576)  # 8 zones of 3,072 GPUs, 16-GPU racks, 16 uplinks
    assert (c.gpus, c.nics) == (24_576, 24_576)
    assert c.links > c.gpus + 1536 * 16 - 1  # host cables + RTSW uplinks + CTSW-ATSW


def test_goodput_matches_young_daly() -> None:
    per_day, ckpt, restart = 12.0, 30.0, 300.0
    g, tau = goodput(per_day, ckpt, restart)
    m = 86_400 / per_day
    assert tau == pytest.approx(math.sqrt(2 * ckpt * m))
    assert g == pytest.approx(1 - ckpt / tau - (tau / 2 + restart) / m)
    assert goodput(0.0, ckpt, restart) == (1.0, math.inf)
    with pytest.raises(UserError):
        goodput(1.0, 0.0, 1.0)


RATE = st.floats(min_value=0, max_value=1e-2, allow_nan=False)
GPUS = st.sampled_from([1_024, 3_072, 16_384, 24_576, 49_152, 101_376])


@settings(max_examples=60, deadline=None)
@given(
    rates=st.builds(FailureRates, RATE, RATE, RATE, RATE),
    factor=st.floats(min_value=1.0, max_value=100.0),
    gpus=GPUS,
)
def test_more_failures_never_help(rates: FailureRates, factor: float, gpus: int) -> None:
    a, b = reliability(gpus, rates), reliability(gpus, rates.scaled(factor))
    assert b.per_day >= a.per_day - 1e-12
    assert b.goodput <= a.goodput + 1e-12


@settings(max_examples=40, deadline=None)
@given(rates=st.builds(FailureRates, RATE, RATE, RATE, RATE), pair=st.tuples(GPUS, GPUS))
def test_more_gpus_never_help(rates: FailureRates, pair: tuple[int, int]) -> None:
    small, large = sorted(pair)
    a, b = reliability(small, rates), reliability(large, rates)
    assert b.per_day >= a.per_day - 1e-12
    assert b.goodput <= a.goodput + 1e-12


def test_cli_prints_and_writes_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        [
            "--reliability",
            "--sweep",
            "1",
            "--fabric",
            "roce",
            "--mode",
            "ecmp",
            "--out",
            str(tmp_path),
        ]
    )
    assert run(args) == 0
    doc = json.loads((tmp_path / "report.json").read_text())
    rows = doc["reliability"]
    assert set(rows) == {"16,384 GPUs", "24,576 GPUs", "101,376 GPUs"}
    by_size = sorted(rows.items(), key=lambda kv: int(kv[0].split()[0].replace(",", "")))
    goodputs = [r["goodput"] for _, r in by_size]
    assert goodputs == sorted(goodputs, reverse=True)
    assert "interruptions/day" in capsys.readouterr().out
