#!/usr/bin/env bash
# Every TFLite model of the shared corpus (exit 77, shown as skipped, when the
# corpus or Debian's python3-flatbuffers is absent): foldline's MACs equal the
# count tests/tools/tflite_macs.py derives from the shapes stored in the file
# with the flatbuffers library (an independent reader); no unknown op; no
# inferred shape that disagrees with the stored one; the TFLite format is
# detected without the extension; the twins in ../tf (MANIFEST) have the same
# MACs at batch 1; passes are not run (the ledger says so).
# Usage: cli_tflite.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
py=/usr/bin/python3
if [ ! -d "$corpus/tflite" ]; then
  echo "SKIP cli_tflite: $corpus/tflite is absent"
  exit 77
fi
if ! "$py" -c 'import flatbuffers' 2>/dev/null; then
  echo "SKIP cli_tflite: python3-flatbuffers is not installed"
  exit 77
fi
. "$here/checks.bash"

json_get() { # file expr
  "$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"
}

n=0
for m in "$corpus"/tflite/*.tflite; do
  name=$(basename "$m")
  want=$("$py" "$here/../tools/tflite_macs.py" "$m" | awk '/^MACS/ {print $2}')
  # Copied without its extension: detection by the TFL3 identifier.
  cp "$m" "$tmp/model"
  "$bin" analyze "$tmp/model" --json >"$tmp/r.json" 2>"$tmp/err"
  got=$(json_get "$tmp/r.json" "r['totals']['macs']['value']")
  unknown=$(json_get "$tmp/r.json" "len(r['unknown_ops'])")
  fmt=$(json_get "$tmp/r.json" "r['graph']['format']")
  mismatch=$(json_get "$tmp/r.json" "sum('inferred shape' in w for w in r['warnings'])")
  ledger=$(json_get "$tmp/r.json" "sum('do not apply to a TFLite model' in w for w in r['warnings'])")
  if [ "$got" = "$want" ] && [ "$unknown" = 0 ] && [ "$fmt" = tflite ] && [ "$mismatch" = 0 ] &&
    [ "$ledger" = 1 ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: MACs $got (file's shapes: $want), $unknown unknown ops, format $fmt, $mismatch shape mismatches, ledger $ledger"
    fails=$((fails + 1))
  fi
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "FAIL: only $n TFLite models"; fails=$((fails + 1)); }

# Cross-format twins (MANIFEST's twin column), batch bound to 1.
twin() { # tflite pb
  local a b
  a=$("$bin" analyze "$corpus/tflite/$1" --json --passes none | "$py" -c "import json,sys; q=json.load(sys.stdin)['totals']['macs']; print(q.get('value', q.get('formula')))")
  b=$("$bin" analyze "$corpus/tf/$2" --json --passes none | "$py" -c "
import json,sys,re
q=json.load(sys.stdin)['totals']['macs']; m=str(q.get('value', q.get('formula'))); print(re.sub(r'\*?[A-Za-z_][\w.]*', '', m) or m)")
  check "twin_$1" 0 "" -- test "$a" = "$b"
}
twin face_detection_short_range.tflite human-facemesh-detection-short.pb
twin hand_landmark_full.tflite human-handlandmark-full.pb
twin hand_landmark_lite.tflite human-handlandmark-lite.pb
twin pose_landmark_lite.tflite human-blazepose-lite.pb
twin selfie_segmentation.tflite human-selfie.pb

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
