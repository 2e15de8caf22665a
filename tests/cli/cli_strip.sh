#!/usr/bin/env bash
# --strip-weights (client/strip.c) on input it cannot strip: a clear error
# naming what is wrong and exit status 1, before any connection (the server
# address below has nothing listening). A model it can strip gets past the
# strip to the connection (exit 3, the server is unreachable).
# Usage: cli_strip.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
if [ ! -f "$(dirname "$bin")/foldline-remote.so" ]; then
  skip_all "no remote-mode module in this build (gRPC not installed)"
fi
remote=("$bin" --server 127.0.0.1:1 --timeout-ms 2000 --strip-weights)

printf 'hello world, not a model\n' >"$tmp/junk.txt"
check unknown_format 1 "junk.txt: --strip-weights: not a model foldline reads: not TFLite (no TFL3 identifier), TF.js (no model.json object), ONNX (no ModelProto graph), a SavedModel (no meta graph), nor a tensorflow.GraphDef (the bytes do not decode as one)" -- \
  "${remote[@]}" analyze "$tmp/junk.txt"
check unknown_format_card 1 "--strip-weights: not a model foldline reads" -- \
  "${remote[@]}" card "$tmp/junk.txt"
check unknown_format_sweep 1 "--strip-weights: not a model foldline reads" -- \
  "${remote[@]}" analyze "$tmp/junk.txt" --sweep input.0=1,2
check given_format 1 "--strip-weights: not a valid binary onnx.ModelProto" -- \
  "${remote[@]}" analyze "$tmp/junk.txt" --format onnx
# A GraphDef with no node (an empty `library`) is no model either.
printf '\x12\x00' >"$tmp/empty.pb"
check no_node 1 "nor a tensorflow.GraphDef (it decodes as one without any node)" -- \
  "${remote[@]}" analyze "$tmp/empty.pb"
# node { name: "a" op: "NoOp" } and versions { producer: 5 } 17 times: over
# the limit of 16 occurrences of a singular message field (proto/glue/pbguard.h).
{
  printf '\x0a\x09\x0a\x01a\x12\x04NoOp'
  for _ in $(seq 17); do printf '\x22\x02\x08\x05'; done
} >"$tmp/versions.pb"
check singular_limit 1 "tensorflow.GraphDef: the singular message field versions occurs more than 16 times in one message; at most 16 are accepted" -- \
  "${remote[@]}" analyze "$tmp/versions.pb"
check strippable_reaches_server 3 "server 127.0.0.1:1" -- "${remote[@]}" analyze "$data/tiny_cnn.pb"
check strippable_onnx_reaches_server 3 "server 127.0.0.1:1" -- "${remote[@]}" analyze "$data/tiny_cnn.onnx"
finish
