#!/usr/bin/env bash
# Device profiles and roofline estimates through the CLI: --profile,
# --profiles-dir / FOLDLINE_PROFILES_DIR, --sweep, `profiles`, `calibrate`
# (short mode), and the JSON `roofline` array.
# Usage: cli_roofline.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

m="$data/tiny_cnn.pb"
check profiles 0 "a100-80gb" -- "$bin" profiles
check profiles_sources 0 "[V] NVIDIA A100 datasheet: FP16 Tensor Core, dense" -- "$bin" profiles --sources
check estimate 0 "roofline on a100-80gb (before rewriting)" -- "$bin" analyze "$m" --input input=1,32,32,3 --profile a100-80gb
check estimate_after 0 "after         n/a (the rewrite passes did not run)" -- "$bin" analyze "$m" --bind input.0=1 --profile t4 --passes none
check estimate_after_default 0 "roofline on t4 (after rewriting)" -- "$bin" analyze "$m" --bind input.0=1 --profile t4
check estimate_all 0 "roofline on raspberry-pi-4" -- "$bin" analyze "$m" --bind input.0=1 --profile all
check unbound 2 "unbound: input.0" -- "$bin" analyze "$m" --profile a100-80gb
check unknown_profile 2 "no profile named 'nope'" -- "$bin" analyze "$m" --bind input.0=1 --profile nope
check profile_needs_value 2 "option --profile needs a value" -- "$bin" analyze "$m" --profile
check bad_sweep 2 "--sweep: value 'x' is not a non-negative integer" -- "$bin" analyze "$m" --profile t4 --sweep input.0=1,x
check sweep 0 "sweep of input.0" -- "$bin" analyze "$m" --profile t4 --profile l4 --sweep input.0=1,8,64
check no_dir 3 "cannot open profiles directory" -- "$bin" profiles --profiles-dir "$tmp/none"

mkdir -p "$tmp/bad"
printf 'schema: 1\nname: x\nkind: tpu\n' >"$tmp/bad/bad.yaml"
check bad_profile 1 "bad.yaml:3: kind: unknown kind 'tpu'" -- "$bin" analyze "$m" --bind input.0=1 --profile x --profiles-dir "$tmp/bad"
check env_dir 1 "bad.yaml:3: kind" -- env FOLDLINE_PROFILES_DIR="$tmp/bad" "$bin" profiles

# calibrate (short mode) writes a profile that loads and estimates.
mkdir -p "$tmp/cal"
check calibrate 0 "calibrate: done" -- "$bin" calibrate --short -o "$tmp/cal/host.yaml"
check calibrated_loads 0 "host-calibrated" -- "$bin" profiles --profiles-dir "$tmp/cal" --sources
check calibrated_marked 0 "calibrated " -- cat "$tmp/cal/host.yaml"
check calibrated_estimate 0 "roofline on host-calibrated" -- "$bin" analyze "$m" --bind input.0=1 --profiles-dir "$tmp/cal" --profile host-calibrated

if command -v python3 >/dev/null 2>&1; then
  "$bin" analyze "$m" --input input=1,32,32,3 --json --per-node --profile a100-80gb --profile raspberry-pi-4 --passes none >"$tmp/r.json"
  if python3 - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rl = d["roofline"]
assert [r["profile"] for r in rl] == ["a100-80gb", "raspberry-pi-4"], rl
for r in rl:
    assert r["after"] is None and r["speedup"] is None, r
    b = r["before"]
    for k in ["time_s", "upper_s", "compute_s", "memory_s", "overhead_s", "ops_compute_bound",
              "ops_memory_bound", "ops_overhead_bound", "top", "nodes"]:
        assert k in b, k
    assert b["time_s"] > 0 and b["upper_s"] >= b["time_s"]
    assert abs(b["compute_s"] + b["memory_s"] + b["overhead_s"] - b["time_s"]) <= 1e-9 * b["time_s"]
    assert abs(sum(n["time_s"] for n in b["nodes"]) - b["time_s"]) <= 1e-9 * b["time_s"]
    conv = [n for n in b["nodes"] if n["name"] == "conv1/Conv2D"][0]
    assert conv["flops"] == 442368, conv
pi = rl[1]["before"]
conv = [n for n in pi["nodes"] if n["name"] == "conv1/Conv2D"][0]
# Raspberry Pi 4: vector fp32 96 GFLOP/s, 12.8 GB/s, no overhead.
assert abs(conv["compute_s"] - conv["flops"] / 96e9) < 1e-15, conv
assert abs(conv["memory_s"] - conv["bytes"] / 12.8e9) < 1e-15, conv
PY
  then pass=$((pass + 1)); else echo "FAIL json_roofline"; fails=$((fails + 1)); fi
  "$bin" analyze "$m" --json >"$tmp/plain.json"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['roofline']==[]" "$tmp/plain.json"; then
    pass=$((pass + 1)); else echo "FAIL json_no_profile"; fails=$((fails + 1)); fi
  "$bin" analyze "$m" --json --profile t4 --sweep input.0=1,8 >"$tmp/sweep.json"
  if python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
p=d['sweep']['points']
assert [x['value'] for x in p]==[1,8], p
assert p[1]['roofline'][0]['before']['time_s'] > p[0]['roofline'][0]['before']['time_s']
# the passes run at every point: tiny_cnn's fusions make each point faster
for x in p:
    r = x['roofline'][0]
    assert r['after']['time_s'] < r['before']['time_s'] and r['speedup'] > 1, r
" "$tmp/sweep.json"; then
    pass=$((pass + 1)); else echo "FAIL json_sweep"; fails=$((fails + 1)); fi
  # With the passes, `after` estimates the rewritten graph: tiny_cnn's
  # Conv2D+BiasAdd+Relu chains fuse, so the memory term and the time drop.
  "$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3 --passes default --profile xeon-8380 --json >"$tmp/after.json"
  if python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
r=d['roofline'][0]
b,a=r['before'],r['after']
assert a is not None
assert a['memory_s'] < b['memory_s'], (a, b)
assert abs(r['speedup'] - b['time_s']/a['time_s']) < 1e-12 and r['speedup'] > 1, r['speedup']
" "$tmp/after.json"; then
    pass=$((pass + 1)); else echo "FAIL json_after"; fails=$((fails + 1)); fi
  "$bin" profiles --json >"$tmp/p.json"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(p['name']=='h100-sxm' for p in d['profiles'])" "$tmp/p.json"; then
    pass=$((pass + 1)); else echo "FAIL json_profiles"; fails=$((fails + 1)); fi
else
  echo "python3 absent: JSON parse checks skipped"
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
