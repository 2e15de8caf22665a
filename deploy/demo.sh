#!/usr/bin/env bash
# Sets up (installs missing Debian packages), builds, and runs
# `foldline analyze` in-process on a model bundled in tests/data: costs, the
# rewrite passes (before/after and what each changed) and a roofline estimate.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
# The build's log goes to a file, so the output is the analysis alone; on a
# failure its end is shown.
echo "demo: building foldline (log: build/demo-build.log) ..." >&2
mkdir -p build
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
  cmake --build build -j"$(nproc)" --target foldline_cli; } >build/demo-build.log 2>&1; then
  tail -n 40 build/demo-build.log >&2
  echo "demo: the build failed (whole log: build/demo-build.log)" >&2
  exit 1
fi
./build/foldline analyze tests/data/tiny_cnn.pb --input input=1,32,32,3 --passes default \
  --profile xeon-8380 --top 5 "$@"
