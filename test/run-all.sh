#!/usr/bin/env bash
# `npm test`: static checks, then every Jest project (unit, contract, integration against a real
# control plane). Prints one closing line "N passed, N failed" (Jest's own summary is per project);
# every static check counts as one test.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test/.tmp
# A fresh clone needs nothing else: system packages, npm dependencies (with Node 24) and the
# Kubernetes test binaries are installed or built here when missing (cheap when present).
bash test/setup.sh || { echo "0 passed, 1 failed" | tee test/.tmp/summary.txt; exit 1; }
passed=0; failed=0; skipped=0
check() { # name command...
  local name=$1; shift
  if "$@" > "test/.tmp/$name.log" 2>&1; then passed=$((passed + 1)); echo "PASS check:$name"
  else failed=$((failed + 1)); echo "FAIL check:$name"; tail -n 40 "test/.tmp/$name.log"; fi
}
check typecheck npm run --silent typecheck
check lint npm run --silent lint
if grep -q "\"openapi:check\"" package.json; then check openapi-drift npm run --silent openapi:check; fi

# Unit and contract suites run in parallel; integration suites one at a time, because they share
# one control plane and the server's own namespace (its signing key, license and leader Lease).
jest_status=0
run_jest() { # result-file jest-args...
  local out=$1; shift
  rm -f "$out"
  node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --forceExit --json --outputFile="$out" "$@" || jest_status=1
  if [ -f "$out" ]; then
    read -r jp jf js < <(node -e 'const r=require(process.argv[1]);console.log(r.numPassedTests, r.numFailedTests + (r.numRuntimeErrorTestSuites||0), r.numPendingTests + (r.numTodoTests||0))' "$PWD/$out")
    passed=$((passed + jp)); failed=$((failed + jf)); skipped=$((skipped + js))
  else
    failed=$((failed + 1))
  fi
}
run_jest test/.tmp/jest-fast.json --selectProjects unit contract "$@"
run_jest test/.tmp/jest-integration.json --selectProjects integration --runInBand "$@"
[ $jest_status -ne 0 ] && [ $failed -eq 0 ] && failed=1
# Skipped tests are not failures, but CI should see them: a skipped real-node test means the
# host could not run a node (each such test prints why).
[ $skipped -gt 0 ] && echo "$skipped skipped (see the warnings above for why)"
echo "$passed passed, $failed failed" | tee test/.tmp/summary.txt
[ $failed -eq 0 ]
