#!/usr/bin/env bash
# Run fabemu's test suite, after making sure the setup is done (idempotent).
#   scripts/test.sh [pytest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FABEMU_VENV:-$ROOT/.venv}"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
exec "$VENV/bin/python" -m pytest "$@"
