# node-lib.sh — the real node's fixed names and addresses, shared by node-up.sh and node-down.sh
# (sourced after N, the node's state directory WORKDIR/node, is set).
source "$(dirname "${BASH_SOURCE[0]}")/versions.env"
NODE_NAME=rehearsal-node-0
BRIDGE=cni0
NODE_IP=10.244.1.1              # the bridge's address: the kubelet refuses a loopback node IP
POD_CIDR=10.244.1.0/24          # real pods (KWOK's fake pods use 10.244.0.0/24)
FAKE_POD_RANGE=10.244.0.0/16    # routed nowhere (`unreachable`), but for POD_CIDR on the bridge
SERVICE_CIDR=10.0.0.0/24        # up.sh's --service-cluster-ip-range
DNS_IP=10.0.0.10                # the kube-dns Service; in the range's low band kept for fixed IPs
CNI_BIN=/usr/lib/cni            # Debian's containernetworking-plugins
CONTAINERD_SOCK="$N/containerd.sock"
MACHINE_STATE=/run/rehearsal-node   # "owner": the one node of this machine (its state directory)
PAUSE_IMAGE=rehearsal.local/pause:3.10
COREDNS_IMAGE="rehearsal.local/coredns:${COREDNS_VERSION}"
KUBE_ROUTER_IMAGE="rehearsal.local/kube-router:${KUBE_ROUTER_VERSION}"

# remove_node_dir DIR — rm -rf that refuses while anything is still mounted below DIR (a hostPath
# volume's bind mount would otherwise let rm reach the host's own files) and never crosses into
# another file system.
remove_node_dir() {
  if grep -qF " $1/" /proc/self/mounts; then
    echo "[node] not removing $1: still mounted below it:" >&2; grep -F " $1/" /proc/self/mounts | awk '{print "  " $2}' >&2
    return 1
  fi
  rm -rf --one-file-system "$1"
}
