# CoreDNS (built by build-node.sh from its Go module): the cluster DNS, run as pods in kube-system.
# Runs as root inside the pod only to bind port 53; the Deployment drops every capability but
# NET_BIND_SERVICE.
IMAGE="rehearsal.local/coredns:${COREDNS_VERSION}"
CONFIG='{"Entrypoint":["/coredns"],"ExposedPorts":{"53/udp":{},"53/tcp":{}}}'
inputs() { sha256sum < "$(node_bin coredns)"; }
rootfs() { cp "$(node_bin coredns)" "$1/coredns"; base_files "$1"; }
