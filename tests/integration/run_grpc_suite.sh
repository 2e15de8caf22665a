#!/usr/bin/env bash
# Runs tests/integration/grpc_suite.py: generates the Python stubs from proto/
# into a temporary directory, then calls the suite with a Python 3 that has
# Debian's grpcio and grpc-tools.
# Usage: run_grpc_suite.sh FOLDLINED FOLDLINE SOURCE_DIR [SUITE]
# SUITE: the script under tests/integration (default grpc_suite.py).
set -u
foldlined="$1"
foldline="$2"
src="$3"
suite="${4:-grpc_suite.py}"
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

# The client stubs, generated exactly as README.md ("Generating a client")
# says: both service protocols in one command, into one directory. health
# lives at proto/grpc_health/v1, so the stubs are the package grpc_health
# and `import grpc` is still grpcio (the suite checks it).
mkdir -p "$tmp/stubs"
(cd "$src" && "$py" -m grpc_tools.protoc -I proto --python_out="$tmp/stubs" \
  --grpc_python_out="$tmp/stubs" proto/foldline/v1/cost_model.proto \
  proto/grpc_health/v1/health.proto) || exit 1
# The TensorFlow messages the suite builds graphs with (test-only).
(cd "$src" && "$py" -m grpc_tools.protoc -I proto --python_out="$tmp/stubs" \
  proto/tensorflow/*.proto) || exit 1
# ONNX's as the top-level module onnx_pb2: an installed onnx package would
# shadow a stubs' onnx/ directory.
(cd "$src" && "$py" -m grpc_tools.protoc -I proto/onnx --python_out="$tmp/stubs" \
  proto/onnx/onnx.proto) || exit 1

TMPDIR="$tmp" "$py" "$src/tests/integration/$suite" "$foldlined" "$foldline" "$src/tests/data" \
  "$tmp/stubs"
