#!/usr/bin/env bash
# Builds the CSI pieces of the real node (test/cluster/csi-up in test/helpers/csi-hostpath.ts runs
# them), from Go modules through the module proxy:
#   snapshot-controller, csi-snapshotter  github.com/kubernetes-csi/external-snapshotter/v8
#   csi-provisioner                       github.com/kubernetes-csi/external-provisioner/v6
#   rehearsal-csi-hostpath                test/cluster/csi (this repository: a minimal driver)
# Prints the directory holding them. Cached outside the repo keyed by the versions in versions.env
# and a hash of the driver's source, so re-runs cost nothing once built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.env"
driver_hash="$(cd "$here/csi" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-12)"
CACHE_ROOT="${CSI_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-csi-binaries}"
OUT="$CACHE_ROOT/snapshotter-${EXTERNAL_SNAPSHOTTER_VERSION}_provisioner-${EXTERNAL_PROVISIONER_VERSION}_driver-${driver_hash}"
BINARIES=(snapshot-controller csi-snapshotter csi-provisioner rehearsal-csi-hostpath)
complete() { local b; for b in "${BINARIES[@]}"; do [ -x "$1/$b" ] || return 1; done; [ -d "$1/crd" ]; }
if complete "$OUT"; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build the CSI pieces" >&2; exit 1; }

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then
  echo "[build-csi] another build is running; waiting for it" >&2
  flock 9
  if complete "$OUT"; then echo "$OUT"; exit 0; fi
fi

export GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -p=2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
rm -rf "$OUT".partial*; stage="$(mktemp -d "$OUT.partial.XXXXXX")"
log() { echo "[build-csi] $*" >&2; }
timed() { # NAME COMMAND... — runs it and appends "NAME SECONDS" to build-times.txt
  local name=$1 t0; shift; t0=$(date +%s)
  "$@"
  echo "$name $(( $(date +%s) - t0 ))s" | tee -a "$stage/build-times.txt" | sed 's/^/[build-csi] built /' >&2
}
module_dir() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p'; }

# The sidecars' modules carry replace directives, which `go install module@version` refuses: build
# them from a writable copy of the module instead (its own go.mod and go.sum, so the same versions).
copy_module() { # MODULE@VERSION — prints the copy's directory
  local src copy; src="$(module_dir "$1")"; copy="$work/$(basename "${1%@*}")"
  cp -r "$src" "$copy"; chmod -R u+w "$copy"; echo "$copy"
}
build_in() { # DIR PACKAGE... — binaries land in $stage
  local dir=$1; shift
  (cd "$dir" && go build -mod=mod -trimpath -ldflags="-s -w" -o "$stage/" "$@" >&2)
}

log "external-snapshotter $EXTERNAL_SNAPSHOTTER_VERSION"
snapshotter="$(copy_module "github.com/kubernetes-csi/external-snapshotter/v8@${EXTERNAL_SNAPSHOTTER_VERSION}")"
# Its go.mod replaces the client module by ./client, a nested module the main module's zip leaves
# out: put the same version's client module there. Its CRDs are the VolumeSnapshot CRDs we install.
client="$(module_dir "github.com/kubernetes-csi/external-snapshotter/client/v8@${EXTERNAL_SNAPSHOTTER_VERSION}")"
cp -r "$client" "$snapshotter/client"; chmod -R u+w "$snapshotter/client"
mkdir -p "$stage/crd"; cp "$client"/config/crd/*snapshot.storage.k8s.io_*.yaml "$stage/crd/"
timed snapshotter build_in "$snapshotter" ./cmd/snapshot-controller ./cmd/csi-snapshotter

log "external-provisioner $EXTERNAL_PROVISIONER_VERSION"
provisioner="$(copy_module "github.com/kubernetes-csi/external-provisioner/v6@${EXTERNAL_PROVISIONER_VERSION}")"
timed provisioner build_in "$provisioner" ./cmd/csi-provisioner

log "rehearsal-csi-hostpath (test/cluster/csi)"
timed driver bash -c "cd '$here/csi' && go build -trimpath -ldflags='-s -w' -o '$stage/rehearsal-csi-hostpath' . >&2"

rm -rf "$OUT"; mv "$stage" "$OUT"; chmod 755 "$OUT"; echo "$OUT"
