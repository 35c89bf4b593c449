# Velero for the real node: the node agent (`velero node-agent server`, a DaemonSet), the pods it
# starts to move one volume's data (`/velero pod-volume backup|restore`: Velero runs its own
# image's /velero there) and the restore helper, the init container Velero adds to restored pods
# whose volumes come back through the node agent (`/velero-restore-helper`). Both binaries come
# from build-velero.sh (the same patched build the out-of-cluster `velero server` runs), plus
# busybox for `kubectl exec` when something needs looking at.
IMAGE=rehearsal.local/velero:${VELERO_VERSION}
CONFIG='{"Entrypoint":["/velero"],"Env":["PATH=/usr/bin:/bin","HOME=/home/velero"]}'
velero_bins() { [ -n "${VELERO_BINS:-}" ] || VELERO_BINS="$(bash "$here/../build-velero.sh")"; echo "$VELERO_BINS"; }
velero_bin() { velero_bins | sed -n "s/^$1=//p"; }
inputs() { sha256sum < "$(velero_bin VELERO_BIN)"; sha256sum < "$(velero_bin VELERO_RESTORE_HELPER)"; apt_memo deb_versions busybox-static; }
rootfs() {
  local dir=$1
  cp "$(velero_bin VELERO_BIN)" "$dir/velero"
  cp "$(velero_bin VELERO_RESTORE_HELPER)" "$dir/velero-restore-helper"
  busybox_install "$dir"
  base_files "$dir"
  mkdir -p "$dir/home/velero" "$dir/scratch"; chmod 1777 "$dir/home/velero" "$dir/scratch"
}
