"""``python -m emulator.native [build|status|clean]``: manage the compiled modules."""

from __future__ import annotations

import argparse
import sys
import time

from emulator import native


def main(argv: list[str] | None = None) -> int:
    """Build, report or remove the mypyc-compiled data path (exit 1 on a failed build)."""
    ap = argparse.ArgumentParser(prog="python -m emulator.native", description=__doc__)
    ap.add_argument("action", choices=("build", "status", "clean"), nargs="?", default="status")
    ap.add_argument("--opt-level", default="3", choices=("0", "1", "2", "3"))
    args = ap.parse_args(argv)
    if args.action == "status":
        st = native.check(modules=native.MODULES)
        print(f"{st.state}: {st.detail}")
        return 0
    if args.action == "clean":
        from emulator.native.build import clean

        print("removed" if clean() else "nothing to remove")
        return 0
    from emulator.native.build import BuildError, build

    t0 = time.monotonic()
    try:
        manifest = build(opt_level=args.opt_level)
    except BuildError as exc:
        print(f"native build failed: {exc}; fabemu runs interpreted", file=sys.stderr)
        return 1
    print(
        f"compiled {len(native.MODULES)} modules in {time.monotonic() - t0:.0f} s: {manifest.parent}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
