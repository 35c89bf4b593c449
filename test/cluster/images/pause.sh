# The pod sandbox ("pause") container of every pod: Kubernetes' own pause.c at K8S_VERSION, built
# static by build-node.sh. containerd's sandbox_image names it (node-up.sh).
IMAGE=rehearsal.local/pause:3.10
CONFIG='{"Entrypoint":["/pause"],"User":"65535:65535"}'
inputs() { sha256sum < "$(node_bin pause)"; }
rootfs() { cp "$(node_bin pause)" "$1/pause"; }
