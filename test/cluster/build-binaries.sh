#!/usr/bin/env bash
# Builds a Kubernetes control plane (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl), etcd and KWOK from Go modules through the module proxy: no release-page downloads.
# Prints the directory holding the binaries. The result is cached outside the repo, keyed by the
# three versions, so re-runs (and CI on the same machine) cost nothing once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
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

# Kubernetes: k8s.io/kubernetes replaces its staging modules with local paths, so `go install`
# fails. A wrapper module requires it and replaces every staging module with its published
# v0.<minor>.<patch> tag; the list is generated from the upstream go.mod, not hard-coded.
log "kubernetes $K8S_VERSION"
mkdir "$work/k8s"; cd "$work/k8s"
go mod init local.test/k8s-binaries >/dev/null 2>&1
upmod="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
[ -f "$upmod" ] || { echo "could not fetch k8s.io/kubernetes@${K8S_VERSION}" >&2; exit 1; }
staging_ver="v0.${K8S_VERSION#v1.}"
mods="$( { awk '$2=="v0.0.0" && $1 ~ /^k8s\.io\// {print $1}' "$upmod"
           awk '$2=="=>" && $3 ~ /^\.\/staging\// {print $1}' "$upmod"; } | sort -u )"
{
  echo "module local.test/k8s-binaries"; echo
  grep -E '^go [0-9]' "$upmod"
  grep -E '^godebug ' "$upmod" || true
  echo; echo "require k8s.io/kubernetes ${K8S_VERSION}"; echo
  echo "replace ("
  for m in $mods; do printf '\t%s => %s %s\n' "$m" "$m" "$staging_ver"; done
  echo ")"
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
go mod tidy >&2
minor="$(echo "$K8S_VERSION" | sed -E 's/^v1\.([0-9]+)\..*/\1/')"
now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ld="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  ld="$ld -X $p.gitTreeState=clean -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=$now"
done
go build -trimpath -tags=selinux,notest,grpcnotrace -ldflags="$ld" -o "$stage/" \
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
