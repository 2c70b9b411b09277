"""Project-wide pytest setup: requirement markers that skip with a visible reason."""

from __future__ import annotations

import os
import shutil
import signal

import pytest
from hypothesis import settings

# Speed lives in benchmarks, not in tests: no per-example deadline. In CI the examples are
# derived from the test itself (derandomize), so a run is reproducible.
settings.register_profile("fabemu", deadline=None, derandomize=bool(os.environ.get("CI")))
settings.load_profile("fabemu")

# Tests stand in for the user's Ctrl-C (SIGINT) and check handlers are put back to Python's
# default: a test run started in the background by a script inherits SIGINT ignored.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register --update-golden: rewrite golden files next to the tests instead of comparing."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (command files, scenario results) instead of comparing",
    )


def pytest_report_header(config: pytest.Config) -> str:
    """Say which data path the tests exercise: compiled (emulator/native) or interpreted."""
    from emulator import native

    st = native.status()
    return f"fabemu data path: {st.state} ({st.detail})"


def _missing_for(marker: str) -> str | None:
    """Why tests with ``marker`` cannot run here, or None when they can."""
    if marker in ("mininet", "root"):
        if os.geteuid() != 0:
            return f"{marker}: needs root (run as root or in the Vagrant VM)"
        if marker == "mininet" and not shutil.which("mnexec"):
            return "mininet: mnexec not on PATH (run the project's setup: make setup)"
    if marker == "bmv2":
        missing = [b for b in ("simple_switch", "p4c-bm2-ss") if not shutil.which(b)]
        if missing:
            return (
                f"bmv2: {', '.join(missing)} not on PATH "
                "(install with scripts/setup.sh --with-bmv2, e.g. in the Vagrant VM)"
            )
    if marker == "ib":
        from emulator.ib.subnet import IbToolsMissing, find_tools

        try:
            find_tools()
        except IbToolsMissing as exc:
            return f"ib: {exc}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip marked tests whose requirements are missing, naming what is missing."""
    reasons: dict[str, str | None] = {}
    for item in items:
        for marker in ("mininet", "bmv2", "root", "ib"):
            if item.get_closest_marker(marker) is None:
                continue
            if marker not in reasons:
                reasons[marker] = _missing_for(marker)
            if reasons[marker]:
                item.add_marker(pytest.mark.skip(reason=reasons[marker]))
