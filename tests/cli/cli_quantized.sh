#!/usr/bin/env bash
# int8 torchvision networks (mobilenet_v2, resnet18, googlenet) quantized by
# torch and exported as QDQ graphs, with ONNX Runtime's 'basic' and
# 'extended' (QOperator: QLinearConv, QGemm, QLinearAdd, QLinearConcat...)
# graphs of them: tests/data/quantized/, written by
# tests/tools/export_quantized.py. Every form complete; the QDQ forms' MACs
# and the QOperator form's integer ops per QLinearConv/QGemm equal the counts
# derived from torch's forward hooks (NAME.layers.json); tensors the forms
# share have the same shapes. The checks and their derivation are in
# quantized_check.py.
# Usage: cli_quantized.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
python3 "$(dirname "$0")/quantized_check.py" "$bin" "$data/quantized" "$tmp"
