# k8s-module.sh — sourced by build-binaries.sh (control plane) and build-node.sh (kubelet,
# kube-proxy): how to build commands of k8s.io/kubernetes from the Go module proxy.
#
# k8s.io/kubernetes replaces its staging modules with local paths, so `go install` fails. A wrapper
# module requires it and replaces every staging module with its published v0.<minor>.<patch> tag;
# the list is generated from the upstream go.mod, not hard-coded.

# k8s_wrapper_module DIR VERSION PACKAGE... — writes the wrapper module in DIR (a tools.go imports
# the packages so `go mod tidy` keeps what they need) and tidies it.
k8s_wrapper_module() {
  local dir=$1 version=$2; shift 2
  mkdir -p "$dir"
  (
    cd "$dir"
    go mod init local.test/k8s-binaries >/dev/null 2>&1
    local upmod staging_ver mods m p
    upmod="$(go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
    [ -f "$upmod" ] || { echo "could not fetch k8s.io/kubernetes@${version}" >&2; exit 1; }
    staging_ver="v0.${version#v1.}"
    mods="$( { awk '$2=="v0.0.0" && $1 ~ /^k8s\.io\// {print $1}' "$upmod"
               awk '$2=="=>" && $3 ~ /^\.\/staging\// {print $1}' "$upmod"; } | sort -u )"
    {
      echo "module local.test/k8s-binaries"; echo
      grep -E '^go [0-9]' "$upmod"
      grep -E '^godebug ' "$upmod" || true
      echo; echo "require k8s.io/kubernetes ${version}"; echo
      echo "replace ("
      for m in $mods; do printf '\t%s => %s %s\n' "$m" "$m" "$staging_ver"; done
      echo ")"
    } > go.mod
    { printf '//go:build tools\n\npackage tools\n\nimport (\n'
      for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
      printf ')\n'; } > tools.go
    go mod tidy >&2
  )
}

# k8s_ldflags VERSION — the version ldflags (kwokctl and the apiserver's /version read them; an
# unset version reads as v0.0.0) plus -s -w.
k8s_ldflags() {
  local version=$1 minor now ld p
  minor="$(echo "$version" | sed -E 's/^v1\.([0-9]+)\..*/\1/')"
  now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$version -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    ld="$ld -X $p.gitTreeState=clean -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=$now"
  done
  echo "$ld"
}

# The build tags upstream's release builds use.
K8S_BUILD_TAGS="selinux,notest,grpcnotrace"
