#!/usr/bin/env bash
# Progress on stderr: shown when stderr is a terminal (a pseudo-terminal
# from util-linux `script`; skipped visibly without it) and the work has run
# for FOLDLINE_PROGRESS_AFTER_MS (default 1000), with the engine's phase and
# nodes done, cleared at the end; never when stderr is a file or a pipe.
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
# The engine's phases (fl_options.progress), each shown as it starts once
# the delay has passed: import, shapes and cost with the nodes done of the
# graph's nodes, then each pass of both iterations with the nodes it starts
# on. The node count is read from the GraphDef's bytes here (top-level
# field 1, NodeDef, one per node), not from foldline.
nodes=$(python3 - "$pb" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
i = n = 0
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7F) << s; s += 7
        if c < 0x80:
            return v, i
while i < len(b):
    key, i = varint(i)
    if key & 7 == 2:
        ln, i = varint(i); i += ln
        n += (key >> 3) == 1
    elif key & 7 == 0:
        _, i = varint(i)
    else:
        sys.exit("unexpected wire type")
print(n)
PY
)
tty_run "FOLDLINE_PROGRESS_AFTER_MS=0 '$bin' analyze '$pb' --passes default >/dev/null"
tr '\r' '\n' <"$tmp/tty" | sed -n 's/.*tiny_cnn.pb: \([^,]*\), [0-9.]* s.*/\1/p' | uniq >"$tmp/phases"
{
  echo "import 0 nodes"
  echo "shapes 0 of $nodes nodes"
  echo "cost 0 of $nodes nodes"
} >"$tmp/want_head"
check tty_phases_start 0 "" -- sh -c "head -n 3 '$tmp/phases' | diff '$tmp/want_head' -"
check tty_pass_order 0 "" -- sh -c "grep -o '^pass [a-z]* (iteration [12])' '$tmp/phases' | tr '\n' ' ' |
  grep -qx 'pass pruning (iteration 1) pass cse (iteration 1) pass constfold (iteration 1) pass shape (iteration 1) pass arithmetic (iteration 1) pass remap (iteration 1) pass dependency (iteration 1) pass pruning (iteration 2) pass cse (iteration 2) pass constfold (iteration 2) pass shape (iteration 2) pass arithmetic (iteration 2) pass remap (iteration 2) pass dependency (iteration 2) '"
check tty_pass_nodes 0 "pass pruning (iteration 1) on $nodes nodes" -- cat "$tmp/phases"
# Thousands are separated: a 2,000-node chain.
PYTHONPATH="$here/../tools" python3 - "$tmp/chain.pb" <<'PY'
import sys
from pbwrite import attr, ld, varint
f32 = varint(6 << 3) + varint(1)
shape = ld(7, ld(2, varint(1 << 3) + varint(1)) + ld(2, varint(1 << 3) + varint(8)))
nodes = [ld(1, ld(1, b"x") + ld(2, b"Placeholder") + attr("dtype", f32) + attr("shape", shape))]
prev = b"x"
for i in range(2000):
    name = b"s%d" % i
    nodes.append(ld(1, ld(1, name) + ld(2, b"Sigmoid") + ld(3, prev) + attr("T", f32)))
    prev = name
open(sys.argv[1], "wb").write(b"".join(nodes))
PY
tty_run "FOLDLINE_PROGRESS_AFTER_MS=0 '$bin' analyze '$tmp/chain.pb' >/dev/null"
check tty_thousands 0 "chain.pb: shapes 0 of 2,001 nodes, " -- cat "$tmp/tty"
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
