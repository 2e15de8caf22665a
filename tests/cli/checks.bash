# Shared by the CLI test scripts (sourced, not run by CTest): a scratch
# directory, pass/fail counters and `check`, which runs a command and compares
# its exit status and output with what the test expects.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0

check() { # name expected_exit expected_output_substring -- command...
  local name="$1" want="$2" needle="$3"
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, want $want; stderr: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$tmp/err" "$tmp/out"; then
    echo "FAIL $name: output lacks '$needle'; stdout: $(head -c 300 "$tmp/out") stderr: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return
  fi
  pass=$((pass + 1))
}

# Checks that cannot run (a missing optional tool): say why. The script then
# ends with `finish`, which exits 77 (CTest: "Skipped", the reasons in its
# output) when everything that ran passed but something was skipped; with
# FL_REQUIRE_ALL=1 (.ci/run) a skip is a failure.
skipped=""
skip_part() { # reason
  echo "SKIP $1"
  skipped="$skipped; $1"
}

# Whole-script skip: the reason, then exit 77 (1 with FL_REQUIRE_ALL=1).
skip_all() { # reason
  echo "SKIP $1"
  if [ "${FL_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FL_REQUIRE_ALL=1: the skip is a failure"
    exit 1
  fi
  exit 77
}

# Why ONNX Runtime cannot be used from directory $1 (nothing when it can):
# node must be on PATH and onnxruntime-node installed there (npm ci
# --ignore-scripts with tests/bench/ort/package.json, or set FL_ORT_DIR).
ort_missing() { # ort_dir
  if ! command -v node >/dev/null; then
    echo "node is not installed"
  elif [ ! -d "$1/node_modules/onnxruntime-node" ]; then
    echo "no onnxruntime-node in $1 (npm ci --ignore-scripts there with tests/bench/ort/package.json, or set FL_ORT_DIR)"
  fi
}

finish() {
  echo "$pass passed, $fails failed"
  [ "$fails" -eq 0 ] || exit 1
  if [ -n "$skipped" ]; then
    echo "skipped:${skipped#;}"
    if [ "${FL_REQUIRE_ALL:-0}" = 1 ]; then
      echo "FL_REQUIRE_ALL=1: the skips are failures"
      exit 1
    fi
    exit 77
  fi
  exit 0
}
