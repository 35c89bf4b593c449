# The shop's web server (images/shop/main.go, Go standard library only, static) plus Debian's static
# busybox: a shell for exec checks and `kubectl exec`, nc and nslookup for the network tests.
IMAGE=rehearsal.local/shop:1
CONFIG='{"Entrypoint":["/usr/local/bin/shop"],"Env":["PATH=/usr/local/bin:/usr/bin:/bin","PORT=8080"],"User":"65532:65532","ExposedPorts":{"8080/tcp":{}}}'
inputs() { go version; apt_memo deb_versions busybox-static; }
rootfs() {
  local dir=$1
  mkdir -p "$dir/usr/local/bin"
  (cd "$here/shop" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w -buildid=" \
    -o "$dir/usr/local/bin/shop" .)
  busybox_install "$dir"
  base_files "$dir" nonroot:65532
}
