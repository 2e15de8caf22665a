#!/usr/bin/env bash
# Runs tests/integration/grpc_suite.py: generates the Python stubs from proto/
# into a temporary directory, then calls the suite with a Python 3 that has
# Debian's grpcio and grpc-tools.
# Usage: run_grpc_suite.sh FOLDLINED FOLDLINE SOURCE_DIR
set -u
foldlined="$1"
foldline="$2"
src="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Debian's modules live in the system interpreter; a python3 earlier on PATH
# (pyenv, venv) may lack them.
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null 2>&1 &&
    "$cand" -c "import grpc, grpc_tools.protoc, google.protobuf" >/dev/null 2>&1; then
    py="$cand"
    break
  fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with grpcio and grpc-tools (apt-get install python3-grpcio python3-grpc-tools)"
  # 77: CTest shows the test as skipped; FL_REQUIRE_ALL=1 (.ci/run): a failure.
  [ "${FL_REQUIRE_ALL:-0}" = 1 ] && exit 1
  exit 77
fi

proto="$src/proto"
mkdir -p "$tmp/stubs/health"
(cd "$proto" && "$py" -m grpc_tools.protoc -I. --python_out="$tmp/stubs" \
  --grpc_python_out="$tmp/stubs" foldline/v1/cost_model.proto tensorflow/*.proto) || exit 1
# The health stubs go to their own top-level module: a generated grpc/ package
# would shadow grpcio's.
(cd "$proto/grpc/health/v1" && "$py" -m grpc_tools.protoc -I. --python_out="$tmp/stubs/health" \
  --grpc_python_out="$tmp/stubs/health" health.proto) || exit 1

TMPDIR="$tmp" "$py" "$src/tests/integration/grpc_suite.py" "$foldlined" "$foldline" "$src/tests/data" \
  "$tmp/stubs"
