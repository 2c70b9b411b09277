"""Where a command writes: the folder given, else a new ``results/<time>-<name>`` folder.

Two commands started in the same second get ``...-<name>`` and ``...-<name>-2``: a new
folder never lands in (and overwrites files of) an earlier one.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from emulator.errors import UserError


def new_outdir(base: Path | str | None, name: str, root: Path = Path("results")) -> Path:
    """``base`` (made if missing), else a fresh ``root/<YYYYmmdd-HHMMSS>-<name>[-N]``."""
    if base is not None:
        out = Path(base)
        _make(out, exist_ok=True)
        return out
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out, n = root / f"{stamp}-{name}", 1
    while True:
        try:
            _make(out, exist_ok=False)
            return out
        except FileExistsError:
            n += 1
            out = root / f"{stamp}-{name}-{n}"


def _make(out: Path, exist_ok: bool) -> None:
    """``mkdir -p``; a folder that cannot be made is the user's to fix: a clear error
    (``FileExistsError`` without ``exist_ok``: the caller takes the next name)."""
    try:
        out.mkdir(parents=True, exist_ok=exist_ok)
    except FileExistsError:
        if not exist_ok:
            raise
        raise UserError(f"{out}: cannot be a results folder: a file is there") from None
    except OSError as exc:
        raise UserError(f"{out}: cannot make the results folder: {exc.strerror}") from None
