# Velero's AWS object-store plugin for the in-cluster Velero server, shaped as upstream ships it
# (`velero install --plugins velero/velero-plugin-for-aws:...`): an init container of the velero
# Deployment whose entrypoint copies the plugin binary into the shared /target volume, which the
# server container mounts as its --plugin-dir. The binary comes from build-velero.sh (the same
# build the out-of-cluster server loads); busybox gives the image its `cp`.
IMAGE=rehearsal.local/velero-plugin-for-aws:${VELERO_AWS_PLUGIN_VERSION}
CONFIG='{"Entrypoint":["/bin/cp","/plugins/velero-plugin-for-aws","/target/."],"Env":["PATH=/usr/bin:/bin"]}'
plugin_bin() { [ -n "${VELERO_BINS:-}" ] || VELERO_BINS="$(bash "$here/../build-velero.sh")"; echo "$VELERO_BINS" | sed -n 's/^VELERO_AWS_PLUGIN=//p'; }
inputs() { sha256sum < "$(plugin_bin)"; apt_memo deb_versions busybox-static; }
rootfs() {
  local dir=$1
  mkdir -p "$dir/plugins" "$dir/target"
  cp "$(plugin_bin)" "$dir/plugins/velero-plugin-for-aws"
  busybox_install "$dir"
  base_files "$dir"
}
