"""write_report: HTML structure, embedded plots, escaping, INCOMPLETE marking, comparisons."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from emulator.errors import UserError
from emulator.scenario.expect import Verdict
from emulator.scenario.report import write_report

from .report_fixtures import make_result, rich_result

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
IMG = '<img src="data:image/png;base64,'
PLOT_HEADINGS = (
    "Leaf uplink utilisation",
    "Flow completion time CDF",
    "Queue depth",
    "PFC pause timeline",
    "Collective completion",
)


def _embedded_pngs(html: str) -> list[bytes]:
    return [
        base64.b64decode(m) for m in re.findall(r'data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    ]


def test_single_run_embeds_every_plot(tmp_path: Path) -> None:
    verdicts = {"": [Verdict("drops", 0.0, "== 0", True)]}
    path = write_report(tmp_path, [("", rich_result())], verdicts)
    html = path.read_text()
    assert path == tmp_path / "report.html"
    assert html.count(IMG) == len(PLOT_HEADINGS)
    assert all(png.startswith(PNG_MAGIC) for png in _embedded_pngs(html))
    for heading in ("Run", "Expectations", "Summary metrics", *PLOT_HEADINGS):
        assert f">{heading}</h2>" in html
    files = sorted(p.name for p in tmp_path.glob("*.png"))
    assert files == sorted(
        ["uplink_heatmap.png", "fct_cdf.png", "queue_depth.png", "pause.png", "collectives.png"]
    )
    assert all((tmp_path / f).read_bytes().startswith(PNG_MAGIC) for f in files)


def test_run_facts_and_tables(tmp_path: Path) -> None:
    verdicts = {
        "": [Verdict("drops", 0.0, "== 0", True), Verdict("busbw_gbps", 1.2, ">= 5", False)]
    }
    html = write_report(tmp_path, [("", rich_result("fat_flows"))], verdicts).read_text()
    assert "<title>fat_flows</title>" in html
    for fact in ("virtual", "builtin", "runtime auto -&gt; virtual (not root)", ">7<", "complete"):
        assert fact in html
    assert "1 of 2 expectations NOT met" in html
    assert 'class="unmet"' in html and "1.2: NOT met" in html
    assert 'class="met"' in html and "0: met" in html
    assert "<td>max_uplink_imbalance</td>" in html and "<td>cts_p99_latency_us</td>" in html
    assert 'id="incomplete"' not in html


def test_all_met_banner(tmp_path: Path) -> None:
    verdicts = {"": [Verdict("drops", 0.0, "== 0", True)]}
    html = write_report(tmp_path, [("", rich_result())], verdicts).read_text()
    assert "All 1 expectations met" in html


def test_hostile_names_are_escaped(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    result = rich_result(evil, complete=False, reason=evil)
    verdicts = {evil: [Verdict(evil, None, "<= 1", False)]}
    path = write_report(tmp_path, [(evil, result), ("ok", rich_result())], verdicts, title=evil)
    html = path.read_text()
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert not any(name.startswith("<") for name in (p.name for p in tmp_path.iterdir()))


def test_incomplete_run_is_marked_and_still_reported(tmp_path: Path) -> None:
    result = make_result(complete=False, reason="interrupted at t=3 ms", conservation_ok=None)
    html = write_report(tmp_path, [("", result)]).read_text()
    assert 'id="incomplete"' in html
    assert "INCOMPLETE: interrupted at t=3 ms" in html
    assert html.count(IMG) == 0
    assert "no leaf-uplink utilisation series in this run" in html
    assert "no finished flows in this run" in html
    assert "no port was paused in this run" in html
    assert "No expectations were given." in html


def test_empty_queues_note(tmp_path: Path) -> None:
    from emulator.measure.results import QueueSeries

    quiet = QueueSeries(switch="rtsw0", port=1, priority=3, t_ns=[0, 10], depth=[0, 0])
    html = write_report(tmp_path, [("", make_result(queues=[quiet]))]).read_text()
    assert "all 1 recorded queues stayed empty" in html


def test_comparison_of_two_variants(tmp_path: Path) -> None:
    runs = [
        ("lb=ecmp", rich_result(uplinks={"rtsw0": [4000, 4000, 0, 0]})),
        ("lb=eecmp", rich_result(uplinks={"rtsw0": [2000] * 4})),
    ]
    verdicts = {
        "lb=ecmp": [Verdict("idle_uplinks", 2.0, "<= 0", False)],
        "lb=eecmp": [Verdict("idle_uplinks", 0.0, "<= 0", True)],
    }
    html = write_report(tmp_path, runs, verdicts, title="ecmp vs eecmp").read_text()
    assert "Comparison of 2 variants: lb=ecmp, lb=eecmp" in html
    assert "<th>lb=ecmp</th><th>lb=eecmp</th>" in html
    # 3 per-run plots per variant + FCT CDF + collectives + summary bars
    assert html.count(IMG) == 3 * 2 + 3
    assert ">Summary metrics by variant</h2>" in html
    assert html.count('<div class="grid">') == 3
    assert "<h3>lb=ecmp</h3>" in html and "<h3>lb=eecmp</h3>" in html
    assert "2: NOT met" in html and "0: met" in html
    names = {p.name for p in tmp_path.glob("*.png")}
    assert {"uplink_heatmap-lb-ecmp.png", "uplink_heatmap-lb-eecmp.png", "summary.png"} <= names
    # idle uplinks differ between the variants in the metrics table
    row = re.search(r"<td>idle_uplinks</td>(.*?)</tr>", html)
    assert row and re.findall(r">([\d.]+)<", row.group(1)) == ["2", "0"]


def test_labels_that_slug_alike_get_distinct_files(tmp_path: Path) -> None:
    write_report(tmp_path, [("a b", rich_result()), ("a/b", rich_result())])
    names = {p.name for p in tmp_path.glob("uplink_heatmap-*.png")}
    assert names == {"uplink_heatmap-a-b.png", "uplink_heatmap-a-b-2.png"}


def test_bad_calls_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no runs"):
        write_report(tmp_path, [])
    with pytest.raises(UserError, match="distinct"):
        write_report(tmp_path, [("x", make_result()), ("x", make_result())])


def test_incomplete_run_with_flows_warns_under_the_fct_plot(tmp_path: Path) -> None:
    result = rich_result(complete=False, reason="deadline")
    html = write_report(tmp_path, [("", result)]).read_text()
    assert "INCOMPLETE (the run): flows still in progress count up to their last byte" in html
    assert html.count(IMG) == len(PLOT_HEADINGS)


def test_counters_are_shown_in_full(tmp_path: Path) -> None:
    from emulator.measure.results import Totals

    result = make_result(totals=Totals(pause_frames=1_234_567))
    html = write_report(tmp_path, [("", result)]).read_text()
    assert '<td>pause_frames</td><td class="num">1234567</td>' in html
