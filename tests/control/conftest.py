"""Control-plane test setup: golden command files (``--update-golden`` rewrites them)."""

from __future__ import annotations

from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).parent / "golden"


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """Compare text with a golden file (or rewrite it under --update-golden)."""
    update = bool(request.config.getoption("--update-golden", default=False))

    def check(relpath: str, text: str) -> None:
        path = GOLDEN_DIR / relpath
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        assert path.exists(), f"missing golden file {path}: run pytest with --update-golden"
        assert text == path.read_text(), f"{path} differs (intended? rerun with --update-golden)"

    return check
