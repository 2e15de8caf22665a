#!/usr/bin/env bash
# Progress on stderr: shown when stderr is a terminal (a pseudo-terminal
# from util-linux `script`; skipped visibly without it) and the work has run
# for FOLDLINE_PROGRESS_AFTER_MS (default 1000), cleared at the end; never
# when stderr is a file or a pipe.
# Usage: cli_progress.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.bash"
pb="$data/tiny_cnn.pb"
onnx="$data/tiny_cnn.onnx"

# Redirected or piped: nothing on stderr, whatever the delay.
FOLDLINE_PROGRESS_AFTER_MS=0 "$bin" analyze "$pb" >/dev/null 2>"$tmp/err"
check file_quiet 0 "" -- test ! -s "$tmp/err"
FOLDLINE_PROGRESS_AFTER_MS=0 "$bin" diff "$pb" "$onnx" 2>&1 >/dev/null | cat >"$tmp/err"
check pipe_quiet 0 "" -- test ! -s "$tmp/err"
# calibrate, redirected: its result line and nothing else, except the warning
# a busy host earns (a cache level measured slower than the next one).
"$bin" calibrate --short --threads 1 -o "$tmp/cal.yaml" 2>"$tmp/cerr" >/dev/null
check calibrate_quiet 0 "" -- sh -c "! grep -v -e '^calibrate: wrote ' -e '^foldline: calibrate: warning: .* the host was busy' '$tmp/cerr'"
check calibrate_no_steps 1 "" -- grep -q '^calibrate: \[' "$tmp/cerr"
check calibrate_result 0 "calibrate: wrote $tmp/cal.yaml in " -- cat "$tmp/cerr"

command -v script >/dev/null || { skip_part "terminal checks: util-linux script is absent"; finish; }
tty_run() { # COMMAND: run under a pseudo-terminal, its terminal output in $tmp/tty
  script -qec "$1" /dev/null >"$tmp/tty" 2>&1
}
tty_run "FOLDLINE_PROGRESS_AFTER_MS=0 '$bin' analyze '$pb' >/dev/null"
check tty_shows 0 "foldline: analysing tiny_cnn.pb: " -- cat "$tmp/tty"
check tty_cleared 0 "" -- sh -c "tail -c 4 '$tmp/tty' | od -An -c | grep -q '033   \[   K'"
tty_run "FOLDLINE_PROGRESS_AFTER_MS=0 '$bin' diff '$pb' '$onnx' >/dev/null"
check tty_diff_steps 0 "(analysis 2)" -- cat "$tmp/tty"
# calibrate on a terminal: a line per step with the time spent.
tty_run "'$bin' calibrate --short --threads 1 -o '$tmp/cal2.yaml' >/dev/null"
check tty_calibrate_steps 0 "s] dispatch overhead: spinning thread-pool hand-off..." -- cat "$tmp/tty"
check tty_calibrate_matrix 0 "s] matrix peak: OpenBLAS sgemm" -- cat "$tmp/tty"
# A small model is done well before the default second: nothing shown.
tty_run "'$bin' analyze '$pb' >/dev/null"
check tty_fast_quiet 0 "" -- test ! -s "$tmp/tty"
finish
