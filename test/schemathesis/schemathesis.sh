#!/usr/bin/env bash
# schemathesis (PyPI, pinned in requirements.txt) in a cached venv, like openapi/clients/clients.sh
# does for the Python client generator.
#
#   schemathesis.sh setup          builds the venv once (idempotent; prints nothing when cached)
#   schemathesis.sh run ARGS...    `schemathesis --config-file schemathesis.toml run ARGS...`
#                                  with this directory's hooks (hooks.py)
#
# Cache: ${REHEARSAL_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/rehearsal}/schemathesis/<version>-<key>,
# keyed by the Python version and a hash of requirements.txt. Only PyPI is used.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
log() { echo "[schemathesis] $*" >&2; }

python_bin() {
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "error: python3 not found (test/setup.sh installs it)" >&2; return 1; }
  "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
    { echo "error: $python is $("$python" --version 2>&1); schemathesis needs Python >= 3.10" >&2; return 1; }
  echo "$python"
}

venv_dir() {
  local python=$1 version key
  version="$(sed -n 's/^schemathesis==//p' "$here/requirements.txt")"
  key="$("$python" -c 'import sys; print("py%d.%d" % sys.version_info[:2])')-$(sha256sum "$here/requirements.txt" | cut -c1-12)"
  echo "${REHEARSAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal}/schemathesis/$version-$key"
}

setup() {
  local python venv
  python="$(python_bin)"
  venv="$(venv_dir "$python")"
  [ -x "$venv/bin/schemathesis" ] && [ -f "$venv/.complete" ] && { echo "$venv"; return 0; }
  mkdir -p "$(dirname "$venv")"
  # One builder at a time (parallel test runs share the cache); the venv appears complete or not at all.
  exec 9>"$venv.lock"
  flock 9
  if [ ! -f "$venv/.complete" ]; then
    log "creating $venv (pip install from PyPI, once per requirements.txt)"
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt" >&2
    "$venv/bin/schemathesis" --version >&2
    touch "$venv/.complete"
  fi
  exec 9>&-
  echo "$venv"
}

case "${1:-}" in
  setup) setup >/dev/null ;;
  run)
    shift
    venv="$(setup)"
    PYTHONDONTWRITEBYTECODE=1 SCHEMATHESIS_HOOKS="$here/hooks.py" exec "$venv/bin/schemathesis" --config-file "$here/schemathesis.toml" run "$@" ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
