#!/usr/bin/env bash
# Generated API clients in other languages, made from the committed openapi/openapi.json.
#
#   clients.sh setup                      toolchains: the pinned Python generator in a cached venv,
#                                         the Go generator's and client's modules (idempotent)
#   clients.sh generate OUT               Go client + smoke module into OUT/go, Python client into
#                                         OUT/python (nothing generated is committed)
#   clients.sh smoke LANG OUT BASE_URL NAME
#                                         runs the smoke program of LANG (go, python, or all) against
#                                         a live server; it creates the RestoreTest NAME (all: NAME-go
#                                         and NAME-py)
#
# Caches: Python venv under ${REHEARSAL_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/rehearsal}, keyed by
# the Python version and a hash of python/requirements.txt; Go modules and builds in Go's own
# caches (GOMODCACHE, GOCACHE). Only registries are used: PyPI and the Go module proxy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
spec="$here/../openapi.json"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
log() { echo "[clients] $*" >&2; }

python_bin() {
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "error: python3 not found (test/setup.sh installs it)" >&2; return 1; }
  "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' ||
    { echo "error: $python is $("$python" --version 2>&1); openapi-python-client needs Python >= 3.11" >&2; return 1; }
  echo "$python"
}

venv_dir() {
  local python=$1 version key
  version="$(sed -n 's/^openapi-python-client==//p' "$here/python/requirements.txt")"
  key="$("$python" -c 'import sys; print("py%d.%d" % sys.version_info[:2])')-$(sha256sum "$here/python/requirements.txt" | cut -c1-12)"
  echo "${REHEARSAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal}/openapi-python-client/$version-$key"
}

setup_python() {
  local python venv
  python="$(python_bin)"
  venv="$(venv_dir "$python")"
  [ -x "$venv/bin/openapi-python-client" ] && [ -f "$venv/.complete" ] && { echo "$venv"; return 0; }
  mkdir -p "$(dirname "$venv")"
  # One builder at a time (parallel test runs share the cache); the venv appears complete or not at all.
  exec 9>"$venv.lock"
  flock 9
  if [ ! -f "$venv/.complete" ]; then
    log "creating $venv (pip install from PyPI, once per requirements.txt)"
    rm -rf "$venv"
    # venvs are not relocatable: build at the final path, mark complete last.
    "$python" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/python/requirements.txt" >&2
    "$venv/bin/openapi-python-client" --version >&2
    touch "$venv/.complete"
  fi
  exec 9>&-
  echo "$venv"
}

setup_go() {
  command -v go >/dev/null || { echo "error: go not found (test/setup.sh installs it)" >&2; return 1; }
  (cd "$here/go" && go mod download)
  # Builds (and caches) the generator binary, so the first generate does not pay for it.
  (cd "$here/go" && go tool oapi-codegen -version >/dev/null)
}

generate() {
  local out venv
  out="$(mkdir -p "${1:?usage: clients.sh generate OUT}" && cd "$1" && pwd)"
  venv="$(setup_python)"

  # Go: a copy of the hand-written module (go.mod pins oapi-codegen as a tool and the client's
  # runtime library) with the generated package beside the smoke program.
  rm -rf "$out/go"; mkdir -p "$out/go"
  cp "$here/go/go.mod" "$here/go/go.sum" "$here/go/oapi-codegen.yaml" "$out/go/"
  cp -r "$here/go/smoke" "$out/go/smoke"
  mkdir -p "$out/go/rehearsalapi"
  (cd "$out/go" && go tool oapi-codegen -config oapi-codegen.yaml "$spec")
  (cd "$out/go" && go vet ./... && go build -o bin/smoke ./smoke)
  log "go client: $out/go/rehearsalapi/client.gen.go"

  # Python: the package alone (no pyproject), importable with PYTHONPATH=OUT/python.
  rm -rf "$out/python"; mkdir -p "$out/python"
  local report
  report="$("$venv/bin/openapi-python-client" generate --path "$spec" --config "$here/python/config.yaml" \
    --meta none --output-path "$out/python/rehearsal_api_client" 2>&1)" || { echo "$report" >&2; return 1; }
  # The generator reports unsupported constructs as warnings and skips them: treat those as failures.
  if grep -qi 'warning' <<<"$report"; then echo "$report" >&2; echo "error: openapi-python-client warned (above)" >&2; return 1; fi
  "$venv/bin/python" -m compileall -q "$out/python/rehearsal_api_client" >&2
  log "python client: $out/python/rehearsal_api_client"
}

smoke() {
  local lang=${1:-} out=${2:-} base_url=${3:-} name=${4:-} venv
  [ -n "$name" ] || { echo "usage: clients.sh smoke go|python|all OUT BASE_URL NAME" >&2; return 2; }
  out="$(cd "$out" && pwd)"
  case "$lang" in
    go)
      [ -x "$out/go/bin/smoke" ] || { echo "error: no Go client in $out; run clients.sh generate $out" >&2; return 1; }
      "$out/go/bin/smoke" -base-url "$base_url" -name "$name" ;;
    python)
      [ -d "$out/python/rehearsal_api_client" ] || { echo "error: no Python client in $out; run clients.sh generate $out" >&2; return 1; }
      venv="$(setup_python)"
      PYTHONPATH="$out/python" "$venv/bin/python" "$here/python/smoke.py" --base-url "$base_url" --name "$name" ;;
    all)
      local status=0
      smoke go "$out" "$base_url" "$name-go" || status=1
      smoke python "$out" "$base_url" "$name-py" || status=1
      return $status ;;
    *) echo "usage: clients.sh smoke go|python|all OUT BASE_URL NAME" >&2; return 2 ;;
  esac
}

case "${1:-}" in
  setup) setup_python >/dev/null; setup_go; log "toolchains ready" ;;
  generate) shift; generate "$@" ;;
  smoke) shift; smoke "$@" ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
