"""Control-plane test setup: the --update-golden option regenerates golden command files."""

from __future__ import annotations

from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register --update-golden (rewrite tests/control/golden/* instead of comparing)."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the control-plane golden command files instead of comparing with them",
    )


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
