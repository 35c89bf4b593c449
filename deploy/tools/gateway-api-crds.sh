#!/usr/bin/env bash
# gateway-api-crds.sh [--install KUBECONFIG] — the Gateway API CRDs (standard channel: Gateway,
# HTTPRoute, ...) the chart's optional HTTPRoute needs, from the Go module sigs.k8s.io/gateway-api
# at GATEWAY_API_VERSION (versions.env) through the module proxy; Go's module cache keeps each
# version, so only the first call downloads. Prints the CRD files' paths; with --install, applies
# them to that cluster and waits until they are served, skipping the apply when the cluster already
# has this bundle version (the CRDs' gateway.networking.k8s.io/bundle-version annotation).
set -euo pipefail
source "$(dirname "$0")/versions.env"
export GOTOOLCHAIN=local
dir="$(go mod download -json "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[ -n "$dir" ] || { echo "gateway-api-crds.sh: no module directory for sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" >&2; exit 1; }
# Only CRDs: the bundle's safe-upgrades ValidatingAdmissionPolicy (gateway.networking.k8s.io_vap_*)
# would refuse a later downgrade of a shared test cluster; the CRDs alone are what a dry run needs.
files=()
for file in "$dir"/config/crd/standard/gateway.networking.k8s.io_*.yaml; do
  case "$file" in *_vap_*) ;; *) files+=("$file") ;; esac
done
if [ "${1:-}" != "--install" ]; then
  printf '%s\n' "${files[@]}"
  exit 0
fi
kubeconfig="${2:?usage: gateway-api-crds.sh --install KUBECONFIG}"
k() { kubectl --kubeconfig "$kubeconfig" "$@"; }
installed="$(k get crd httproutes.gateway.networking.k8s.io \
  -o jsonpath='{.metadata.annotations.gateway\.networking\.k8s\.io/bundle-version}' 2>/dev/null || true)"
if [ "$installed" != "$GATEWAY_API_VERSION" ]; then
  for file in "${files[@]}"; do
    k apply --server-side --force-conflicts -f "$file" >&2
  done
fi
k wait --for=condition=Established --timeout=60s \
  crd/gateways.gateway.networking.k8s.io crd/httproutes.gateway.networking.k8s.io >&2
printf '%s\n' "${files[@]}"
