#!/usr/bin/env bash
# node-down.sh WORKDIR — stops the real node node-up.sh started and leaves the host as it was, so
# a re-run starts clean. In order:
#   1. drain: the node gets a NoExecute taint and its pods are deleted, so the kubelet itself
#      stops their containers and tears their networks down (CNI DEL, network namespaces, volumes)
#   2. kube-proxy stops, then `kube-proxy --cleanup` removes its iptables rules
#   3. the kubelet stops; containers still running are killed through containerd
#   4. containerd stops (and any shim of ours left behind)
#   5. (kube-router's rules and ipsets go with the sweep in 6)
#   6. mounts under the node's directory, leftover network namespaces, the cni0 bridge, the routes,
#      the FORWARD guard, every remaining KUBE-* chain and ipset, the apiserver relay, the Node object
# Safe to run when nothing is running; down.sh runs it before stopping the control plane.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
W="$(cd "${1:?usage: node-down.sh WORKDIR}" 2>/dev/null && pwd)" || W="${1%/}"
N="$W/node"
source "$here/node-lib.sh"
# Nothing to do unless this WORKDIR has a node, or had the machine's node and lost its directory
# (then only the host's leftovers are cleaned up).
[ -d "$N" ] || [ "$(cat "$MACHINE_STATE/owner" 2>/dev/null)" = "$N" ] || exit 0
log() { echo "[node-down] $*" >&2; }
# The host-wide part (bridge, routes, KUBE-* chains and ipsets, kubepods cgroups) belongs to the
# machine's node. When another WORKDIR holds it (a second checkout's tests beside a CI run), this
# one's node directory is only a leftover: clear that, and leave the running node alone.
owner="$(cat "$MACHINE_STATE/owner" 2>/dev/null)"
if [ -n "$owner" ] && [ "$owner" != "$N" ] && [ -d "$owner" ]; then
  grep -F " $N/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  for d in "$N/containerd" "$N/kubelet" "$N/cni/ipam"; do [ -e "$d" ] && remove_node_dir "$d"; done
  log "left alone: the machine's node is $owner's; cleared only $N"
  exit 0
fi
pid_of() { [ -f "$N/pids/$1.pid" ] && cat "$N/pids/$1.pid"; }
alive() { local p; p="$(pid_of "$1")" && kill -0 "$p" 2>/dev/null; }
stop() { # NAME: SIGTERM to its process group (each was started in its own session), then SIGKILL
  local p; p="$(pid_of "$1")" || return 0
  kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
  kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null
  rm -f "$N/pids/$1.pid"
}
K=""
if [ -f "$W/env" ]; then
  source "$W/env"
  K="$K8S_BIN/kubectl --kubeconfig $KUBECONFIG_PATH --request-timeout=5s"
  $K get --raw /readyz >/dev/null 2>&1 || K=""
fi
CTR="ctr --address $CONTAINERD_SOCK -n k8s.io"
tasks() { $CTR tasks ls -q 2>/dev/null | grep -c . ; }

# 1. drain through the kubelet
if [ -n "$K" ] && alive kubelet; then
  $K taint node "$NODE_NAME" rehearsal.dev/node-down=true:NoExecute --overwrite >/dev/null 2>&1
  $K delete pods -A --field-selector "spec.nodeName=$NODE_NAME" --force --grace-period=0 --wait=false >/dev/null 2>&1
  for _ in $(seq 1 60); do [ "$(tasks)" = 0 ] && break; sleep 0.5; done
  log "drained ($(tasks) containers left)"
fi

# 2. kube-proxy
stop kube-proxy
[ -x "${NODE_BIN:-}/kube-proxy" ] || NODE_BIN="$(sed -n 's/^NODE_BIN=//p' "$N/env" 2>/dev/null)"
[ -x "${NODE_BIN:-}/kube-proxy" ] && "$NODE_BIN/kube-proxy" --cleanup >/dev/null 2>&1

# 3. kubelet, then whatever still runs
stop kubelet
if alive containerd; then
  for t in $($CTR tasks ls -q 2>/dev/null); do $CTR tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
  for _ in $(seq 1 20); do [ "$(tasks)" = 0 ] && break; sleep 0.25; done
fi

# 4. containerd and shims of ours (their command line names our socket)
stop containerd
for p in $(grep -l -a -F -- "$CONTAINERD_SOCK" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
  kill -9 "$p" 2>/dev/null
done

# 5. kube-router's firewall rules and ipsets: the sweep in 6 removes them (KUBE-ROUTER-*,
# KUBE-POD-FW-*, KUBE-NWPLCY-* chains and KUBE-* ipsets). `kube-router --cleanup-config` (v2.1.0)
# is not used: here it reports its firewall cleaned and leaves every chain in place, then panics
# cleaning up the service proxy it never ran (this kernel has no IPVS).

# 6. what is left on the host
grep -F " $N/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
for ns in /run/netns/cni-*; do [ -e "$ns" ] && { umount "$ns" 2>/dev/null; rm -f "$ns"; }; done
ip link del "$BRIDGE" 2>/dev/null
ip route del unreachable "$FAKE_POD_RANGE" 2>/dev/null
ip route del "$SERVICE_CIDR" dev "$BRIDGE" 2>/dev/null
sweep_chains() { # iptables|ip6tables: delete jumps into KUBE-*/REHEARSAL-* chains, then the chains
  local ipt=$1 t rule c
  for t in filter nat mangle raw; do
    $ipt -t "$t" -S 2>/dev/null | grep -E -- '^-A .* -j (KUBE-|REHEARSAL-)' | while read -r rule; do
      eval "$ipt -t $t ${rule/-A/-D}" 2>/dev/null
    done
    for c in $($ipt -t "$t" -S 2>/dev/null | awk '/^-N (KUBE-|REHEARSAL-)/ {print $2}'); do $ipt -t "$t" -F "$c" 2>/dev/null; done
    for c in $($ipt -t "$t" -S 2>/dev/null | awk '/^-N (KUBE-|REHEARSAL-)/ {print $2}'); do $ipt -t "$t" -X "$c" 2>/dev/null; done
  done
}
sweep_chains iptables; sweep_chains ip6tables
for s in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|kube-router|inet6:KUBE-)'); do ipset destroy "$s" 2>/dev/null; done
stop apiserver-relay
# Containers outlive a containerd that died without stopping them (their shims are gone now): any
# process still in the kubelet's pod cgroups is one of this node's containers.
for procs in $(find /sys/fs/cgroup/pids/kubepods -name cgroup.procs 2>/dev/null); do
  for p in $(cat "$procs"); do kill -9 "$p" 2>/dev/null; done
done
sleep 0.2
# The kubelet's empty QoS cgroups (kubepods, kubepods/besteffort, ...), deepest first.
for ctl in /sys/fs/cgroup/*/kubepods; do [ -d "$ctl" ] && find "$ctl" -depth -type d -exec rmdir {} + 2>/dev/null; done
[ -n "$K" ] && $K delete node "$NODE_NAME" --wait=false >/dev/null 2>&1
[ "$(cat "$MACHINE_STATE/owner" 2>/dev/null)" = "$N" ] && rm -f "$MACHINE_STATE/owner"
[ -d "$N" ] || { log "stopped (state directory $N was gone)"; exit 0; }
for d in "$N/containerd" "$N/kubelet" "$N/cni/ipam"; do [ -e "$d" ] && remove_node_dir "$d"; done
log "stopped"
exit 0
