#!/usr/bin/env bash
# Builds the real Velero server, Velero's AWS object-store plugin (both from their Go modules
# through the module proxy) and s3s-fs, a real S3 server on a local directory (from crates.io).
# Each binary is cached outside the repo in its own directory keyed by its version, so a version
# bump rebuilds only that binary. Prints shell assignments: VELERO_BIN=... VELERO_AWS_PLUGIN=...
# S3_SERVER_BIN=... (eval them). Re-runs are free once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
CACHE_ROOT="${VELERO_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-velero-binaries}"
# "-patched1": built with patch_velero_metrics below (bump the suffix when that patch changes).
VELERO_OUT="$CACHE_ROOT/velero-$VELERO_VERSION-patched1"
PLUGIN_OUT="$CACHE_ROOT/velero-plugin-for-aws-$VELERO_AWS_PLUGIN_VERSION"
S3_OUT="$CACHE_ROOT/s3s-fs-$S3S_FS_VERSION"
# The init container Velero adds to restored pods whose volumes come back through the node agent
# (it waits until the data is in place); it goes into the node's velero image (images/velero.sh).
HELPER_OUT="$CACHE_ROOT/velero-restore-helper-$VELERO_VERSION"
log() { echo "[build-velero] $*" >&2; }
done_all() { [ -x "$VELERO_OUT/velero" ] && [ -x "$PLUGIN_OUT/velero-plugin-for-aws" ] && [ -x "$S3_OUT/bin/s3s-fs" ] &&
  [ -x "$HELPER_OUT/velero-restore-helper" ]; }
print() {
  echo "VELERO_BIN=$VELERO_OUT/velero"
  echo "VELERO_AWS_PLUGIN=$PLUGIN_OUT/velero-plugin-for-aws"
  echo "S3_SERVER_BIN=$S3_OUT/bin/s3s-fs"
  echo "VELERO_RESTORE_HELPER=$HELPER_OUT/velero-restore-helper"
}
if done_all; then print; exit 0; fi

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"   # one build at a time per cache (parallel checkouts wait)
flock 9
if done_all; then print; exit 0; fi

export GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -p=2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
nice_="nice -n 10"

# A Go module's own directory builds with its own go.mod/go.sum (and its replace directives, which
# `go install mod@version` refuses). The module cache is read-only, so build from a copy.
# The module proxy reached here refuses a few module versions (e.g. k8s.io/cli-runtime v0.33.11 and
# v0.33.12, which Velero v1.18.3 requires): replace those by the nearest patch release it serves.
build_go_module() { # module version package-dir out-dir binary-name ldflags [module=module@version ...]
  local mod=$1 ver=$2 pkg=$3 out=$4 name=$5 ld=$6 dir r; shift 6
  dir="$(go mod download -json "$mod@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [ -d "$dir" ] || { echo "could not fetch $mod@$ver" >&2; exit 1; }
  rm -rf "$work/src"; cp -r "$dir" "$work/src"; chmod -R u+w "$work/src"
  for r in "$@"; do (cd "$work/src" && go mod edit -replace "$r"); done
  [ -z "${pre_build:-}" ] || "$pre_build" "$work/src"
  local start=$SECONDS
  (cd "$work/src" && $nice_ go build -mod=mod -trimpath -ldflags="-s -w $ld" -o "$out.partial/$name" "$pkg")
  rm -rf "$out"; mv "$out.partial" "$out"
  log "$name $ver built in $((SECONDS - start)) s, $(du -h "$out/$name" | cut -f1)"
}

# Velero's controller-runtime manager (pkg/cmd/server/server.go) leaves ctrl.Options.Metrics unset,
# so controller-runtime opens its default metrics listener on ":8080" (all interfaces) and no
# `velero server` flag changes it. That breaks the rule that every process here binds only 127.0.0.1
# and collides with Rehearsal's own port 8080 (npm run demo). Velero's own metrics are served by
# --metrics-address, not by this listener, so set its BindAddress to "0" (controller-runtime: off).
# Fails loudly when the code it patches is not there exactly once (e.g. after a Velero version bump).
patch_velero_metrics() { # source-dir
  local f="$1/pkg/cmd/server/server.go" open='mgr, err = ctrl.NewManager(clientConfig, ctrl.Options{'
  local n; n="$(grep -cF "$open" "$f" || true)"
  if [ "$n" != 1 ] || grep -qE 'metricsserver|Metrics: ' "$f" || ! grep -q '^import ($' "$f"; then
    echo "build-velero.sh: cannot patch Velero's manager metrics listener: $f changed" \
      "(expected one '$open', no Metrics option yet); review patch_velero_metrics" >&2
    exit 1
  fi
  sed -i -e "s|^\([[:space:]]*\)$open\$|&\n\1\tMetrics: metricsserver.Options{BindAddress: \"0\"}, // patched by build-velero.sh|" \
    -e '0,/^import ($/s||import (\n\tmetricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"|' "$f"
  [ "$(grep -c 'BindAddress: "0"}, // patched by build-velero.sh' "$f")" = 1 ] ||
    { echo "build-velero.sh: patching $f failed" >&2; exit 1; }
  log "patched $f: controller-runtime metrics listener off"
}

if [ ! -x "$VELERO_OUT/velero" ]; then
  log "velero $VELERO_VERSION (patched: no listener on :8080)"
  rm -rf "$VELERO_OUT.partial"; mkdir -p "$VELERO_OUT.partial"
  pre_build=patch_velero_metrics build_go_module github.com/vmware-tanzu/velero "$VELERO_VERSION" ./cmd/velero "$VELERO_OUT" velero \
    "-X github.com/vmware-tanzu/velero/pkg/buildinfo.Version=$VELERO_VERSION -X github.com/vmware-tanzu/velero/pkg/buildinfo.GitTreeState=clean" \
    k8s.io/cli-runtime=k8s.io/cli-runtime@v0.33.10
fi
if [ ! -x "$HELPER_OUT/velero-restore-helper" ]; then
  log "velero-restore-helper $VELERO_VERSION"
  rm -rf "$HELPER_OUT.partial"; mkdir -p "$HELPER_OUT.partial"
  build_go_module github.com/vmware-tanzu/velero "$VELERO_VERSION" ./cmd/velero-restore-helper "$HELPER_OUT" velero-restore-helper "" \
    k8s.io/cli-runtime=k8s.io/cli-runtime@v0.33.10
fi
if [ ! -x "$PLUGIN_OUT/velero-plugin-for-aws" ]; then
  log "velero-plugin-for-aws $VELERO_AWS_PLUGIN_VERSION"
  rm -rf "$PLUGIN_OUT.partial"; mkdir -p "$PLUGIN_OUT.partial"
  build_go_module github.com/vmware-tanzu/velero-plugin-for-aws "$VELERO_AWS_PLUGIN_VERSION" ./velero-plugin-for-aws \
    "$PLUGIN_OUT" velero-plugin-for-aws ""
fi
if [ ! -x "$S3_OUT/bin/s3s-fs" ]; then
  command -v cargo >/dev/null || { echo "cargo is required to build s3s-fs" >&2; exit 1; }
  log "s3s-fs $S3S_FS_VERSION (crates.io)"
  start=$SECONDS
  rm -rf "$S3_OUT.partial"
  # opt-level 1 and no LTO: a test store moves megabytes, and the release profile's full
  # optimisation was most of this build's time on 2 cores.
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_TARGET_DIR="$work/target" CARGO_BUILD_JOBS=2 $nice_ cargo install --quiet --locked \
    --root "$S3_OUT.partial" --version "=$S3S_FS_VERSION" --features binary s3s-fs >&2
  rm -rf "$S3_OUT"; mv "$S3_OUT.partial" "$S3_OUT"
  log "s3s-fs built in $((SECONDS - start)) s, $(du -h "$S3_OUT/bin/s3s-fs" | cut -f1)"
fi
print
