#!/usr/bin/env bash
# package.sh [--platform OS/ARCH]... OUTDIR — the krew archives of kubectl-restoretest and the
# manifest that installs them (issue 30). Default: every platform of manifest.ts (linux and darwin,
# amd64 and arm64), built on any Linux machine. Writes:
#   OUTDIR/kubectl-restoretest-v<version>-<os>-<arch>.tar.gz, holding kubectl-restoretest/ =
#     kubectl-restoretest           the sh launcher (krew/kubectl-restoretest) krew links into its bin/
#     kubectl_complete-restoretest  kubectl's completion hook (bin/)
#     lib/main.mjs, lib/chunk-*.mjs the plugin bundled by esbuild (bundle.ts): cmd/, protocol/, the openapi client and
#                                   only the npm packages they import (client-node, loaded for exec
#                                   credentials and the like only, sits in a chunk of its own)
#     lib/THIRD-PARTY-NOTICES       name, version and license text of every bundled npm package
#     node/bin/node, node/LICENSE   the platform's Node 24 binary from the npm registry (manifest.ts)
#   OUTDIR/restoretest.yaml         krew/restoretest.yaml with each archive's uri and sha256
#   OUTDIR/bundle-meta.json         esbuild's metafile: every file that went into lib/
# and prints each archive's path and sha256. Reproducible: the same commit and Node packages give the
# same bytes (entries sorted, owner 0, mtime SOURCE_DATE_EPOCH, default the commit's time; gzip -n).
# Needs GNU tar, gzip, npm (the Node packages: NPM_FLAGS, e.g. --offline, go to npm pack) and the
# repository's node_modules (Node 24, esbuild). RELEASE_URL: where the archives will be published
# (default: the GitHub release of this version).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
usage() { echo "usage: package.sh [--platform OS/ARCH]... OUTDIR" >&2; exit 2; }

wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    --platform) [ $# -ge 2 ] || usage; wanted+=("$2"); shift 2 ;;
    --platform=*) wanted+=("${1#--platform=}"); shift ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || usage
out="$(mkdir -p "$1" && cd "$1" && pwd)"

node="$root/node_modules/.bin/node"
[ -x "$node" ] || node=node
[ -d "$root/node_modules/esbuild" ] || { echo "package.sh: esbuild is missing from $root/node_modules (npm ci)" >&2; exit 1; }
manifest() { "$node" "$here/manifest.ts" "$@"; }
version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$root/package.json" | head -n 1)"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}"
release_url="${RELEASE_URL:-https://github.com/rehearsal-dev/rehearsal/releases/download/v$version}"

declare -A node_package=()
while read -r os arch package package_version; do
  node_package["$os/$arch"]="$package@$package_version"
done < <(manifest platforms)
if [ ${#wanted[@]} -eq 0 ]; then
  mapfile -t wanted < <(manifest platforms | awk '{print $1 "/" $2}')
fi
for platform in "${wanted[@]}"; do
  [ -n "${node_package[$platform]:-}" ] || { echo "package.sh: unknown platform $platform (known: ${!node_package[*]})" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The plugin, once for every platform (bundle.ts: ES modules split at its dynamic imports).
(cd "$root" && "$node" "$here/bundle.ts" "$work/lib" "$out/bundle-meta.json")
(cd "$root" && manifest notices "$out/bundle-meta.json") > "$work/lib/THIRD-PARTY-NOTICES"

mkdir -p "$work/npm"
checksums=()
for platform in "${wanted[@]}"; do
  os=${platform%/*} arch=${platform#*/}
  stage="$work/stage-$os-$arch/kubectl-restoretest"
  mkdir -p "$stage/node/bin" "$work/node-$os-$arch"
  # npm checks the package's integrity against the registry's; the binary is used as published.
  tgz="$(cd "$work/npm" && npm pack "${node_package[$platform]}" --silent ${NPM_FLAGS:-} | tail -n 1)"
  tar -xzf "$work/npm/$tgz" -C "$work/node-$os-$arch" package/bin/node package/LICENSE
  mv "$work/node-$os-$arch/package/bin/node" "$stage/node/bin/node"
  mv "$work/node-$os-$arch/package/LICENSE" "$stage/node/LICENSE"
  cp -R "$work/lib" "$stage/lib"
  cp "$here/kubectl-restoretest" "$stage/kubectl-restoretest"
  cp "$root/cmd/kubectl-restoretest/bin/kubectl_complete-restoretest" "$stage/kubectl_complete-restoretest"
  find "$stage" -type d -exec chmod 755 {} + -o -type f -exec chmod 644 {} +
  chmod 755 "$stage/kubectl-restoretest" "$stage/kubectl_complete-restoretest" "$stage/node/bin/node"
  archive="$out/kubectl-restoretest-v$version-$os-$arch.tar.gz"
  tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$(dirname "$stage")" -cf - kubectl-restoretest | gzip -9 -n > "$archive"
  sha="$(sha256sum "$archive" | cut -d' ' -f1)"
  checksums+=("$platform=$sha")
  echo "$archive $sha"
done
manifest fill "$here/restoretest.yaml" "$version" "$release_url" "${checksums[@]}" > "$out/restoretest.yaml"
echo "$out/restoretest.yaml"
