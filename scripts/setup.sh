#!/usr/bin/env bash
# fabemu setup: system packages + a virtualenv with the package. Idempotent.
#
#   scripts/setup.sh              # Mininet, iproute2, tcpdump, tshark, OpenSM, ibsim, ... + .venv
#   scripts/setup.sh --with-bmv2  # also BMv2 (simple_switch) and p4c from the p4lang OBS packages
#   scripts/setup.sh --check      # report what is missing, change nothing (exit 1 if anything is)
#
# Supported: Debian 12, Ubuntu 24.04 (as root, or with sudo). A second run changes nothing:
# packages already present are not reinstalled, and the virtualenv is rebuilt only when
# pyproject.toml changed, and the compiled data path (emulator/native) only when its sources did.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FABEMU_VENV:-$ROOT/.venv}"
STAMP="$VENV/.fabemu-setup-stamp"
WITH_BMV2=0
CHECK_ONLY=0

for arg in "$@"; do
  case "$arg" in
    --with-bmv2) WITH_BMV2=1 ;;
    --check) CHECK_ONLY=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "setup: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$1" >&2; exit "${2:-1}"; }

# --- the OS ----------------------------------------------------------------------------
OS_RELEASE="${FABEMU_OS_RELEASE:-/etc/os-release}"  # overridable for the setup's own tests
[ -r "$OS_RELEASE" ] || die "cannot read $OS_RELEASE: unsupported OS (need Debian 12 or Ubuntu 24.04)"
# shellcheck disable=SC1090
. "$OS_RELEASE"
case "${ID:-}:${VERSION_ID:-}" in
  debian:12) OBS_DIST="Debian_12" ;;
  ubuntu:24.04) OBS_DIST="xUbuntu_24.04" ;;
  *) die "unsupported OS '${PRETTY_NAME:-unknown}': fabemu's setup supports Debian 12 and Ubuntu 24.04 (use the Vagrantfile for a supported VM)" ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "run as root (or install sudo): installing system packages needs root"
  SUDO="sudo"
fi

# --- system packages --------------------------------------------------------------------
PKGS=(mininet iproute2 iputils-ping tcpdump tshark opensm ibsim-utils infiniband-diags
      iperf ethtool graphviz python3-venv python3-dev gcc libc6-dev ca-certificates curl gpg)
BMV2_PKGS=(p4lang-bmv2 p4lang-p4c)

missing_pkgs() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

mapfile -t MISSING < <(missing_pkgs "${PKGS[@]}")
if [ "$CHECK_ONLY" -eq 1 ]; then
  status=0
  [ "${#MISSING[@]}" -eq 0 ] || { say "missing packages: ${MISSING[*]}"; status=1; }
  [ -x "$VENV/bin/fabemu" ] || { say "missing virtualenv $VENV"; status=1; }
  [ -x "$VENV/bin/python" ] && say "compiled data path: $("$VENV/bin/python" -m emulator.native status 2>/dev/null || echo unknown)"
  [ "$status" -eq 0 ] && say "all present"
  exit "$status"
fi

if [ "${#MISSING[@]}" -gt 0 ]; then
  say "installing system packages: ${MISSING[*]}"
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${MISSING[@]}"
else
  say "system packages present"
fi

# --- BMv2 and p4c (optional) --------------------------------------------------------------
if [ "$WITH_BMV2" -eq 1 ]; then
  mapfile -t MISSING_BMV2 < <(missing_pkgs "${BMV2_PKGS[@]}")
  if [ "${#MISSING_BMV2[@]}" -gt 0 ]; then
    OBS_URL="https://download.opensuse.org/repositories/home:/p4lang/${OBS_DIST}"
    say "BMv2/p4c: fetching the p4lang repository key from the openSUSE Build Service"
    if ! key="$(curl -fsSL --max-time 20 "${OBS_URL}/Release.key")"; then
      die "--with-bmv2: the p4lang package repository (${OBS_URL}) is not reachable from this machine. BMv2 and p4c exist in no Debian or PyPI package; use the Vagrant VM (vagrant up), or run setup without --with-bmv2 (fabemu's built-in target needs neither)" 3
    fi
    printf '%s\n' "$key" | gpg --dearmor | $SUDO tee /etc/apt/trusted.gpg.d/home_p4lang.gpg >/dev/null
    echo "deb ${OBS_URL}/ /" | $SUDO tee /etc/apt/sources.list.d/home:p4lang.list >/dev/null
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${MISSING_BMV2[@]}"
  else
    say "BMv2 and p4c present"
  fi
  command -v simple_switch >/dev/null && command -v p4c-bm2-ss >/dev/null \
    || die "--with-bmv2: packages installed but simple_switch / p4c-bm2-ss not on PATH"
fi

# --- the virtualenv -------------------------------------------------------------------------
PY=/usr/bin/python3
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "$PY is older than Python 3.11"
want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  say "virtualenv $VENV up to date"
else
  say "creating virtualenv $VENV with fabemu and its dependencies"
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e "$ROOT[dev,cluster]"  # cluster: Ray, for sweeps (and their tests)
  echo "$want" > "$STAMP"
fi
# --- the compiled data path (emulator/native: mypyc) --------------------------------------
# Rebuilt only when a compiled module's source changed; a failed build is not fatal (fabemu
# then runs interpreted, as fast as before the build existed).
native="$("$VENV/bin/python" -m emulator.native status 2>/dev/null || true)"
case "$native" in
  compiled:*) say "compiled modules up to date" ;;
  off:*) say "compiled modules turned off (FABEMU_NATIVE=0)" ;;
  *)
    say "compiling the data path with mypyc (~1 min; ${native%%:*})"
    "$VENV/bin/python" -m emulator.native build >/dev/null 2>"$VENV/native-build.log" \
      && say "compiled modules built" \
      || say "warning: the compiled build failed (see $VENV/native-build.log); fabemu runs interpreted"
    ;;
esac
say "done: activate with 'source $VENV/bin/activate' or call $VENV/bin/fabemu"
