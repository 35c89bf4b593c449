#!/usr/bin/env bash
# build-images.sh [NAME...] — builds the test node's container images on this machine, without a
# container engine or a registry, and prints the path of each image archive (an OCI image layout in
# a tar file; `ctr -n k8s.io images import` loads it under its full name, `podman load` too).
# With no NAME, builds every recipe below. Each image is one reproducible layer (sorted entries,
# mtime 0, numeric owners, gzip -n), so the same inputs give the same digests.
#
# A recipe is images/NAME.sh, sourced in a subshell. It sets IMAGE (the reference pods use, under
# rehearsal.local/, a name no registry answers) and CONFIG (the OCI image config: Entrypoint, Env,
# User, ...), and defines inputs() (prints what the image is made of: Debian package versions, a
# binary's digest) and rootfs DIR (fills the root filesystem). Files in images/NAME/ are the
# recipe's own sources. The cache key hashes the recipe, its directory, these scripts and inputs(),
# so an image is rebuilt exactly when something that goes into it changed.
#
# Runs as root: files keep their owners (PostgreSQL's data directory belongs to uid 999) and
# check_linked chroots into each image to prove its binaries find every shared library.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$here/../../.." && pwd)"
source "$here/../versions.env"
ALL=(pause shop postgres coredns kube-router)
CACHE_ROOT="${NODE_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-node-images}"
source "$here/lib.sh"
NODE="$ROOT/node_modules/.bin/node"; [ -x "$NODE" ] || NODE=node
log() { echo "[build-images] $*" >&2; }
[ "$(id -u)" = 0 ] || { echo "build-images.sh runs as root (file owners, chroot checks)" >&2; exit 1; }
[ $# -gt 0 ] || set -- "${ALL[@]}"
# Built on first use by node_bin (lib.sh); the shop and PostgreSQL images need none of them.
NODE_BIN="${NODE_BIN:-}"

mkdir -p "$CACHE_ROOT"
exec 8>"$CACHE_ROOT/.build.lock"
flock 8

build_one() (
  local name=$1 recipe="$here/$1.sh"
  [ -f "$recipe" ] || { echo "no recipe $recipe" >&2; exit 1; }
  # shellcheck source=/dev/null
  source "$recipe"
  local key
  key="$( { cat "$here/lib.sh" "$here/build-images.sh" "$here/write-image.mjs" "$recipe"
            [ -d "$here/$name" ] && (cd "$here/$name" && find . -type f | LC_ALL=C sort | xargs sha256sum)
            echo "$IMAGE"; echo "$CONFIG"; inputs; } | sha256sum | cut -c1-16)"
  local out="$CACHE_ROOT/$name-$key.tar"
  if [ -f "$out" ]; then echo "$out"; return 0; fi
  local t0 work; t0=$(date +%s); work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/rootfs" "$work/blobs"
  log "$name ($IMAGE)"
  rootfs "$work/rootfs"
  tar --sort=name --numeric-owner --mtime=@0 --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -C "$work/rootfs" -cf "$work/layer.tar" .
  local diffid digest
  diffid="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
  gzip -n -6 "$work/layer.tar"
  digest="$(sha256sum "$work/layer.tar.gz" | cut -d' ' -f1)"
  mv "$work/layer.tar.gz" "$work/blobs/$digest.tar.gz"; echo "$diffid" > "$work/blobs/$digest.diffid"
  "$NODE" "$here/write-image.mjs" "$work/layout" "$IMAGE" "$CONFIG" "$work/blobs/$digest.tar.gz"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/layout" -cf "$work/image.tar" .
  mv "$work/image.tar" "$out.$$" && mv "$out.$$" "$out"
  log "$name: $(( $(date +%s) - t0 ))s, $(du -sm "$work/rootfs" | cut -f1) MB unpacked, $(( $(stat -c %s "$out") / 1024 )) KiB archive"
  echo "$out"
)

for name in "$@"; do build_one "$name"; done
