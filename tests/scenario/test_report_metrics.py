"""summary_metrics: each flat metric computed from hand-built RunResults."""

from __future__ import annotations

import math

import pytest

from emulator.measure.results import Totals
from emulator.scenario.metrics import percentile, summary_metrics

from .report_fixtures import collective, flow, make_result


def test_counters_come_from_run_totals() -> None:
    totals = Totals(drops=3, pause_frames=17, ecn_marks=5, retransmissions=2)
    m = summary_metrics(make_result(totals=totals))
    assert (m["drops"], m["pause_frames"], m["ecn_marks"], m["retransmissions"]) == (3, 17, 5, 2)


@pytest.mark.parametrize(("ok", "want"), [(True, 1.0), (False, 0.0)])
def test_conservation_ok_flag(ok: bool, want: float) -> None:
    assert summary_metrics(make_result(conservation_ok=ok))["conservation_ok"] == want


def test_conservation_missing_is_left_out() -> None:
    assert "conservation_ok" not in summary_metrics(make_result(conservation_ok=None))


def test_completed_follows_run_completeness() -> None:
    assert summary_metrics(make_result(complete=True))["completed"] == 1.0
    assert summary_metrics(make_result(complete=False, reason="timeout"))["completed"] == 0.0


def test_uplink_imbalance_and_idle_uplinks() -> None:
    # rtsw0 sends h0->h4, h1->h5: loads 4000/2000/2000/0 -> mean 2000, max/mean 2, one idle.
    # rtsw1 only returns ACKs (no flow starts there): it must not count.
    run = make_result(
        uplinks={"rtsw0": [4000, 2000, 2000, 0], "rtsw1": [10, 0, 0, 0]},
        flows=[flow("h0", "h4", 4000, 0, 10), flow("h1", "h5", 4000, 0, 10)],
    )
    m = summary_metrics(run)
    assert m["max_uplink_imbalance"] == pytest.approx(2.0)
    assert m["idle_uplinks"] == 1.0


def test_balanced_uplinks_give_imbalance_one() -> None:
    run = make_result(uplinks={"rtsw0": [500] * 4}, flows=[flow("h0", "h4", 2000, 0, 10)])
    m = summary_metrics(run)
    assert m["max_uplink_imbalance"] == pytest.approx(1.0)
    assert m["idle_uplinks"] == 0.0


def test_ack_trickle_counts_as_idle() -> None:
    # 1% of the mean is below the 5% idle threshold.
    run = make_result(uplinks={"rtsw0": [3000, 3000, 3000, 30]}, flows=[flow("h0", "h4", 1, 0, 1)])
    assert summary_metrics(run)["idle_uplinks"] == 1.0


def test_no_links_no_uplink_metrics() -> None:
    m = summary_metrics(make_result(uplinks=None))
    assert "max_uplink_imbalance" not in m and "idle_uplinks" not in m


def test_flow_rates_and_fct_percentiles() -> None:
    # 1.25 MB in 1 ms = 10 Gbit/s; in 2 ms = 5 Gbit/s; in 4 ms = 2.5 Gbit/s.
    flows = [flow("h0", "h4", 1_250_000, 0, d * 1_000_000) for d in (1, 2, 4)]
    m = summary_metrics(make_result(flows=flows))
    assert m["max_flow_gbps"] == pytest.approx(10.0)
    assert m["min_flow_gbps"] == pytest.approx(2.5)
    assert m["mean_flow_gbps"] == pytest.approx((10 + 5 + 2.5) / 3)
    assert m["fct_p50_ms"] == pytest.approx(2.0)
    assert m["fct_p99_ms"] == pytest.approx(4.0)


def test_no_flows_no_flow_metrics() -> None:
    m = summary_metrics(make_result())
    for name in ("min_flow_gbps", "max_flow_gbps", "mean_flow_gbps", "fct_p50_ms", "fct_p99_ms"):
        assert name not in m


def test_cts_p99_latency_in_microseconds() -> None:
    samples = list(range(1_000, 101_000, 1_000))  # 1..100 us
    assert summary_metrics(make_result(cts=samples))["cts_p99_latency_us"] == pytest.approx(99.0)
    assert "cts_p99_latency_us" not in summary_metrics(make_result())


def test_collective_bandwidths_in_gbit_per_s() -> None:
    # 1 MiB AllReduce over 8 ranks in 1 ms: algbw = 1048576e3 B/s, busbw = algbw * 14/8.
    m = summary_metrics(make_result(collectives=[collective(1_000_000)]))
    alg = (1 << 20) * 1e9 / 1e6 * 8 / 1e9
    assert m["algbw_gbps"] == pytest.approx(alg)
    assert m["busbw_gbps"] == pytest.approx(alg * 2 * 7 / 8)
    assert m["collective_ms"] == pytest.approx(1.0)


def test_slowest_collective_decides() -> None:
    m = summary_metrics(make_result(collectives=[collective(1e6), collective(4e6)]))
    assert m["collective_ms"] == pytest.approx(4.0)
    assert m["busbw_gbps"] == pytest.approx((1 << 20) * 1e9 / 4e6 * 8 / 1e9 * 1.75)


def test_every_metric_is_finite() -> None:
    from .report_fixtures import rich_result

    m = summary_metrics(rich_result())
    assert len(m) >= 17
    assert all(isinstance(v, float) and math.isfinite(v) for v in m.values())


def test_percentile_nearest_rank() -> None:
    assert percentile([5, 1, 3], 50) == 3
    assert percentile([1, 2, 3, 4], 100) == 4
    assert percentile([7], 99) == 7
    with pytest.raises(ValueError):
        percentile([], 50)
