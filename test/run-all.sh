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
passed=0; failed=0
check() { # name command...
  local name=$1; shift
  if "$@" > "test/.tmp/$name.log" 2>&1; then passed=$((passed + 1)); echo "PASS check:$name"
  else failed=$((failed + 1)); echo "FAIL check:$name"; tail -n 40 "test/.tmp/$name.log"; fi
}
check typecheck npm run --silent typecheck
check lint npm run --silent lint
if grep -q "\"openapi:check\"" package.json; then check openapi-drift npm run --silent openapi:check; fi

rm -f test/.tmp/jest.json
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --forceExit --json --outputFile=test/.tmp/jest.json "$@"
jest_status=$?
if [ -f test/.tmp/jest.json ]; then
  read -r jp jf < <(node -e 'const r=require("./test/.tmp/jest.json");console.log(r.numPassedTests, r.numFailedTests + (r.numRuntimeErrorTestSuites||0))')
  passed=$((passed + jp)); failed=$((failed + jf))
elif [ $jest_status -ne 0 ]; then
  failed=$((failed + 1))
fi
[ $jest_status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed" | tee test/.tmp/summary.txt
[ $failed -eq 0 ]
