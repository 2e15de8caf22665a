#!/usr/bin/env bash
# Sets up (installs missing Debian packages), builds and runs the whole test
# suite with CTest. BUILD_DIR and CMAKE_EXTRA select another build.
# Tests that cannot run here (no shared corpus beside the checkout, an
# optional tool missing) are reported by CTest as "Skipped" with the reason
# in their output; FL_REQUIRE_ALL=1 (set by .ci/run) makes any skip a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
build="${BUILD_DIR:-build}"
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_EXTRA:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" ${CTEST_EXTRA:-} 2>&1 | tee "$log" || rc=$?
if [ "${FL_REQUIRE_ALL:-0}" = 1 ] && grep -q '(Skipped)\|\*\*\*Skipped' "$log"; then
  echo "test.sh: FL_REQUIRE_ALL=1 and some tests were skipped:" >&2
  grep '(Skipped)' "$log" >&2 || true
  rc=1
fi
exit "$rc"
