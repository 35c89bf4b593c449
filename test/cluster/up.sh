#!/usr/bin/env bash
# up.sh WORKDIR — a real test control plane on 127.0.0.1: etcd, kube-apiserver (with an audit log),
# kube-controller-manager, kube-scheduler and the KWOK controller with one fake node whose
# InternalIP is 127.0.0.1 (so nothing ever dials a fake address). Writes WORKDIR/kubeconfig and
# WORKDIR/env (ports, paths) and prints the kubeconfig path. Stop it with down.sh WORKDIR.
#
# up.sh WORKDIR --with-node also starts a real node (node-up.sh: kubelet, containerd, kube-proxy,
# CoreDNS, kube-router). It is an option of up.sh, not only a separate script, because the
# apiserver has to know about the node when it starts: it advertises the node's IP (pods reach it
# through the `kubernetes` Service and a relay on that IP; it still listens on 127.0.0.1 only) and
# dials kubelets by InternalIP with a client certificate (logs, exec). When this host cannot run a
# node, or the node fails to start, the control plane still comes up and WORKDIR/node-status says
# why (first line "unavailable: ..." or "failed: ..."); the tests that need the node report it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
WITH_NODE=0; args=()
for a in "$@"; do [ "$a" = --with-node ] && WITH_NODE=1 || args+=("$a"); done
set -- "${args[@]}"
W="$(mkdir -p "${1:-$here/../../.k8s/dev}" && cd "${1:-$here/../../.k8s/dev}" && pwd)"
N="$W/node"; source "$here/node-lib.sh"
# with_node: run node-up.sh and record the outcome in WORKDIR/node-status (never fails up.sh).
with_node() {
  local rc=0
  bash "$here/node-up.sh" "$W" 2>"$W/logs/node-up.log" || rc=$?
  cat "$W/logs/node-up.log" >&2
  if [ $rc = 0 ]; then echo "ready: node $NODE_NAME" > "$W/node-status"
  elif [ $rc = 3 ]; then { echo "unavailable: $(sed -n 's/^\[node-up\] this host cannot run a real node: //p' "$W/logs/node-up.log" | tail -1)"; } > "$W/node-status"
  else { echo "failed: node-up.sh exited $rc (log: $W/logs/node-up.log)"; tail -5 "$W/logs/node-up.log"; } > "$W/node-status"
    bash "$here/node-down.sh" "$W" >/dev/null 2>&1 || true
  fi
  echo "[up] real node: $(head -1 "$W/node-status")" >&2
}
BIN="${K8S_BIN:-$("$here/build-binaries.sh")}"
mkdir -p "$W/logs" "$W/pids"
if [ -f "$W/kubeconfig" ] && [ -f "$W/pids/kube-apiserver.pid" ] && kill -0 "$(cat "$W/pids/kube-apiserver.pid")" 2>/dev/null; then
  # already running
  if [ $WITH_NODE = 1 ] && ! { [ -f "$N/pids/kubelet.pid" ] && kill -0 "$(cat "$N/pids/kubelet.pid")" 2>/dev/null; }; then with_node; fi
  echo "$W/kubeconfig"; exit 0
fi
bash "$here/down.sh" "$W" >/dev/null 2>&1 || true
rm -rf "$W/etcd" "$W/pki" "$W/logs"/* "$W/node-status"; mkdir -p "$W/logs"

port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
ETCD_PORT=$(port); ETCD_PEER=$(port); API_PORT=$(port); KCM_PORT=$(port); SCHED_PORT=$(port); KWOK_PORT=$(port)
# Each component runs in its own session: a Ctrl-C meant for the caller (the demo, a test run) must
# not kill the control plane halfway; down.sh stops it in order.
start() { local n=$1; shift; setsid "$@" >"$W/logs/$n.log" 2>&1 < /dev/null & echo $! >"$W/pids/$n.pid"; }
wait_ok() { local what=$1 url=$2; shift 2
  for _ in $(seq 1 240); do curl -fsS "$@" "$url" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "timed out waiting for $what ($url); logs in $W/logs" >&2; tail -20 "$W/logs/$what.log" >&2 || true; return 1; }

bash "$here/make-pki.sh" "$W/pki"; P="$W/pki"

start etcd "$BIN/etcd" --name test --data-dir "$W/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "test=http://127.0.0.1:$ETCD_PEER" --unsafe-no-fsync --log-level warn \
  --quota-backend-bytes 8589934592
wait_ok etcd "http://127.0.0.1:$ETCD_PORT/health"

# With a real node: advertise the node IP (the `kubernetes` Service's endpoint, relayed to 127.0.0.1 by
# node-up.sh) and reach kubelets by InternalIP with a client certificate.
NODE_FLAGS=(--advertise-address 127.0.0.1)
[ $WITH_NODE = 1 ] && NODE_FLAGS=(--advertise-address "$NODE_IP" --kubelet-preferred-address-types InternalIP
  --kubelet-client-certificate "$P/apiserver-kubelet-client.crt" --kubelet-client-key "$P/apiserver-kubelet-client.key")
start kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" --bind-address 127.0.0.1 "${NODE_FLAGS[@]}" \
  --secure-port "$API_PORT" \
  --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
  --client-ca-file "$P/ca.crt" --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 --allow-privileged=true \
  --requestheader-client-ca-file "$P/ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$P/front-proxy-client.crt" --proxy-client-key-file "$P/front-proxy-client.key" \
  --enable-aggregator-routing=false \
  --audit-policy-file "$here/audit-policy.yaml" --audit-log-path "$W/audit.log" --audit-log-format json \
  --audit-log-mode blocking --audit-log-maxsize 0 \
  --max-requests-inflight 2000 --max-mutating-requests-inflight 1000
wait_ok kube-apiserver "https://127.0.0.1:$API_PORT/readyz" --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key"

b64() { base64 -w0 <"$1"; }
cat >"$W/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: rehearsal-test
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority-data: "$(b64 "$P/ca.crt")"}
users:
- name: test-admin
  user: {client-certificate-data: "$(b64 "$P/admin.crt")", client-key-data: "$(b64 "$P/admin.key")"}
contexts:
- name: rehearsal-test
  context: {cluster: rehearsal-test, user: test-admin}
current-context: rehearsal-test
KC

# Namespace deletion, ownerReference GC, ServiceAccount tokens, Deployment -> ReplicaSet -> Pod live here.
start kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig "$W/kubeconfig" --authentication-kubeconfig "$W/kubeconfig" --authorization-kubeconfig "$W/kubeconfig" \
  --leader-elect=false --controllers='*' \
  --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
  --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" --use-service-account-credentials=false \
  --service-cluster-ip-range 10.0.0.0/24 --concurrent-gc-syncs 10
start kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$W/kubeconfig" \
  --authentication-kubeconfig "$W/kubeconfig" --authorization-kubeconfig "$W/kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$SCHED_PORT"
# KWOK plays the kubelet for nodes annotated kwok.x-k8s.io/node=fake: Pods on them become Ready.
# --node-ip keeps every address it reports on loopback.
start kwok "$BIN/kwok" --kubeconfig "$W/kubeconfig" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-ip 127.0.0.1 --node-name kwok-node-0 --node-port 0 --cidr 10.244.0.1/24 \
  --node-lease-duration-seconds 40 --config "$(ls "$BIN"/kwok-stages/*.yaml | paste -sd, -)" \
  --server-address "127.0.0.1:$KWOK_PORT"

K="$BIN/kubectl --kubeconfig $W/kubeconfig"
$K apply -f - >/dev/null <<'NODE'
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {kubernetes.io/hostname: kwok-node-0, type: kwok}
spec: {}
status:
  addresses: [{type: InternalIP, address: 127.0.0.1}]
  allocatable: {cpu: "1000", memory: 1024Gi, pods: "5000"}
  capacity: {cpu: "1000", memory: 1024Gi, pods: "5000"}
NODE
# The default ServiceAccount appears once the controller-manager runs; Pods need it.
for _ in $(seq 1 120); do $K get serviceaccount default -n default >/dev/null 2>&1 && break; sleep 0.5; done
cat >"$W/env" <<ENV
K8S_BIN=$BIN
API_PORT=$API_PORT
KWOK_PORT=$KWOK_PORT
AUDIT_LOG=$W/audit.log
KUBECONFIG_PATH=$W/kubeconfig
ENV
[ $WITH_NODE = 1 ] && with_node
echo "$W/kubeconfig"
