#!/usr/bin/env bash
# `npm test`: static checks, then every Jest project (unit, contract, integration against a real
# control plane). Prints one closing line "N passed, N failed" (Jest's own summary is per project);
# every static check counts as one test.
#
# A fresh machine builds many tools from source (test/setup.sh --builds: the control plane, Velero,
# the real node, Helm, ...), which is most of a cold run. Those builds run in the background, one
# step after another, while the tests that need none of them run; the integration tests run in two
# lanes at once, each with its own control plane:
#   node lane           the suites that need the real node (they import test/helpers/real-node),
#                       on a cluster with the node (one real node per machine), and the suites
#                       marked "// Lane: node" (they create no pods, so any cluster serves them:
#                       the node lane has room, the control-plane lane is the long one);
#   control-plane lane  every other suite, on a cluster without one.
# Within a lane the suites are grouped by the last build step they need
# (test/integration/suite-needs.mjs); a group starts when its step is done, and runs one suite at a
# time (they share their cluster and the server's namespace). No suite waits for a build inside a
# hook, whose timeout a 10-minute build would exceed.
#
# With arguments (`npm test -- <jest args>`), the integration suites run in one lane instead, with
# the real node, after the builds.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/.tmp
bash test/setup.sh --base || { echo "0 passed, 1 failed" | tee test/.tmp/summary.txt; exit 1; }

rm -rf test/.tmp/build-times.txt test/.tmp/builds && mkdir -p test/.tmp/builds
# nice: the tests running meanwhile keep their timing; the builds take what is left. builds/exit
# holds the exit status once every step has ended (a lane waiting for a step stops waiting then).
( nice -n 10 bash test/setup.sh --builds > test/.tmp/setup-builds.log 2>&1; echo $? > test/.tmp/builds/exit ) &
builds=$!

passed=0; failed=0; skipped=0
check() { # name command...
  local name=$1; shift
  if "$@" > "test/.tmp/$name.log" 2>&1; then passed=$((passed + 1)); echo "PASS check:$name"
  else failed=$((failed + 1)); echo "FAIL check:$name"; tail -n 40 "test/.tmp/$name.log"; fi
}
check typecheck npm run --silent typecheck
check lint npm run --silent lint
if grep -q "\"openapi:check\"" package.json; then check openapi-drift npm run --silent openapi:check; fi

run_jest() { node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --forceExit --json "$@"; }
jest_status=0
tally() { # result-file: adds a Jest run's counts (a missing file is one failure)
  if [ -f "$1" ]; then
    read -r jp jf js < <(node -e 'const r=require(process.argv[1]);console.log(r.numPassedTests, r.numFailedTests + (r.numRuntimeErrorTestSuites||0), r.numPendingTests + (r.numTodoTests||0))' "$PWD/$1")
    passed=$((passed + jp)); failed=$((failed + jf)); skipped=$((skipped + js))
  else
    failed=$((failed + 1))
  fi
}

rm -f test/.tmp/jest-*.json
run_jest --outputFile=test/.tmp/jest-fast.json --selectProjects unit contract "$@" || jest_status=1
tally test/.tmp/jest-fast.json

builds_ok() {
  wait "$builds"; local rc; rc="$(cat test/.tmp/builds/exit 2>/dev/null || echo 1)"
  cat test/.tmp/setup-builds.log
  [ -f test/.tmp/build-times.txt ] && echo "[setup] build times: $(tr '\n' ' ' < test/.tmp/build-times.txt)"
  if [ $rc -ne 0 ]; then echo "FAIL setup --builds (exit $rc)"; failed=$((failed + 1)); fi
}

if [ $# -gt 0 ]; then
  builds_ok
  run_jest --outputFile=test/.tmp/jest-integration.json --selectProjects integration --runInBand "$@" || jest_status=1
  tally test/.tmp/jest-integration.json
else
  mapfile -t node_suites < <(grep -l -e "helpers/real-node" -e "^// Lane: node" test/integration/*.test.ts)
  mapfile -t plane_suites < <(grep -L -e "helpers/real-node" -e "^// Lane: node" test/integration/*.test.ts)
  mapfile -t steps < <(node -e 'import("./test/integration/suite-needs.mjs").then((m) => console.log(m.BUILD_STEPS.join("\n")))')
  built() { # STEP: waits for the build step, or for the builds to end (the suites then say what is missing)
    while [ ! -f "test/.tmp/builds/$1.done" ] && [ ! -f test/.tmp/builds/exit ]; do sleep 5; done
  }
  lane() { # NAME ENV... -- SUITE...
    local name=$1; shift
    local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    local t0 rc=0 step file log="test/.tmp/lane-$name.log"; t0=$(date +%s)
    local -A group=()
    while IFS=$'\t' read -r step file; do group[$step]+="$file "; done < <(node test/integration/suite-needs.mjs "$@")
    for step in "${steps[@]}"; do
      [ -n "${group[$step]:-}" ] || continue
      built "$step"
      echo "[lane $name] at $(( $(date +%s) - t0 ))s: the suites needing $step: ${group[$step]}" >> "$log"
      # shellcheck disable=SC2086 # the group is a list of paths without spaces
      env "${envs[@]}" REHEARSAL_TEST_CLUSTER_DIR="test/.tmp/cluster-$name" REHEARSAL_TEST_CLUSTER_FILE="$PWD/test/.tmp/cluster-$name.json" \
        node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --forceExit --json \
        --outputFile="test/.tmp/jest-integration-$name-$step.json" --selectProjects integration --runInBand ${group[$step]} \
        >> "$log" 2>&1 || rc=1
    done
    echo "[lane $name] finished in $(( $(date +%s) - t0 ))s (exit $rc)" >> "$log"
    return $rc
  }
  echo "[integration] two lanes: ${#node_suites[@]} suites on the real node, ${#plane_suites[@]} on a control plane alone (logs: test/.tmp/lane-*.log)"
  lane node -- "${node_suites[@]}" & node_lane=$!
  lane plane REHEARSAL_REAL_NODE=0 -- "${plane_suites[@]}" & plane_lane=$!
  wait "$plane_lane" || jest_status=1
  cat test/.tmp/lane-plane.log
  wait "$node_lane" || jest_status=1
  cat test/.tmp/lane-node.log
  builds_ok
  for result in test/.tmp/jest-integration-*.json; do [ -f "$result" ] && tally "$result"; done
fi
[ $jest_status -ne 0 ] && [ $failed -eq 0 ] && failed=1
# Skipped tests are not failures, but CI should see them: a skipped real-node test means the
# host could not run a node (each such test prints why).
[ $skipped -gt 0 ] && echo "$skipped skipped (see the warnings above for why)"
echo "$passed passed, $failed failed" | tee test/.tmp/summary.txt
[ $failed -eq 0 ]
