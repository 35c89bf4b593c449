#!/usr/bin/env bash
# node-up.sh WORKDIR — adds a REAL node, with real containers, to the test control plane that
# `up.sh WORKDIR --with-node` started (up.sh runs this script itself; run it by hand after a
# node-down.sh to get a fresh node on the same control plane). Stop it with node-down.sh WORKDIR.
#
# On this host, beside the control plane and the KWOK fake node:
#   containerd (Debian's) + runc, own config, root, state and socket under WORKDIR/node
#   CNI bridge cni0 (node IP 10.244.1.1 = its address, pods in 10.244.1.0/24) + host-local + portmap
#   kubelet (built from k8s.io/kubernetes, same version as the control plane)
#   kube-proxy (iptables mode), an apiserver relay for pods (below)
#   in the cluster, as pods on the node: CoreDNS (kube-dns at 10.0.0.10) and kube-router's
#   NetworkPolicy firewall (a DaemonSet)
# Every image is built here (test/cluster/images/build-images.sh) and imported: no registry.
#
# Keeping it apart from the KWOK node: the node carries the taint rehearsal.dev/real-node=true:NoSchedule
# and the label rehearsal.dev/real-node=true. Pods without the toleration (everything the existing
# tests create) can only land on the KWOK node; real-node workloads tolerate the taint AND select
# the label, so they never land on the KWOK node.
#
# Network rules of this machine: everything binds 127.0.0.1 or an address in the node's private
# ranges; the pod range has routes only to itself and the Service range (no default route in pods,
# and a FORWARD guard rejects anything entering or leaving cni0 through another interface); the
# KWOK fake pod range 10.244.0.0/16 (but the node's /24) is `unreachable`, so nothing can dial a
# fake pod's address, whatever a Service's endpoints say.
#
# Pods reach the apiserver the way they do in any cluster, through the `kubernetes` Service
# (10.0.0.1:443): up.sh --with-node advertises the node IP, and a relay (socat) on
# 10.244.1.1:<apiserver port> forwards to the apiserver, which itself keeps listening on 127.0.0.1 only.
#
# Why a node on the host and not kind through podman (the shape the design card names), judged in
# a ~30-minute time box, without building it:
#   - No kind node image can be pulled, and `kind build node-image` cannot run here as it is: it
#     starts from kind's base image (kindest/base) and bakes in control-plane images (kube-apiserver,
#     etcd, kube-controller-manager, kube-scheduler, kube-proxy, CoreDNS, kindnetd,
#     local-path-provisioner, pause), all pulled from registries this machine cannot reach. Every
#     one would have to be assembled here first, the base being a systemd Debian root file system
#     (debootstrap from the Debian mirror) with containerd, runc and the CNI plugins: possible in
#     principle, a large build of its own, and none of it exists.
#   - The node would then run systemd as PID 1 inside a privileged podman container, with a
#     containerd and a kubelet nested in it, on this hybrid cgroup-v1 host whose sandbox lacks
#     CAP_SYS_RESOURCE. What is known: podman runs containers here only with runc, cgroupfs and
#     ulimits no higher than the hard limits, crun refuses the hybrid layout, and containerd needs
#     restrict_oom_score_adj and the kubelet failCgroupV1: false (kind's defaults are the opposite;
#     both are patchable in kind's config). Whether systemd in that container comes up is untried.
#   - kind's network policy support (kindnetd, which embeds kube-network-policies) is built on the
#     nftables queue, and this kernel has no CONFIG_NFT_QUEUE: the enforcer would be kube-router
#     anyway.
#   - kind's kubeadm control plane would be a second cluster beside the one every other test uses
#     (KWOK node, audit log, the flags up.sh sets); the brief is a real node under that one.
# So the pieces that would run inside a kind node run directly on the host, which this script
# proves works; KUBECONFIG=<a kind cluster> still works for a developer who has one
# (test/helpers/real-node.ts says how the real-node tests find a node there).
#
# Exit status 3: this host cannot run a node (the reason is printed; the tests skip loudly).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
W="$(cd "${1:?usage: node-up.sh WORKDIR}" && pwd)"
N="$W/node"
source "$here/node-lib.sh"
t_start=$(date +%s)
log() { echo "[node-up] +$(( $(date +%s) - t_start ))s $*" >&2; }
cannot() { echo "[node-up] this host cannot run a real node: $*" >&2; exit 3; }

# ---- can this host run a node? ---------------------------------------------------------------------
[ "$(id -u)" = 0 ] || cannot "not root (containerd, the kubelet and iptables need root)"
for c in containerd runc iptables ipset conntrack socat ip; do
  command -v "$c" >/dev/null || cannot "$c is not installed (bash test/setup.sh installs it)"
done
[ -x "$CNI_BIN/bridge" ] && [ -x "$CNI_BIN/host-local" ] && [ -x "$CNI_BIN/portmap" ] && [ -x "$CNI_BIN/loopback" ] \
  || cannot "the CNI plugins are missing from $CNI_BIN (containernetworking-plugins)"
[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] || cannot "the kernel has no bridge netfilter (br_netfilter)"
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || cannot "no memory cgroup"
iptables -t nat -S >/dev/null 2>&1 || cannot "iptables cannot read the nat table here"
[ -f "$W/env" ] || { echo "[node-up] no control plane in $W (run up.sh $W --with-node)" >&2; exit 1; }
source "$W/env"   # API_PORT, K8S_BIN, KUBECONFIG_PATH
K="$K8S_BIN/kubectl --kubeconfig $KUBECONFIG_PATH"

# One node per machine: it owns cni0, 10.244.1.1 and the KUBE-* iptables chains.
mkdir -p "$MACHINE_STATE"
if [ -f "$MACHINE_STATE/owner" ]; then
  other="$(cat "$MACHINE_STATE/owner")"
  if [ "$other" != "$N" ] && [ -f "$other/pids/kubelet.pid" ] && kill -0 "$(cat "$other/pids/kubelet.pid")" 2>/dev/null; then
    cannot "another real node is running on this machine (state in $other; node-down.sh its WORKDIR)"
  fi
  log "cleaning up after an earlier node ($other)"
  bash "$here/node-down.sh" "$(dirname "$other")" >&2 || true
fi
bash "$here/node-down.sh" "$W" >/dev/null 2>&1 || true
echo "$N" > "$MACHINE_STATE/owner"

# ---- binaries and images (built once, cached) ------------------------------------------------------
NODE_BIN="$(bash "$here/build-node.sh")"
mapfile -t IMAGES < <(NODE_BIN="$NODE_BIN" bash "$here/images/build-images.sh" pause shop postgres coredns kube-router)
remove_node_dir "$N" || exit 1
mkdir -p "$N"/{logs,pids,pki,cni/net.d,cni/ipam,kubelet}
port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
start() { local n=$1; shift; setsid "$@" >"$N/logs/$n.log" 2>&1 < /dev/null & echo $! >"$N/pids/$n.pid"; }
fail() { echo "[node-up] $1; last lines of $N/logs/$2.log:" >&2; tail -25 "$N/logs/$2.log" >&2 || true; exit 1; }

# ---- host network: bridge, routes, guards, sysctls -------------------------------------------------
log "network: $BRIDGE $NODE_IP/24, pods $POD_CIDR, services $SERVICE_CIDR"
sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
ip link add "$BRIDGE" type bridge 2>/dev/null || true
ip addr replace "$NODE_IP/24" dev "$BRIDGE"
ip link set "$BRIDGE" up
# Fake pod addresses (KWOK's 10.244.0.0/24 and the rest of the /16 but ours) go nowhere; Service
# addresses route into the bridge (kube-proxy rewrites them to a real pod's address first), never
# toward the default gateway.
ip route replace unreachable "$FAKE_POD_RANGE"
ip route replace "$SERVICE_CIDR" dev "$BRIDGE"
iptables -N REHEARSAL-NODE 2>/dev/null || iptables -F REHEARSAL-NODE
iptables -A REHEARSAL-NODE -i "$BRIDGE" ! -o "$BRIDGE" -j REJECT -m comment --comment "pods reach nothing beyond this node"
iptables -A REHEARSAL-NODE -o "$BRIDGE" ! -i "$BRIDGE" -j REJECT -m comment --comment "nothing from outside reaches pods"
iptables -C FORWARD -j REHEARSAL-NODE 2>/dev/null || iptables -I FORWARD 1 -j REHEARSAL-NODE

# ---- the apiserver, for pods -----------------------------------------------------------------------
advertised="$($K get endpointslices -n default -l kubernetes.io/service-name=kubernetes -o jsonpath='{.items[0].endpoints[0].addresses[0]}' 2>/dev/null || true)"
[ "$advertised" = "$NODE_IP" ] || log "warning: the apiserver advertises '$advertised', not $NODE_IP: pods will not reach it (start the control plane with up.sh --with-node)"
start apiserver-relay socat "TCP-LISTEN:$API_PORT,bind=$NODE_IP,fork,reuseaddr" "TCP:127.0.0.1:$API_PORT"

# ---- credentials: the kubelet and kube-proxy authenticate with client certificates ----------------
P="$W/pki"
client_cert() { # NAME SUBJECT
  openssl ecparam -name prime256v1 -genkey -noout -out "$N/pki/$1.key" 2>/dev/null
  openssl req -new -key "$N/pki/$1.key" -subj "$2" -out "$N/pki/$1.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' > "$N/pki/$1.ext"
  openssl x509 -req -in "$N/pki/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 7 \
    -out "$N/pki/$1.crt" -extfile "$N/pki/$1.ext" 2>/dev/null
  rm -f "$N/pki/$1.csr" "$N/pki/$1.ext"
  b64() { base64 -w0 <"$1"; }
  cat >"$N/$1.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority-data: "$(b64 "$P/ca.crt")"}}]
users: [{name: $1, user: {client-certificate-data: "$(b64 "$N/pki/$1.crt")", client-key-data: "$(b64 "$N/pki/$1.key")"}}]
contexts: [{name: test, context: {cluster: test, user: $1}}]
current-context: test
KC
}
client_cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"
client_cert kube-proxy "/CN=system:kube-proxy"

# ---- containerd --------------------------------------------------------------------------------------
log "containerd $(containerd --version | awk '{print $3}'), runc $(runc --version | awk 'NR==1 {print $3}')"
cat >"$N/cni/net.d/10-rehearsal.conflist" <<CNI
{
  "cniVersion": "0.4.0",
  "name": "rehearsal",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": "$N/cni/ipam",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "$SERVICE_CIDR"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
CNI
cat >"$N/containerd.toml" <<TOML
# Debian's containerd 1.6 for the test node; only the CRI plugin is used (by the kubelet).
version = 2
root = "$N/containerd/root"
state = "$N/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The sandbox has no CAP_SYS_RESOURCE: nothing may lower an oom_score_adj (runc fails with
  # "can't get final child's PID from pipe" otherwise).
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        # crun refuses this hybrid cgroup v1 layout; runc works. cgroupfs: no systemd here.
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$N/cni/net.d"
[plugins."io.containerd.internal.v1.opt"]
  path = "$N/containerd/opt"
TOML
start containerd containerd --config "$N/containerd.toml"
for _ in $(seq 1 60); do ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 && break; sleep 0.5; done
ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 || fail "containerd did not start" containerd
for archive in "${IMAGES[@]}"; do
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --no-unpack "$archive" >/dev/null
done
log "images: $(ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q | grep -c '^rehearsal.local/') imported"

# ---- kubelet --------------------------------------------------------------------------------------
KUBELET_PORT=$(port); KUBELET_HEALTHZ=$(port)
printf '# No upstream DNS servers: a query for a name outside the cluster goes nowhere.\n' > "$N/resolv.conf"
cat >"$N/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# Serve on the node IP (the apiserver dials it for logs and exec), health on loopback, no read-only port.
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
# This host's cgroup hierarchy is v1 (hybrid) and there is no systemd: kubelet 1.35 refuses v1
# unless told, and must use cgroupfs.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: true
failSwapOn: false
clusterDNS: [$DNS_IP]
clusterDomain: cluster.local
resolvConf: $N/resolv.conf
registerWithTaints: [{key: rehearsal.dev/real-node, value: "true", effect: NoSchedule}]
# The images cannot be pulled again: never garbage-collect them; evict only when truly short
# (the machine is shared, its disk mostly by others).
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2%}
serializeImagePulls: false
maxPods: 110
YAML
log "kubelet $K8S_VERSION as node $NODE_NAME ($NODE_IP)"
start kubelet "$NODE_BIN/kubelet" --config "$N/kubelet.yaml" --kubeconfig "$N/kubelet.kubeconfig" \
  --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --root-dir "$N/kubelet" --cert-dir "$N/kubelet/pki" \
  --node-labels "rehearsal.dev/real-node=true"
for _ in $(seq 1 120); do
  [ "$($K get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] && break
  kill -0 "$(cat "$N/pids/kubelet.pid")" 2>/dev/null || fail "the kubelet exited" kubelet
  sleep 0.5
done
[ "$($K get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ] || fail "node $NODE_NAME not Ready" kubelet
# The pod range of the node (no controller allocates it here): kube-router reads it.
$K patch node "$NODE_NAME" --type merge -p "{\"spec\":{\"podCIDR\":\"$POD_CIDR\",\"podCIDRs\":[\"$POD_CIDR\"]}}" >/dev/null

# ---- kube-proxy -------------------------------------------------------------------------------------
cat >"$N/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: $N/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$(port)
metricsBindAddress: 127.0.0.1:$(port)
# NodePorts only on the node IP (never on eth0); leave the conntrack table size and route_localnet alone.
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0}
iptables: {localhostNodePorts: false}
YAML
start kube-proxy "$NODE_BIN/kube-proxy" --config "$N/kube-proxy.yaml"

# ---- in-cluster add-ons: CoreDNS, kube-router -------------------------------------------------------
sed -e "s|@COREDNS_IMAGE@|$COREDNS_IMAGE|" -e "s|@DNS_IP@|$DNS_IP|" "$here/node/coredns.yaml" | $K apply -f - >/dev/null
sed -e "s|@IMAGE@|$KUBE_ROUTER_IMAGE|" -e "s|@SERVICE_CIDR@|$SERVICE_CIDR|" "$here/node/kube-router.yaml" | $K apply -f - >/dev/null
$K -n kube-system rollout status daemonset/kube-router --timeout=120s >&2 || fail "kube-router did not become ready" kubelet
$K -n kube-system rollout status deployment/coredns --timeout=120s >&2 || fail "CoreDNS did not become ready" kubelet

cat >"$N/env" <<ENV
NODE_NAME=$NODE_NAME
NODE_IP=$NODE_IP
POD_CIDR=$POD_CIDR
DNS_IP=$DNS_IP
CONTAINERD_SOCK=$CONTAINERD_SOCK
NODE_BIN=$NODE_BIN
NODE_UP_SECONDS=$(( $(date +%s) - t_start ))
ENV
log "node $NODE_NAME Ready with CoreDNS and kube-router in $(( $(date +%s) - t_start ))s"
