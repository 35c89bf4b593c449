#!/usr/bin/env bash
# restart-component.sh WORKDIR NAME — crashes one component of the control plane that up.sh started
# in WORKDIR (SIGKILL: no clean shutdown) and starts it again with the very same command line, read
# from /proc before the kill, the way up.sh starts it: in its own session, its log appended, its PID
# recorded in WORKDIR/pids. For kube-apiserver it then waits for /readyz. up.sh only starts a whole
# control plane; the chaos soak (test/soak/) needs one component to die and come back on its port.
set -euo pipefail
W="$(cd "${1:?workdir}" && pwd)"; N=${2:?component, e.g. kube-apiserver}
pidfile="$W/pids/$N.pid"
[ -f "$pidfile" ] || { echo "no $pidfile: is the control plane in $W running?" >&2; exit 1; }
pid="$(cat "$pidfile")"
[ -r "/proc/$pid/cmdline" ] || { echo "$N (pid $pid) is not running" >&2; exit 1; }
mapfile -d '' cmd < "/proc/$pid/cmdline"
kill -CONT "$pid" 2>/dev/null || true   # a stopped process dies on SIGKILL too; this only tidies
kill -9 "$pid" 2>/dev/null || true
# Dead once it is gone, or a zombie whose every thread has exited (nobody may reap it here: up.sh's
# shell has exited). Its main thread turns zombie before the others are done, and until the last
# one is, its sockets stay open: starting it again then failed with "address already in use".
gone() { [ ! -e "/proc/$pid" ] || { [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] &&
                                     [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -le 1 ]; }; }
for _ in $(seq 1 300); do gone && break; sleep 0.1; done
gone || { echo "$N (pid $pid) did not die" >&2; exit 1; }

# Started again until it stays up for 2 s (its port may still be held for a moment on a busy machine).
for attempt in 1 2 3 4 5; do
  echo "--- restarted by restart-component.sh at $(date -u +%FT%TZ) (attempt $attempt) ---" >>"$W/logs/$N.log"
  setsid "${cmd[@]}" >>"$W/logs/$N.log" 2>&1 </dev/null & new=$!
  sleep 2
  if kill -0 "$new" 2>/dev/null; then echo "$new" >"$pidfile"; break; fi
  [ "$attempt" = 5 ] && { echo "$N exited at once 5 times; see $W/logs/$N.log" >&2; exit 1; }
done

if [ "$N" = kube-apiserver ]; then
  source "$W/env"; P="$W/pki"
  for _ in $(seq 1 240); do
    curl -fsS --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" \
      "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1 && exit 0
    sleep 0.5
  done
  echo "kube-apiserver did not become ready again; see $W/logs/$N.log" >&2; exit 1
fi
