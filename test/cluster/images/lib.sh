# lib.sh — helpers for the image recipes (sourced by build-images.sh, never run on its own).

# apt_memo NAME ARGS... — runs NAME ARGS (a function that only reads apt's package lists) once per
# state of those lists: apt-cache loads its whole cache on every call, seconds on a loaded machine,
# and node-up.sh asks for every image's inputs on each start.
apt_memo() {
  local key dir="${CACHE_ROOT:?}/.apt-memo"
  key="$( { stat -c '%n %Y %s' /var/lib/apt/lists/*_Packages* 2>/dev/null; echo "$*"; } | sha256sum | cut -c1-16)"
  mkdir -p "$dir"
  if [ ! -s "$dir/$key" ]; then "$@" > "$dir/$key.$$" && mv "$dir/$key.$$" "$dir/$key"; fi
  cat "$dir/$key"
}

# deb_closure ROOT... [-- EXCLUDE...] — prints the root packages and every library package (named lib*
# or in Debian's libs section) they need,
# recursively (Depends and Pre-Depends only). Only libraries are followed: an image needs the shared
# objects its binaries link, not the maintainer scripts' perl, debconf or adduser. EXCLUDE stops the
# walk at packages an image deliberately leaves out (e.g. LLVM, which only PostgreSQL's JIT loads).
deb_closure() {
  local -a frontier=() exclude=() next=() other=(); local seen=" " p d
  while [ $# -gt 0 ] && [ "$1" != -- ]; do frontier+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  exclude=("$@")
  # Breadth first, one apt-cache call per level (each call loads the package cache: slow).
  while [ ${#frontier[@]} -gt 0 ]; do
    next=(); other=()
    for p in "${frontier[@]}"; do seen="$seen$p "; done
    for d in $(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
                 --no-enhances "${frontier[@]}" 2>/dev/null | awk '$1=="Depends:" || $1=="PreDepends:" {print $2}' | sort -u); do
      case "$seen" in *" $d "*) continue ;; esac
      case " ${exclude[*]} " in *" $d "*) continue ;; esac
      case "$d" in lib*) next+=("$d") ;; *) other+=("$d") ;; esac
    done
    # zlib1g and gcc-12-base are libraries too, by Debian's section if not by name.
    if [ ${#other[@]} -gt 0 ]; then
      next+=($(apt-cache show --no-all-versions "${other[@]}" 2>/dev/null \
                 | awk '/^Package:/ {p=$2} /^Section:/ && $2=="libs" {print p}' | sort -u))
    fi
    frontier=("${next[@]}")
  done
  echo $seen
}

# deb_versions PKG... — "pkg=version" lines of the candidates apt would download (cache-key input).
deb_versions() {
  apt-cache policy "$@" | awk '/^[^ ]/ {sub(":$", "", $1); p=$1} /Candidate:/ {print p "=" $2}'
}

# debs_install DIR PKG... — downloads the packages (the exact candidates) and unpacks them into DIR
# without running maintainer scripts, then drops what a container never reads (manuals, docs but
# their copyright notices, locales, lintian overrides).
debs_install() {
  local dir=$1; shift
  local dl; dl="$(mktemp -d)"
  (cd "$dl" && apt-get download "$@" >/dev/null 2>&1) || {
    apt-get update -qq && (cd "$dl" && apt-get download "$@" >/dev/null)
  }
  local deb
  for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  rm -rf "$dl"
  rm -rf "$dir"/usr/share/man "$dir"/usr/share/info "$dir"/usr/share/lintian "$dir"/usr/share/locale \
    "$dir"/usr/share/bug "$dir"/usr/share/doc-base
  [ -d "$dir/usr/share/doc" ] && find "$dir/usr/share/doc" -type f ! -name copyright -delete
  # Debian's merged /usr: /bin, /sbin and /lib* are links into /usr (dpkg-deb -x does not make them).
  local l
  for l in bin sbin lib lib64; do
    if [ -d "$dir/$l" ] && [ ! -L "$dir/$l" ]; then
      mkdir -p "$dir/usr/$l"; cp -a "$dir/$l/." "$dir/usr/$l/"; rm -rf "${dir:?}/$l"
    fi
    [ -e "$dir/usr/$l" ] && ln -sfn "usr/$l" "$dir/$l"
  done
  return 0
}

# busybox_install DIR — Debian's static busybox as /usr/bin/busybox with a link per applet in
# /usr/bin (sh, nc, cat, ls, ...): a shell for `kubectl exec` and exec checks, nc for network tests.
BUSYBOX=/usr/bin/busybox
busybox_install() {
  local dir=$1 a
  if ldd "$BUSYBOX" >/dev/null 2>&1; then echo "$BUSYBOX is dynamically linked: install busybox-static" >&2; return 1; fi
  mkdir -p "$dir/usr/bin"
  cp "$BUSYBOX" "$dir/usr/bin/busybox"
  for a in $("$BUSYBOX" --list); do
    [ -e "$dir/usr/bin/$a" ] || [ -e "$dir/usr/sbin/$a" ] || ln -s busybox "$dir/usr/bin/$a"
  done
  [ -e "$dir/bin" ] || ln -s usr/bin "$dir/bin"
}

# base_files DIR [USER:UID ...] — /etc/passwd and /etc/group (root, nobody and the named users),
# /etc/nsswitch.conf, a world-writable /tmp. Programs that look their own uid up (PostgreSQL does)
# need the passwd entry.
base_files() {
  local dir=$1 u; shift
  mkdir -p "$dir/etc" "$dir/tmp"; chmod 1777 "$dir/tmp"
  { echo 'root:x:0:0:root:/root:/bin/sh'
    for u in "$@"; do echo "${u%%:*}:x:${u#*:}:${u#*:}:${u%%:*}:/tmp:/sbin/nologin"; done
    echo 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin'; } > "$dir/etc/passwd"
  { echo 'root:x:0:'; for u in "$@"; do echo "${u%%:*}:x:${u#*:}:"; done; echo 'nogroup:x:65534:'; } > "$dir/etc/group"
  echo 'hosts: files dns' > "$dir/etc/nsswitch.conf"
}

# check_linked DIR FILE... — every shared object FILE needs resolves inside DIR (runs the image's own
# dynamic loader in a chroot): a library missing from the image fails the build, not the pod.
check_linked() {
  local dir=$1 f out; shift
  for f in "$@"; do
    out="$(chroot "$dir" /lib64/ld-linux-x86-64.so.2 --list "$f" 2>&1)" || { echo "$f: $out" >&2; return 1; }
    if grep -q 'not found' <<<"$out"; then echo "$f needs libraries missing from the image:" >&2; grep 'not found' <<<"$out" >&2; return 1; fi
  done
}

# node_bin NAME — a binary built by test/cluster/build-node.sh (built once, cached by version).
node_bin() {
  [ -n "${NODE_BIN:-}" ] || NODE_BIN="$(bash "$here/../build-node.sh")"
  echo "$NODE_BIN/$1"
}
