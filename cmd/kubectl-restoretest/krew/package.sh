#!/usr/bin/env bash
# package.sh OUTDIR — the krew archive for this machine's platform:
#   OUTDIR/kubectl-restoretest-v<version>-<os>-<arch>.tar.gz, holding kubectl-restoretest/ = the
#   npm pack contents (with the compiled plugin: prepack runs build:plugin) plus the production
#   node_modules as package-lock.json pins them (Node 24 included, through the "node" dependency).
# Prints the archive path and its sha256 for restoretest.yaml. Extra npm flags (e.g. --offline)
# go in NPM_FLAGS. Run it once per platform (the Node binary is platform specific).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$(mkdir -p "${1:?usage: package.sh OUTDIR}" && cd "$1" && pwd)"
version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$root/package.json" | head -n 1)"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
case "$(uname -m)" in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && npm pack --silent --pack-destination "$work" ${NPM_FLAGS:-} >/dev/null)
tar -xzf "$work"/*.tgz -C "$work"
mv "$work/package" "$work/kubectl-restoretest"
cp "$root/package-lock.json" "$work/kubectl-restoretest/"
(cd "$work/kubectl-restoretest" && npm install --omit=dev --no-audit --no-fund --silent ${NPM_FLAGS:-})
archive="$out/kubectl-restoretest-v$version-$os-$arch.tar.gz"
tar -C "$work" -czf "$archive" kubectl-restoretest
echo "$archive"
sha256sum "$archive" | cut -d' ' -f1
