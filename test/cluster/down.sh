#!/usr/bin/env bash
# down.sh WORKDIR — stops only the processes up.sh started there (by recorded PID).
here="$(cd "$(dirname "$0")" && pwd)"
W=${1:-$here/../../.k8s/dev}
[ -d "$W/pids" ] || exit 0
# A real node first (node-up.sh), while the apiserver can still drain it.
bash "$here/node-down.sh" "$W"
order="kwok kube-scheduler kube-controller-manager kube-apiserver etcd"
for n in $order; do f="$W/pids/$n.pid"; [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
for _ in $(seq 1 20); do
  alive=0; for f in "$W"/pids/*.pid; do [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break; sleep 0.25
done
for f in "$W"/pids/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; rm -f "$f"; done
exit 0
