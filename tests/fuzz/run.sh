#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/targets.txt, each for a bounded
# time, and prints one line of figures per target. Any finding (crash, leak,
# failed invariant, timeout, out-of-memory) fails the run; libFuzzer saves
# the input as WORK/TARGET/crash-* (or leak-, timeout-, oom-) and its log is
# printed. Replay a finding with the ordinary build's
# build/tests/fuzz/TARGET_replay FILE, and keep it in tests/fuzz/regress/TARGET.
#
# usage: tests/fuzz/run.sh BUILD_DIR [--seconds N] [--work DIR] [--jobs N] [TARGET...]
#   BUILD_DIR  a build configured with -DFL_FUZZ=ON -DCMAKE_C_COMPILER=clang
#              (the targets are built here if they are not)
#   --seconds  time per target (default 60)
#   --work     where each target keeps its growing corpus and findings
#              (default: a temporary directory, removed afterwards); a
#              directory kept between runs makes long runs accumulate
#   --jobs     libFuzzer worker processes per target (default 1)
#   TARGET     run only these (default: every target in targets.txt)
#
# Seeds: the files the target's SEEDS globs name under tests/data (data/...)
# and the shared corpus beside the checkout (corpus/..., ../shared/corpus;
# without it the targets start from tests/data alone and say so), up to
# FUZZ_MAX_SEED_BYTES (default 65536) each: small inputs keep executions fast.
# "savedmodel" seeds are the GraphDef seeds wrapped in a SavedModel. A
# dictionary of op, attribute and field names (from src/ops and the protos)
# helps the mutator build plausible graphs, and one of integers near the
# int32 and int64 limits (as varints, tagged varints and little-endian words)
# puts extreme attrs and dims in front of the shape and cost rules.
# fuzz_onnx_struct places such values itself: its own mutator decodes each
# ONNX model, sets one field (an INT or INTS attr, a graph input's or
# value_info's dim, an initializer's dims, data_type or int64/int32 values,
# a node's op_type or inputs, an opset version) and encodes it again
# (tests/fuzz/fuzz_onnx_struct.c); it starts from the ONNX models of
# tests/data (the ortsweep cases among them) and the corpus.
# FUZZ_NO_BUILD=1: use the targets as built (a long run fuzzing a fixed
# snapshot while the sources change).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
corpus="$src/../shared/corpus"

build=""
seconds=60
work=""
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ -z "$build" ]; then build="$1"; else targets+=("$1"); fi; shift ;;
  esac
done
[ -n "$build" ] || { echo "usage: tests/fuzz/run.sh BUILD_DIR [--seconds N] [--work DIR] [TARGET...]" >&2; exit 2; }
build=$(cd "$build" && pwd)
max_seed=${FUZZ_MAX_SEED_BYTES:-65536}

cleanup=""
if [ -z "$work" ]; then
  work=$(mktemp -d)
  cleanup="$work"
fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
mkdir -p "$work"
work=$(cd "$work" && pwd) # libFuzzer runs in the target's directory below

# All targets, in file order, with their seed globs.
declare -A seeds_of
all=()
while read -r name _src _importer globs; do
  all+=("$name")
  seeds_of[$name]="$globs"
done < <(grep -E '^fuzz_' "$here/targets.txt")
if [ ${#targets[@]} -eq 0 ]; then
  targets=("${all[@]}")
fi
for t in "${targets[@]}"; do
  [ -n "${seeds_of[$t]+x}" ] || { echo "run.sh: no target '$t' in targets.txt" >&2; exit 2; }
done

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
fi

if [ ! -d "$corpus" ]; then
  echo "run.sh: no shared corpus at $corpus: seeds from tests/data only"
fi

# The dictionary: quoted names in the op registry and field names of the
# schemas, each once; then integers at the limits the shape and cost rules
# must survive (2^31 - 1 to 2^63 - 1, -1, INT64_MIN), which mutation alone
# rarely produces: as bare protobuf varints (to overwrite an attr's or a
# dim's value), behind the tags that carry an int attr or a dim (ONNX
# AttributeProto.i and TF AttrValue.i: field 3; TensorShapeProto dim_value
# and TensorProto dims: field 1; AttributeProto.ints unpacked: field 8),
# and little-endian as TFLite's flatbuffers hold them.
dict="$work/names.dict"
{
  grep -rhoE '"[A-Za-z_][A-Za-z0-9_.]{1,40}"' "$src/src/ops" "$src/src/import" 2>/dev/null || true
  grep -rhoE '^ *(repeated |optional )?[A-Za-z0-9_.]+ [a-z_0-9]+ = ' "$src/proto" 2>/dev/null |
    awk '{print "\"" $(NF-2) "\""}' || true
} | sort -u | grep -v '\\' >"$dict"
python3 - >>"$dict" <<'PY'
def varint(v):
    v &= (1 << 64) - 1
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out

def word(b):
    return '"' + "".join("\\x%02x" % c for c in b) + '"'

limits = [2**31 - 1, 2**31, 2**32, 2**62, 2**62 + 1, 2**63 - 1, -1, -(2**63)]
for v in limits:
    print(word(varint(v)))
    for tag in (0x08, 0x18, 0x40):
        print(word(bytes([tag]) + varint(v)))
    print(word((v & (2**64 - 1)).to_bytes(8, "little")))
    if -(2**31) <= v < 2**31:
        print(word((v & (2**32 - 1)).to_bytes(4, "little")))
PY

# "savedmodel": a GraphDef seed wrapped as SavedModel{meta_graphs:
# MetaGraphDef{meta_info_def{tags: "serve"}, graph_def}}.
wrap_savedmodel() { # in out
  PYTHONPATH="$here/../tools" python3 - "$1" "$2" <<'PY'
import sys
from pbwrite import ld
g = open(sys.argv[1], "rb").read()
meta = ld(1, ld(4, b"serve")) + ld(2, g)
open(sys.argv[2], "wb").write(b"\x08\x01" + ld(2, meta))
PY
}

make_seeds() { # target dir
  local t="$1" dir="$2" g f
  mkdir -p "$dir"
  for g in ${seeds_of[$t]}; do
    case "$g" in
      data/*) set -- "$src/tests/"$g ;;
      corpus/*) set -- "$corpus/"${g#corpus/} ;;
      savedmodel)
        for f in "$src"/tests/data/*.pb "$corpus"/tf/*.pb; do
          [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_seed" ] &&
            wrap_savedmodel "$f" "$dir/sm-$(basename "$f")"
        done
        continue ;;
      *) echo "run.sh: seed glob '$g' must start with data/ or corpus/" >&2; exit 2 ;;
    esac
    for f in "$@"; do
      if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_seed" ]; then
        # folder-file: TF.js models are all called model.json
        cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
      fi
    done
  done
  if [ -d "$here/regress/$t" ]; then cp "$here/regress/$t"/* "$dir/" 2>/dev/null || true; fi
}

status=0
for t in "${targets[@]}"; do
  tw="$work/$t"
  mkdir -p "$tw/corpus"
  rm -rf "$tw/seeds"
  make_seeds "$t" "$tw/seeds"
  log="$tw/last.log"
  set +e
  # -timeout: an input taking longer is a hang (a finding); -rss_limit_mb
  # bounds one process; leak detection stays on (the default).
  # With --jobs, libFuzzer writes each worker's log to fuzz-N.log in the
  # current directory: run in the target's directory.
  jobargs=()
  if [ "$jobs" -gt 1 ]; then jobargs=(-jobs="$jobs" -workers="$jobs"); fi
  (cd "$tw" && "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=25 \
    -rss_limit_mb=2560 -max_len="$max_seed" -dict="$dict" -print_final_stats=1 \
    -artifact_prefix="$tw/" ${FUZZ_EXTRA_ARGS:-} "${jobargs[@]}" "$tw/corpus" "$tw/seeds") \
    >"$log" 2>&1
  rc=$?
  set -e
  if [ "$jobs" -gt 1 ]; then cat "$tw"/fuzz-*.log >>"$log" 2>/dev/null && rm -f "$tw"/fuzz-*.log; fi
  execs=$(awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {s += $2} END {print s + 0}' "$log")
  ninputs=$(find "$tw/corpus" -type f | wc -l)
  findings=$(find "$tw" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-18s %12d executions in %ss (%d/s), corpus %d inputs, %d findings\n' \
    "$t" "$execs" "$seconds" "$rate" "$ninputs" "$findings"
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    echo "---- $t: libFuzzer exit $rc; findings in $tw (log: last 40 lines)"
    tail -n 40 "$log"
    status=1
    cleanup="" # keep the findings
  fi
done
exit "$status"
