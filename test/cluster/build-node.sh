#!/usr/bin/env bash
# Builds what a real node of the test cluster runs beyond Debian's packages, from Go modules through
# the module proxy (no release-page downloads):
#   kubelet, kube-proxy  k8s.io/kubernetes at K8S_VERSION (the control plane's version; the wrapper
#                        module of k8s-module.sh, shared with build-binaries.sh)
#   pause                build/pause/linux/pause.c of the same module, compiled static with gcc
#                        (the sandbox container of every pod; the images builder wraps it)
#   coredns              github.com/coredns/coredns (the cluster DNS, run as pods)
#   kube-router          github.com/cloudnativelabs/kube-router/v2 (only its NetworkPolicy firewall)
# Prints the directory holding them. Cached outside the repo keyed by the versions in versions.env,
# so re-runs (and CI on the same machine) cost nothing once built. build-times.txt in that directory
# records how long each cold build took.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.env"
source "$here/k8s-module.sh"
CACHE_ROOT="${NODE_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-node-binaries}"
OUT="$CACHE_ROOT/k8s-${K8S_VERSION}_coredns-${COREDNS_VERSION}_kube-router-${KUBE_ROUTER_VERSION}"
BINARIES=(kubelet kube-proxy pause coredns kube-router)
complete() { local b; for b in "${BINARIES[@]}"; do [ -x "$1/$b" ] || return 1; done; }
if complete "$OUT"; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build the test node" >&2; exit 1; }
command -v gcc >/dev/null || { echo "gcc is required to build the pause binary" >&2; exit 1; }

# One build at a time per cache directory: a second caller waits for the first and then finds the
# binaries in place.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
if ! flock -n 9; then
  echo "[build-node] another build is running; waiting for it" >&2
  flock 9
  if complete "$OUT"; then echo "$OUT"; exit 0; fi
fi

export GOTOOLCHAIN=local CGO_ENABLED=0
# Two cores: parallel package compiles beyond that only add memory pressure.
export GOFLAGS="${GOFLAGS:-} -p=2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
rm -rf "$OUT".partial*; stage="$(mktemp -d "$OUT.partial.XXXXXX")"
log() { echo "[build-node] $*" >&2; }
timed() { # NAME COMMAND... — runs it and appends "NAME SECONDS" to build-times.txt
  local name=$1 t0; shift; t0=$(date +%s)
  "$@"
  echo "$name $(( $(date +%s) - t0 ))s" | tee -a "$stage/build-times.txt" | sed 's/^/[build-node] built /' >&2
}

# kubelet and kube-proxy: the same wrapper module as the control plane, so the Go build cache the
# control plane left is reused for every shared package.
build_k8s() {
  k8s_wrapper_module "$work/k8s" "$K8S_VERSION" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy
  (cd "$work/k8s" && go build -trimpath -tags="$K8S_BUILD_TAGS" -ldflags="$(k8s_ldflags "$K8S_VERSION")" \
    -o "$stage/" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy >&2)
}
log "kubelet, kube-proxy $K8S_VERSION"
timed kubelet+kube-proxy build_k8s

# pause: upstream's own source at the pinned version, built as its Makefile does (-Os -static).
build_pause() {
  local dir; dir="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  gcc -Os -Wall -Werror -static -DVERSION="${K8S_VERSION}-rehearsal" -o "$stage/pause" "$dir/build/pause/linux/pause.c"
  strip "$stage/pause"
}
log "pause (build/pause/linux/pause.c of k8s.io/kubernetes $K8S_VERSION)"
timed pause build_pause

# CoreDNS with only the plugins the cluster DNS uses (node/coredns.yaml's Corefile). Upstream's
# main imports every plugin (cloud DNS providers, tracing, etcd, ...), which took 386 s to build
# here; a main of our own that imports coremain and these plugins is CoreDNS's documented way to
# choose plugins at build time, and builds in a fraction of that.
build_coredns() {
  mkdir -p "$work/coredns"
  cat > "$work/coredns/main.go" <<'GO'
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() { coremain.Run() }
GO
  (cd "$work/coredns" && go mod init local.test/coredns >/dev/null 2>&1 \
    && go get "github.com/coredns/coredns@${COREDNS_VERSION}" >&2 && go mod tidy >&2 \
    && go build -trimpath -ldflags="-s -w" -o "$stage/coredns" . >&2)
}
log "coredns $COREDNS_VERSION (plugins: cache errors health kubernetes loadbalance log ready reload)"
timed coredns build_coredns

# kube-router: only its NetworkPolicy firewall runs (no routing, no service proxy, no BGP).
log "kube-router $KUBE_ROUTER_VERSION"
timed kube-router env GOBIN="$stage" go install -trimpath \
  -ldflags="-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=${KUBE_ROUTER_VERSION}" \
  "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@${KUBE_ROUTER_VERSION}"

rm -rf "$OUT"; mv "$stage" "$OUT"; chmod 755 "$OUT"; echo "$OUT"
