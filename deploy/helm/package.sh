#!/usr/bin/env bash
# package.sh [--from COMMIT] [--version V] [--push oci://HOST/PATH] [--plain-http] OUTDIR
#
# Packs the chart into OUTDIR/rehearsal-<version>.tgz with Helm (built from its Go module by
# deploy/tools/build-go-tools.sh) and prints the archive's path; with --push, pushes it to an OCI
# registry (`helm push`, so it installs as `helm install oci://HOST/PATH/rehearsal --version V`).
#
# The chart's crds/ and files/ are symlinks into crds/ and deploy/ (one source for kustomize and
# Helm users). `helm package` follows them and stores real files; the archive is refused here if it
# still holds a link, since one would point outside the chart on the user's machine.
#
#   --from COMMIT  the chart as it was at COMMIT (git archive of deploy/ and crds/, links and all):
#                  how the previous release is rebuilt for the upgrade test
#   --version V    the chart version to stamp (default: Chart.yaml's)
#   --plain-http   push over http (a registry on 127.0.0.1 without TLS)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
from='' version='' push='' plain_http=()
while [ $# -gt 1 ]; do
  case "$1" in
    --from) from=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --push) push=$2; shift 2 ;;
    --plain-http) plain_http=(--plain-http); shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--from COMMIT] [--version V] [--push oci://HOST/PATH] [--plain-http] OUTDIR" >&2; exit 2; }
out=$1
case "$push" in '' | oci://*) ;; *) echo "--push takes an oci:// reference, not: $push" >&2; exit 2 ;; esac

helm="$(bash "$repo/deploy/tools/build-go-tools.sh" helm)"
chart="$repo/deploy/helm/rehearsal"
scratch=''
trap '[ -z "$scratch" ] || rm -rf "$scratch"' EXIT
if [ -n "$from" ]; then
  # Both trees: the chart's links point from deploy/helm/rehearsal into crds/ and deploy/.
  scratch="$(mktemp -d)"
  git -C "$repo" archive --format=tar "$from" deploy crds | tar -x -C "$scratch"
  chart="$scratch/deploy/helm/rehearsal"
fi

mkdir -p "$out"
version_args=()
[ -z "$version" ] || version_args=(--version "$version")
archive="$("$helm" package "$chart" --destination "$out" "${version_args[@]}" | sed -n 's/^Successfully packaged chart and saved it to: //p')"
[ -f "$archive" ] || { echo "helm package wrote no archive" >&2; exit 1; }

# tar's long listing starts each entry with its type: 'l' is a symbolic link, 'h' a hard link.
links="$(tar -tvzf "$archive" | awk '$1 ~ /^[lh]/')"
if [ -n "$links" ]; then
  echo "the packaged chart still holds links (they would point outside it once installed):" >&2
  echo "$links" >&2
  exit 1
fi

if [ -n "$push" ]; then
  "$helm" push "$archive" "$push" "${plain_http[@]}" >&2
fi
echo "$archive"
