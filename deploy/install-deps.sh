#!/usr/bin/env bash
# Installs the Debian packages foldline needs to build, test and serve, when
# they are missing. Idempotent: a machine that has them all is left untouched.
# Everything comes from Debian's archive through apt; nothing else is fetched.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  protobuf-c-compiler libprotobuf-c-dev
  libcmocka-dev
  libuv1-dev libgrpc-dev
  python3-grpcio python3-grpc-tools python3-protobuf python3-yaml openssl
  libyaml-dev
  libonnx-testdata # ONNX's backend node cases for test_onnx_node (skipped without it)
  libjansson-dev # TF.js model.json
  python3-flatbuffers # tests/tools/tflite_macs.py: an independent TFLite reader for cli_tflite
  python3-onnx # tests/structure/check_onnx_schemas.py: ONNX's operator schemas for onnx_schemas
  libopenblas0 # `foldline calibrate` dlopens libopenblas.so.0; the build needs no BLAS
  clang # libFuzzer targets (tests/fuzz) and sanitizer builds in .ci/run
  clang-format # the style check in .ci/run
  python3-jsonschema # tests/cli/cli_schema: the JSON documents against `foldline schema`
  chromium # tests/cli/cli_report: the HTML report rendered headless (skipped without it)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
