#!/usr/bin/env bash
# Before `npm test`: the Debian peers the tests talk to, then the type check and the build side by
# side. Each of the two compilers keeps one core busy, so together they take the time of the longer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-test-prerequisites.sh
npm run --silent typecheck &
typecheck=$!
npm run --silent build
wait "$typecheck"
