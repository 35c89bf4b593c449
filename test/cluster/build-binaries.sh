#!/usr/bin/env bash
# Builds a Kubernetes control plane (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl), etcd and KWOK from Go modules through the module proxy: no release-page downloads.
# Prints the directory holding the binaries. The result is cached outside the repo, keyed by the
# three versions, so re-runs (and CI on the same machine) cost nothing once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
source "$(dirname "$0")/k8s-module.sh"
CACHE_ROOT="${K8S_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-k8s-binaries}"
OUT="$CACHE_ROOT/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"
# KWOK's controller needs its Stage definitions (what a fake kubelet does to Nodes and Pods). They
# ship inside the KWOK Go module; copy its published "fast" stages next to the binaries.
copy_kwok_stages() {
  local dir; dir="$(GOTOOLCHAIN=local go mod download -json "sigs.k8s.io/kwok@${KWOK_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  mkdir -p "$1/kwok-stages"
  cp "$dir"/kustomize/stage/node/fast/node-initialize.yaml \
     "$dir"/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
     "$dir"/kustomize/stage/pod/fast/pod-*.yaml "$1/kwok-stages/"
  chmod -R u+w "$1/kwok-stages"
}
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ] && [ -x "$OUT/kwokctl" ] && [ -x "$OUT/kwok" ]; then
  [ -d "$OUT/kwok-stages" ] || copy_kwok_stages "$OUT" >&2
  echo "$OUT"; exit 0
fi
command -v go >/dev/null || { echo "go is required to build the test control plane" >&2; exit 1; }

# One build at a time per cache directory: a second caller (another checkout, a parallel setup)
# waits for the first and then finds the binaries in place.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then
  echo "[build-binaries] another build is running; waiting for it" >&2
  flock 9
  if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ] && [ -x "$OUT/kwokctl" ] && [ -x "$OUT/kwok" ]; then
    echo "$OUT"; exit 0
  fi
fi

export GOTOOLCHAIN=local CGO_ENABLED=0
# Two cores: parallel package compiles beyond that only add memory pressure.
export GOFLAGS="${GOFLAGS:-} -p=2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
rm -rf "$OUT".partial*; stage="$(mktemp -d "$OUT.partial.XXXXXX")"
log() { echo "[build-binaries] $*" >&2; }

# Kubernetes: a wrapper module around k8s.io/kubernetes (k8s-module.sh says why).
log "kubernetes $K8S_VERSION"
k8s_wrapper_module "$work/k8s" "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
cd "$work/k8s"
go build -trimpath -tags="$K8S_BUILD_TAGS" -ldflags="$(k8s_ldflags "$K8S_VERSION")" -o "$stage/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl >&2

# etcd: the server module's require lines are real versions, so a plain wrapper suffices.
log "etcd $ETCD_VERSION"
mkdir "$work/etcd"; cd "$work/etcd"
printf 'module local.test/etcd-binary\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > go.mod
printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
go mod tidy >&2
go build -trimpath -ldflags="-s -w" -o "$stage/etcd" go.etcd.io/etcd/server/v3 >&2

log "kwok $KWOK_VERSION"
cd "$work"
GOBIN="$stage" go install "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}" "sigs.k8s.io/kwok/cmd/kwokctl@${KWOK_VERSION}" >&2

copy_kwok_stages "$stage"
rm -rf "$OUT"; mv "$stage" "$OUT"; echo "$OUT"
