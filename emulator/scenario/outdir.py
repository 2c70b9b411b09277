"""Where a command writes: the folder given, else a new ``results/<time>-<name>`` folder.

Two commands started in the same second get ``...-<name>`` and ``...-<name>-2``: a new
folder never lands in (and overwrites files of) an earlier one.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path


def new_outdir(base: Path | str | None, name: str, root: Path = Path("results")) -> Path:
    """``base`` (made if missing), else a fresh ``root/<YYYYmmdd-HHMMSS>-<name>[-N]``."""
    if base is not None:
        out = Path(base)
        out.mkdir(parents=True, exist_ok=True)
        return out
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out, n = root / f"{stamp}-{name}", 1
    while True:
        try:
            out.mkdir(parents=True)
            return out
        except FileExistsError:
            n += 1
            out = root / f"{stamp}-{name}-{n}"
