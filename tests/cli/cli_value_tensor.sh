#!/usr/bin/env bash
# --value NAME=X,Y,...: a small tensor value for an input the graph computes
# shapes from. Usage: cli_value_tensor.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

# An ONNX model written byte by byte (opset 13): inputs x float [2,12] and s
# int64 [3], y = Reshape(x, s).
printf '\x08\x07\x3a\x42\x0a\x12\x0a\x01\x78\x0a\x01\x73\x12\x01\x79\x22\x07Reshape\x12\x01\x67\x5a\x13\x0a\x01\x78\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x02\x0a\x02\x08\x0c\x5a\x0f\x0a\x01\x73\x12\x0a\x0a\x08\x08\x07\x12\x04\x0a\x02\x08\x03\x62\x03\x0a\x01\x79\x42\x02\x10\x0d' >"$tmp/reshape.onnx"
m="$tmp/reshape.onnx"
# 2 * 12 = 24 elements: 3 * -1 * 4 makes the -1 a 2.
check tensor_value 0 "y (Reshape) float[3,2,4]" -- "$bin" analyze "$m" --value s=3,-1,4 --per-node --passes none
check unbound_value 0 "y (Reshape) float[?,?,?]" -- "$bin" analyze "$m" --per-node --passes none
check value_length 2 "value binding gives 2 values but the input's shape holds 3" -- "$bin" analyze "$m" --value s=3,8,
check value_not_integer 2 "value binding 1.5 is not an integer but the input is int64" -- "$bin" analyze "$m" --value s=1.5,2,8
check value_not_number 2 "--value: 'x' is not a number" -- "$bin" analyze "$m" --value s=1,x,3
check value_over_server 2 "--value s: tensor values are not sent to a server yet" -- "$bin" --server 127.0.0.1:1 analyze "$m" --value s=3,-1,4

finish
