#!/usr/bin/env bash
# build-go-tools.sh [helm|promtool|registry|krew]... — builds Helm, promtool, the CNCF Distribution
# registry and krew from their Go modules through the module proxy (no release downloads) and prints
# the path of each binary. Cached outside the repo,
# keyed by version, like test/cluster/build-binaries.sh: re-runs cost nothing once built.
set -euo pipefail
source "$(dirname "$0")/versions.env"
CACHE_ROOT="${REHEARSAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-go-tools}"
export GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -p=2"
command -v go >/dev/null || { echo "go is required to build $*" >&2; exit 1; }

build() { # name version package ldflags [tags]
  local name=$1 version=$2 pkg=$3 ld=$4 tags=${5:-} out="$CACHE_ROOT/$1-$2"
  if [ ! -x "$out/$name" ]; then
    # One build per tool at a time (several checkouts may run setup at once): a second caller
    # waits for the first and then finds the binary in place.
    mkdir -p "$CACHE_ROOT"
    exec 9>"$CACHE_ROOT/.$name.lock"
    flock 9
    if [ ! -x "$out/$name" ]; then
      echo "[build-go-tools] $name $version (cold build, cached afterwards)" >&2
      local start stage; start=$(date +%s)
      stage="$(mktemp -d "$out.partial.XXXXXX")"
      GOBIN="$stage" nice -n 10 go install -trimpath -tags="$tags" -ldflags="$ld" "$pkg@${version%%-k8s*}" >&2
      rm -rf "$out"; mv "$stage" "$out"
      echo "[build-go-tools] $name built in $(( $(date +%s) - start ))s" >&2
    fi
    exec 9>&-
  fi
  echo "$out/$name"
}

for tool in "${@:-helm promtool registry}"; do
  for t in $tool; do
    case "$t" in
      # The Kubernetes version Helm assumes (template, lint) comes from its client-go version, set
      # by ldflags as Helm's Makefile does; without them it would claim Kubernetes 1.20.
      helm)
        helm_mod="$(go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
        k8s_minor="$(awk '$1=="k8s.io/client-go" {split($2, v, "."); print v[2]}' "$helm_mod")"
        ld="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
        for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
          ld="$ld -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$k8s_minor"
        done
        build helm "$HELM_VERSION-k8s1.$k8s_minor" helm.sh/helm/v3/cmd/helm "$ld" ;;
      # remove_all_sd: promtool's rule tests need no service discovery; without the cloud SDKs
      # (Azure, AWS, GCE, ...) the cold build is much shorter.
      promtool) build promtool "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/promtool \
              "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION}" remove_all_sd ;;
      # The OCI registry the chart is pushed to and installed from in the tests (oci://127.0.0.1:…,
      # test/helpers/oci-registry.ts): CNCF Distribution, the registry behind Docker Hub and most
      # self-hosted ones, with its filesystem storage.
      registry) build registry "$DISTRIBUTION_VERSION" github.com/distribution/distribution/v3/cmd/registry \
              "-s -w -X github.com/distribution/distribution/v3/version.version=${DISTRIBUTION_VERSION}" ;;
      # krew installs the kubectl plugin from its manifest and a local archive in the install test.
      krew) build krew "$KREW_VERSION" sigs.k8s.io/krew/cmd/krew \
              "-s -w -X sigs.k8s.io/krew/internal/version.gitTag=$KREW_VERSION" ;;
      *) echo "unknown tool: $t" >&2; exit 2 ;;
    esac
  done
done
