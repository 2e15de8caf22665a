#!/usr/bin/env bash
# TF.js graph models from the command line (shared corpus; exit 77, shown as
# skipped, when it is absent): a model.json, its folder, and a copy without
# its shard give the same MACs as the GraphDef twin; --format tfjs; a model
# whose shard is shorter than its manifest fails naming the weight.
# Usage: cli_formats.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
. "$here/checks.bash"
if [ ! -d "$corpus/tfjs" ]; then
  skip_all "cli_formats: $corpus/tfjs is absent"
fi

m="$corpus/tfjs/antispoof"
# 100,033,408 MACs per image: the twin GraphDef's figure (test_tfjs_corpus
# checks every node; here the CLI's file handling).
check tfjs_file 0 "MACs          100033408*conv2d_input.0" -- "$bin" analyze "$m/model.json" --passes none
check tfjs_dir 0 "antispoof (tfjs" -- "$bin" analyze "$m" --passes none
check tfjs_twin 0 "MACs          100033408*conv2d_input.0" -- "$bin" analyze "$corpus/tf/human-antispoof.pb" --passes none
check tfjs_format 0 "(tfjs" -- "$bin" analyze --format tfjs "$m/model.json" --passes none
mkdir -p "$tmp/noshard" "$tmp/short"
cp "$m/model.json" "$tmp/noshard/"
# Without the shard the flatten's shape vector is unknown: the three VALID
# 3x3 convolutions' 99,631,872 MACs (126*126*64*27 + 61*61*32*576 +
# 28*28*16*288) are still counted, the dense layers after the flatten
# (3136*128 + 128*1 = 401,536 with the shard) are not: a partial answer,
# whose totals are lower bounds ("at least").
check tfjs_no_shard 0 "MACs          at least 99631872*conv2d_input.0" -- "$bin" analyze "$tmp/noshard/model.json" --passes none
cp "$m/model.json" "$tmp/short/"
head -c 1000 "$m/antispoof.bin" >"$tmp/short/antispoof.bin"
check tfjs_short_shard 1 "needs bytes" -- "$bin" analyze "$tmp/short/model.json"
printf '{"modelTopology": {"node": [' >"$tmp/bad.json"
check tfjs_bad_json 1 "not valid JSON" -- "$bin" analyze "$tmp/bad.json"

finish
