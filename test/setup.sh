#!/usr/bin/env bash
# One-time machine setup, safe to re-run: system packages the tests use, the npm dependencies
# (which bring Node 24 from the npm registry), and the cached Kubernetes test binaries.
#
#   bash test/setup.sh            everything (the demo, a developer's first run)
#   bash test/setup.sh --base     the quick part: Debian packages, npm dependencies, the dashboard
#   bash test/setup.sh --builds   the slow part: every tool built from Go modules, crates and PyPI
#
# npm test runs --base, then --builds in the background while the tests that need none of those
# tools run (test/run-all.sh). Each build script takes a lock on its cache, so a test that needs a
# tool the background has not finished waits for it (or builds it) and finds it in place.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[setup] $*"; }
stage="${1:-all}"
case "$stage" in all | --base | --builds) ;; *) echo "usage: test/setup.sh [--base|--builds]" >&2; exit 2 ;; esac

if [ "$stage" != --builds ]; then

missing=()
command -v pdftotext >/dev/null || missing+=(poppler-utils)
[ -x /usr/lib/postgresql/15/bin/postgres ] || command -v postgres >/dev/null || missing+=(postgresql)
command -v kubectl >/dev/null || missing+=(kubectl)
command -v openssl >/dev/null || missing+=(openssl)
command -v curl >/dev/null || missing+=(curl)
command -v go >/dev/null || missing+=(golang-go)
# Python >= 3.11 with venv: openapi-python-client, the generator of the Python API client.
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
# A real MySQL-protocol server for the sqlQuery check's mysql driver tests.
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
# Headless Chromium for the Swagger UI test (renders /docs in a real browser); the headless shell,
# not the full browser, which keeps trying to reach Google's services.
command -v chromium-headless-shell >/dev/null || missing+=(chromium-headless-shell)
# umoci unpacks the OCI image built by deploy/image/build-oci.sh into a runtime bundle (image test).
command -v umoci >/dev/null || missing+=(umoci)
# The real node of the test cluster (test/cluster/node-up.sh): Debian's container runtime, the CNI
# plugins, the netfilter tools kube-proxy and kube-router drive, busybox for the test images, socat
# (the apiserver relay for pods), gcc and a static libc for the pause binary.
command -v containerd >/dev/null || missing+=(containerd)
command -v runc >/dev/null || [ -x /usr/sbin/runc ] || missing+=(runc)
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
command -v iptables >/dev/null || [ -x /usr/sbin/iptables ] || missing+=(iptables)
command -v ipset >/dev/null || [ -x /usr/sbin/ipset ] || missing+=(ipset)
command -v conntrack >/dev/null || [ -x /usr/sbin/conntrack ] || missing+=(conntrack)
# (static: the images have no libc of their own; Debian's dynamic `busybox` would not run in them)
{ [ -x /usr/bin/busybox ] && ! ldd /usr/bin/busybox >/dev/null 2>&1; } || missing+=(busybox-static)
command -v socat >/dev/null || missing+=(socat)
command -v gcc >/dev/null || missing+=(gcc)
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || missing+=(libc6-dev)
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: the lockfile pins every version, but the registry reached here
  # lacks some other platforms' optional packages (e.g. @swc/core-darwin-*), which makes `npm ci`
  # refuse the lockfile as incomplete; `npm install` installs the same pinned tree and leaves the
  # lockfile unchanged.
  log "npm install (from package-lock.json)"
  npm install --no-audit --no-fund --loglevel=error
fi
log "node $(node_modules/.bin/node --version) from node_modules"

log "dashboard (web/ → web/dist, vite)"
npm run --silent build:web
fi
[ "$stage" = --base ] && exit 0

# The slow builds, in the order the tests need them: the control plane first (every integration
# suite), Velero next (most suites), then the real node and its images (the real-node suites'
# cluster), Helm and promtool (the longest real-node suites, in-cluster and the demo, need Helm),
# the rest last. build-times.txt in test/.tmp says how long each took.
# test/.tmp/builds/NAME.done tells test/run-all.sh's lanes a step is done (their suites wait for
# the steps they need: test/integration/suite-needs.mjs, whose BUILD_STEPS list is this order).
timed() { # NAME COMMAND...
  local name=$1 t0; shift; t0=$(date +%s)
  "$@"
  mkdir -p test/.tmp/builds && echo "$name $(( $(date +%s) - t0 ))s" >> test/.tmp/build-times.txt
  touch "test/.tmp/builds/$name.done"
}

log "Kubernetes test binaries (built once from Go modules, cached by version)"
timed control-plane bash test/cluster/build-binaries.sh >/dev/null

log "Real Velero, its AWS plugin and the s3s-fs object store (built once, cached by version)"
timed velero bash test/cluster/build-velero.sh >/dev/null

log "The real node: kubelet, kube-proxy, pause, CoreDNS, kube-router (built once from Go modules, cached by version)"
timed node bash test/cluster/build-node.sh >/dev/null
if [ "$(id -u)" = 0 ]; then
  log "The real node's images (built here from Debian packages and the binaries above, cached by content)"
  timed node-images bash test/cluster/images/build-images.sh >/dev/null
else
  log "not root: the real node's images are not built (the node needs root; its tests will say so)"
fi

# The step keeps its name (test/integration/suite-needs.mjs keys suites by it) though it also
# builds the OCI registry and krew.
log "Helm, promtool, the OCI registry and krew (built once from Go modules, cached by version)"
timed helm+promtool bash deploy/tools/build-go-tools.sh helm promtool registry krew >/dev/null

log "versitygw, an S3 server with Object Lock, for the evidence anchors' write-once store (built once from its Go module, cached by version)"
timed object-lock-s3 bash test/cluster/build-versitygw.sh >/dev/null

log "CSI on the real node: external-provisioner, external-snapshotter and the test driver (built once, cached by version)"
timed csi bash test/cluster/build-csi.sh >/dev/null

log "API client generators (openapi-python-client venv, oapi-codegen), cached by version"
timed api-clients bash openapi/clients/clients.sh setup

log "schemathesis (API fuzzing in test/integration/schemathesis.test.ts), a cached venv"
timed schemathesis bash test/schemathesis/schemathesis.sh setup
