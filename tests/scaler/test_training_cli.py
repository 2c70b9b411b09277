"""``fabemu scale-training``: the table and JSON it writes, and user errors refused up front."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from emulator.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
TRAINING = str(ROOT / "scenarios" / "training_step.yaml")


def test_writes_one_table_and_json_entry_per_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "step.json"
    assert main(["scale-training", TRAINING, "--gpus", "1K,2048", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "on 1,024 GPUs" in printed and "on 2,048 GPUs" in printed  # 1K = 1,024 as in `scale`
    doc = json.loads(out.read_text())
    assert set(doc["results"]) == {"1024", "2048"}
    for rows in doc["results"].values():
        assert "all on" in rows and "all off" in rows
        assert rows["all off"]["step"] >= rows["all on"]["step"] > 0


def test_seed_changes_the_random_placement_figures(tmp_path: Path) -> None:
    docs = []
    for seed in (0, 0, 7):
        out = tmp_path / f"{len(docs)}.json"
        main(
            ["scale-training", TRAINING, "--gpus", "4096", "--seed", str(seed), "--json", str(out)]
        )
        docs.append(json.loads(out.read_text())["results"])
    assert docs[0] == docs[1]  # same seed, same figures
    # the seed draws random placement: the rows that place randomly move, the others do not
    assert docs[0]["4096"]["no placement"] != docs[2]["4096"]["no placement"]
    assert docs[0]["4096"]["all on"] == docs[2]["4096"]["all on"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--gpus", "abc"], r"--gpus 'abc': expected an integer"),
        (["--gpus", ","], r"want comma-separated GPU counts"),
        (["--gpus", "12"], r"not a whole number of 8-GPU hosts"),
        (["--seed", "-1"], r"--seed must be >= 0"),
        (["--json", "{tmp}"], r"a folder is there, not a file"),
        (["--json", "{tmp}/no/such/x.json"], r"no folder .* to write it in"),
    ],
)
def test_bad_input_exits_2_before_any_output(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["scale-training", TRAINING, *[a.replace("{tmp}", str(tmp_path)) for a in extra]]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert re.search(message, captured.err), captured.err
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1
    assert captured.out == ""  # nothing was computed first
