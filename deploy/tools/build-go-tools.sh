#!/usr/bin/env bash
# build-go-tools.sh [helm|promtool]... — builds Helm and promtool from their Go modules through the
# module proxy (no release downloads) and prints the path of each binary. Cached outside the repo,
# keyed by version, like test/cluster/build-binaries.sh: re-runs cost nothing once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
CACHE_ROOT="${REHEARSAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-go-tools}"
export GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -p=2"
command -v go >/dev/null || { echo "go is required to build $*" >&2; exit 1; }

build() { # name version package ldflags
  local name=$1 version=$2 pkg=$3 ld=$4 out="$CACHE_ROOT/$1-$2"
  if [ ! -x "$out/$name" ]; then
    echo "[build-go-tools] $name $version (cold build, cached afterwards)" >&2
    local start; start=$(date +%s)
    rm -rf "$out.partial"; mkdir -p "$out.partial"
    GOBIN="$out.partial" nice -n 10 go install -trimpath -ldflags="$ld" "$pkg@$version" >&2
    rm -rf "$out"; mv "$out.partial" "$out"
    echo "[build-go-tools] $name built in $(( $(date +%s) - start ))s" >&2
  fi
  echo "$out/$name"
}

for tool in "${@:-helm promtool}"; do
  for t in $tool; do
    case "$t" in
      helm) build helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm \
              "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" ;;
      promtool) build promtool "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/promtool \
              "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION}" ;;
      *) echo "unknown tool: $t" >&2; exit 2 ;;
    esac
  done
done
