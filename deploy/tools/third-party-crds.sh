#!/usr/bin/env bash
# third-party-crds.sh — prints the paths of the CRDs that the optional objects of the chart and of
# deploy/components need: the Prometheus Operator's ServiceMonitor and PrometheusRule, and
# cert-manager's Certificate and Issuer. Taken from their Go modules (module proxy, cached by Go),
# at the versions of versions.env, so tests validate against the real schemas.
set -euo pipefail
source "$(dirname "$0")/versions.env"
export GOTOOLCHAIN=local
dir_of() { go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p'; }
po="$(dir_of github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION")"
cm="$(dir_of github.com/cert-manager/cert-manager "$CERT_MANAGER_VERSION")"
echo "$po/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
echo "$po/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
echo "$cm/deploy/crds/cert-manager.io_certificates.yaml"
echo "$cm/deploy/crds/cert-manager.io_issuers.yaml"
