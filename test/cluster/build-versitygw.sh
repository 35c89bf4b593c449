#!/usr/bin/env bash
# Builds versitygw (github.com/versity/versitygw, Apache-2.0), an S3 gateway whose posix backend
# keeps objects as files and implements versioning and Object Lock, from its Go module through the
# module proxy (no release download), and prints the path of the binary. The write-once store of
# the evidence anchors is tested against it (test/helpers/object-lock-store.ts): s3s-fs, the S3
# server of the archive tests, has no Object Lock. Cached outside the repo keyed by version, like
# deploy/tools/build-go-tools.sh: re-runs cost nothing once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
CACHE_ROOT="${REHEARSAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-go-tools}"
OUT="$CACHE_ROOT/versitygw-$VERSITYGW_VERSION"
if [ -x "$OUT/versitygw" ]; then echo "$OUT/versitygw"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build versitygw" >&2; exit 1; }
# Pure Go: its cgo parts (the RDMA gateway, the CUDA object client) are other commands.
export GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -p=2"

# One build at a time (several checkouts may run setup at once): a second caller waits for the
# first and then finds the binary in place.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.versitygw.lock"
flock 9
if [ ! -x "$OUT/versitygw" ]; then
  echo "[build-versitygw] versitygw $VERSITYGW_VERSION (cold build, cached afterwards)" >&2
  start=$(date +%s)
  rm -rf "$OUT".partial.*
  stage="$(mktemp -d "$OUT.partial.XXXXXX")"
  # The version variables its Makefile sets (`versitygw --version` prints them).
  GOBIN="$stage" nice -n 10 go install -trimpath \
    -ldflags="-s -w -X main.Version=$VERSITYGW_VERSION -X main.Build=module-proxy" \
    "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2
  rm -rf "$OUT"; mv "$stage" "$OUT"
  echo "[build-versitygw] versitygw built in $(( $(date +%s) - start ))s, $(du -h "$OUT/versitygw" | cut -f1)" >&2
fi
exec 9>&-
echo "$OUT/versitygw"
