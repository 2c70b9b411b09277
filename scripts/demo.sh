#!/usr/bin/env bash
# Run fabemu's flagship scenario (ECMP fat-flow collision vs E-ECMP with QP scaling),
# after making sure the setup is done (idempotent). Extra arguments go to `fabemu run`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FABEMU_VENV:-$ROOT/.venv}"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
exec "$VENV/bin/fabemu" compare scenarios/fat_flow_collision.yaml --vary lb=ecmp,eecmp --vary qps=1,16 "$@"
