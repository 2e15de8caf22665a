#!/usr/bin/env bash
# `foldline report`: the HTML page is self-contained (no URL it would fetch)
# and holds one roofline mark per costed op (an op with FLOPs, bytes and a
# time) before and after the passes, counted independently from analyze
# --json --per-node; the --sweep chart has one point per value; a graph with
# no costed op says so. Rendered by headless Chromium (Debian's chromium;
# skipped visibly without it): the DOM after scripts has the charts and marks,
# the console has no error (checked to catch a planted one), the screenshot
# is not blank and the page turns dark under a dark colour scheme.
# Usage: cli_report.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.bash"
py=$(command -v python3) || skip_all "cli_report: python3 is absent"

pb="$data/tiny_cnn.pb"
onnx="$data/tiny_cnn.onnx"

# expected_marks MODEL ARGS...: "PROFILE BEFORE AFTER" per profile, from
# analyze --json --per-node.
expected_marks() {
  "$bin" analyze "$@" --per-node --json | "$py" -c '
import json, sys
d = json.load(sys.stdin)
def n(g):
    return 0 if g is None else sum(1 for x in g["nodes"] if x["flops"] > 0 and x["bytes"] > 0 and x["time_s"] > 0)
for r in d["roofline"]:
    print(r["profile"], n(r["before"]), n(r["after"]))'
}

# marks HTML: "PROFILE BEFORE AFTER" per roofline figure of the page.
marks() {
  "$py" - "$1" <<'PYEOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.figs = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs); cls = (a.get("class") or "").split()
        if tag == "figure" and "roofline" in cls:
            self.figs.append([a.get("data-profile"), 0, 0])
        if tag == "circle" and "mark" in cls and self.figs:
            self.figs[-1][1 if "before" in cls else 2] += 1
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
for f in p.figs:
    print(*f)
PYEOF
}

b=(--bind input.0=1)
check report_writes 0 "" -- "$bin" report "$pb" "${b[@]}" --profile epyc-9654 --profile a100-80gb -o "$tmp/tiny.html"
expected_marks "$pb" "${b[@]}" --profile epyc-9654 --profile a100-80gb >"$tmp/want"
marks "$tmp/tiny.html" >"$tmp/got"
check marks_per_costed_op 0 "" -- cmp "$tmp/want" "$tmp/got"
check marks_nonzero 0 "" -- grep -qE "^epyc-9654 [1-9][0-9]* [1-9]" "$tmp/got"
# Self-contained: no URL the page would load (the SVG namespace is not a
# fetch; there is none in inline SVG either).
check no_network 1 "" -- grep -Eq "(src|href)=\"?(https?:)?//|@import|url\(" "$tmp/tiny.html"
check has_title 0 "" -- grep -q "<title>conv1/Conv2D (Conv2D, before)" "$tmp/tiny.html"
check dark_css 0 "" -- grep -q "prefers-color-scheme:dark" "$tmp/tiny.html"
check print_css 0 "" -- grep -q "@media print" "$tmp/tiny.html"
check ledger 0 "contraction_bias" -- cat "$tmp/tiny.html"
check top_flops 0 "Top ops by FLOPs" -- cat "$tmp/tiny.html"
check onnx_report 0 "" -- "$bin" report "$onnx" --bind N=2 --profile all -o "$tmp/onnx.html"
expected_marks "$onnx" --bind N=2 --profile all >"$tmp/want"
marks "$tmp/onnx.html" >"$tmp/got"
check onnx_marks 0 "" -- cmp "$tmp/want" "$tmp/got"
check no_profile 0 "" -- "$bin" report "$pb" -o "$tmp/noprof.html"
check no_profile_says 0 "No profile given" -- cat "$tmp/noprof.html"

# --sweep: one point per value in each chart, FLOPs exact in the table.
check sweep 0 "" -- "$bin" report "$pb" --profile epyc-9654 --sweep input.0=1,4,16 -o "$tmp/sweep.html"
check sweep_points 0 "9" -- sh -c "grep -o '<circle class=\"pt\"' '$tmp/sweep.html' | wc -l"
f16=$("$bin" analyze "$pb" --bind input.0=16 --json | "$py" -c 'import json,sys; print(json.load(sys.stdin)["totals"]["flops"]["value"])')
check sweep_value 0 "($f16)" -- cat "$tmp/sweep.html"

# A graph with no costed op (one NoOp node, written byte by byte) says so.
printf '\x0a\x09\x0a\x01x\x12\x04NoOp' >"$tmp/noop.pb"
check empty_report 0 "" -- "$bin" report "$tmp/noop.pb" --profile epyc-9654 -o "$tmp/empty.html"
check empty_says 0 "nothing to draw" -- cat "$tmp/empty.html"
check empty_no_svg 1 "" -- grep -q "<svg class=\"chart\"" "$tmp/empty.html"

# Usage errors.
# A decoder: the LLM view's section with each phase's time per token per
# profile as analyze --json gives it (formatted as the page formats times);
# the roofline section says why the whole graph has no chart.
dec="$data/tiny_decoder.onnx"
check llm_report 0 "" -- "$bin" report "$dec" --prompt 8 --context 32 --profile t4 --profile epyc-9654 -o "$tmp/dec.html"
"$bin" analyze "$dec" --json --prompt 8 --context 32 --profile t4 --profile epyc-9654 >"$tmp/dec.json" 2>/dev/null
python3 - "$tmp/dec.json" >"$tmp/dec_want" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))["llm"]
def t(s):
    return "%.4g &#181;s" % (s * 1e6) if 1e-6 <= s < 1e-3 else "%.4g ms" % (s * 1e3) if s >= 1e-3 else "%.4g ns" % (s * 1e9)
# Each profile's row, then its row after the passes (the view's "after").
for e, when in [(e, "") for e in v["roofline"]] + [(e, ", after the passes") for e in v["after"]["roofline"]]:
    print('<tr><th scope="row">%s%s</th><td class="n">%s</td><td>%s</td><td class="n">%s</td><td>%s</td></tr>' % (
        e["profile"], when, t(e["prefill"]["time_per_token_s"]), e["prefill"]["bound"],
        t(e["decode"]["time_per_token_s"]), e["decode"]["bound"]))
PYEOF
check llm_report_rows 0 "4" -- sh -c "grep -cxF -f '$tmp/dec_want' '$tmp/dec.html'"
check llm_report_section 0 '<section id="llm"><h2>LLM view</h2>' -- cat "$tmp/dec.html"
check llm_report_no_chart_says 0 "the LLM view above estimates each phase" -- cat "$tmp/dec.html"
check llm_report_cnn 1 "" -- grep -q 'id="llm"' "$tmp/tiny.html"

check needs_out 2 "report needs -o OUT.html" -- "$bin" report "$pb"
check needs_model 2 "report needs MODEL first" -- "$bin" report -o "$tmp/x.html"
check no_json 2 "report takes no --json" -- "$bin" report "$pb" --json -o "$tmp/x.html"
check bad_sweep 2 "is not an integer" -- "$bin" report "$pb" --sweep input.0=1,x -o "$tmp/x.html"
check unwritable 3 "cannot open" -- "$bin" report "$pb" -o "$tmp/no/such/dir.html"

# --- headless Chromium ------------------------------------------------------
chrome=""
for c in chromium chromium-browser; do
  command -v "$c" >/dev/null && chrome="$c" && break
done
if [ -z "$chrome" ]; then
  skip_part "Chromium checks: chromium is not installed (deploy/install-deps.sh)"
  finish
fi
run_chrome() { # OUT_PREFIX ARGS...: stderr in OUT_PREFIX.log
  local out="$1"
  shift
  HOME="$tmp" timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-extensions --disable-background-networking --user-data-dir="$tmp/chrome" \
    --enable-logging=stderr --v=0 "$@" 2>"$out.log"
}
console_errors() { # LOG: console errors and uncaught exceptions
  grep -E "CONSOLE.*(ERROR|Uncaught)|Uncaught |:ERROR:CONSOLE" "$1" | grep -v "dbus\|gcm\|fontconfig" || true
}
run_chrome "$tmp/dom" --dump-dom "file://$tmp/tiny.html" >"$tmp/dom.html"
expected_marks "$pb" "${b[@]}" --profile epyc-9654 --profile a100-80gb >"$tmp/want"
marks "$tmp/dom.html" >"$tmp/got"
check dom_marks 0 "" -- cmp "$tmp/want" "$tmp/got"
check dom_svg 0 "<svg" -- cat "$tmp/dom.html"
check console_clean 0 "" -- test -z "$(console_errors "$tmp/dom.log")"
# The console check can fail: a page with a script error is caught.
sed 's#</body>#<script>undefinedFunction();</script></body>#' "$tmp/tiny.html" >"$tmp/broken.html"
run_chrome "$tmp/broken" --dump-dom "file://$tmp/broken.html" >/dev/null
check console_catches_error 0 "" -- test -n "$(console_errors "$tmp/broken.log")"
# The screenshot: drawn (many colours, enough ink), light by default, dark
# under a dark colour scheme.
run_chrome "$tmp/shot" --window-size=900,1100 --screenshot="$tmp/shot.png" "file://$tmp/tiny.html" >/dev/null
check screenshot_exists 0 "" -- test -s "$tmp/shot.png"
"$py" "$here/pngstat.py" "$tmp/shot.png" >"$tmp/stat" 2>&1
read -r w h colours ink dark <"$tmp/stat"
check screenshot_not_blank 0 "" -- "$py" -c "import sys; sys.exit(not ($colours >= 8 and $ink >= 0.01))"
check screenshot_light 0 "" -- test "$dark" = 0
run_chrome "$tmp/dark" --window-size=900,1100 --force-dark-mode --blink-settings=preferredColorScheme=0 \
  --screenshot="$tmp/dark.png" "file://$tmp/tiny.html" >/dev/null
"$py" "$here/pngstat.py" "$tmp/dark.png" >"$tmp/stat" 2>&1
read -r w h colours ink dark <"$tmp/stat"
check screenshot_dark 0 "" -- test "$dark" = 1
finish
