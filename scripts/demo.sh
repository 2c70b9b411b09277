#!/usr/bin/env bash
# Run fabemu's flagship scenario (ECMP fat-flow collision vs E-ECMP with QP scaling) as
# distributions over seeds, after making sure the setup is done (idempotent): every variant
# runs for seeds 1..$FABEMU_SEEDS (default 30); the table gives median and 95% CI per metric
# and P(no collision). Extra arguments go to `fabemu compare`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FABEMU_VENV:-$ROOT/.venv}"
SEEDS="${FABEMU_SEEDS:-30}"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
exec "$VENV/bin/fabemu" compare scenarios/fat_flow_collision.yaml \
    --vary lb=ecmp,eecmp --vary qps=1,16 --seeds "$SEEDS" "$@"
