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
check profiles_sources 0 "[V] NVIDIA A100 Tensor Core GPU datasheet (80GB): FP16 Tensor Core, dense" -- "$bin" profiles --sources
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

# --profile takes a file; --profiles-dir adds to the shipped profiles; a
# profile is named after its file; a name defined twice names both files.
mkdir -p "$tmp/more" "$tmp/dup" "$tmp/misnamed"
sed 's/^name: t4$/name: t4-copy/' "$(dirname "$0")/../../deploy/profiles/t4.yaml" >"$tmp/more/t4-copy.yaml"
check profile_file 0 "roofline on t4-copy (before rewriting)" -- "$bin" analyze "$m" --bind input.0=1 --passes none --profile "$tmp/more/t4-copy.yaml"
check profile_file_missing 3 "--profile: cannot open '$tmp/none.yaml'" -- "$bin" analyze "$m" --bind input.0=1 --profile "$tmp/none.yaml"
check profiles_dir_adds 0 "roofline on t4-copy" -- "$bin" analyze "$m" --bind input.0=1 --passes none --profiles-dir "$tmp/more" --profile t4 --profile t4-copy
check profiles_dir_lists_both 0 "t4-copy" -- "$bin" profiles --profiles-dir "$tmp/more"
check profiles_dir_keeps_shipped 0 "a100-80gb" -- "$bin" profiles --profiles-dir "$tmp/more"
cp "$(dirname "$0")/../../deploy/profiles/t4.yaml" "$tmp/dup/t4.yaml"
check profiles_dir_dup 1 "$tmp/dup/t4.yaml: name: profile 't4' is also defined in" -- "$bin" analyze "$m" --bind input.0=1 --profiles-dir "$tmp/dup" --profile t4
check profile_file_dup 1 "--profile: profile 't4' is defined in" -- "$bin" analyze "$m" --bind input.0=1 --profile t4 --profile "$tmp/dup/t4.yaml"
cp "$tmp/more/t4-copy.yaml" "$tmp/misnamed/gpu.yaml"
check profile_misnamed 1 "gpu.yaml: name: profile 't4-copy' must be named after its file ('gpu'" -- "$bin" profiles --profiles-dir "$tmp/misnamed"
check unknown_profile_hint 2 "a profile file is given by its path" -- "$bin" analyze "$m" --bind input.0=1 --profile nope
check remote_profile_file 2 "a profile file is used in-process only" -- "$bin" --server 127.0.0.1:1 analyze "$m" --bind input.0=1 --profile "$tmp/more/t4-copy.yaml"

# A profile with an efficiency table and an interval: the time comes with
# its interval; a profile without one says it is an upper-bound roofline.
sed 's/^name: t4$/name: t4-fitted/' "$(dirname "$0")/../../deploy/profiles/t4.yaml" >"$tmp/more/t4-fitted.yaml"
cat >>"$tmp/more/t4-fitted.yaml" <<'EOF2'
efficiency:
  conv: {by: flops, buckets: [{upto: 1e6, compute: 0.5, memory: 0.5, fixed: 2e-6, source: test}, {compute: 0.25, memory: 0.5, source: test}]}
interval: {low: 0.9, high: 1.25, coverage: 0.8, source: test}
EOF2
check fitted_interval 0 "80 % interval" -- "$bin" analyze "$m" --bind input.0=1 --passes none --profile "$tmp/more/t4-fitted.yaml"
check fitted_bucket 0 "conv (<= 1e+06 flops)" -- "$bin" analyze "$m" --bind input.0=1 --passes none --profile "$tmp/more/t4-fitted.yaml"
check uncalibrated_says_so 0 "upper-bound roofline: peaks only" -- "$bin" analyze "$m" --bind input.0=1 --passes none --profile t4

# calibrate (short mode) writes a profile that loads and estimates; it is
# named after its file, and --threads 1 says so in every source.
mkdir -p "$tmp/cal"
check calibrate 0 "calibrate: wrote $tmp/cal/host.yaml in " -- "$bin" calibrate --short --threads 1 -o "$tmp/cal/host.yaml"
check calibrated_loads 0 "host " -- "$bin" profiles --profiles-dir "$tmp/cal" --sources
check calibrated_marked 0 "calibrated " -- cat "$tmp/cal/host.yaml"
check calibrated_threads 0 "(foldline calibrate --short: indicative only, 1 thread): " -- cat "$tmp/cal/host.yaml"
check calibrated_p10 0 "10th percentile of " -- cat "$tmp/cal/host.yaml"
check calibrated_estimate 0 "roofline on host" -- "$bin" analyze "$m" --bind input.0=1 --profiles-dir "$tmp/cal" --profile host
check calibrated_file 0 "roofline on host" -- "$bin" analyze "$m" --bind input.0=1 --profile "$tmp/cal/host.yaml"
# Each bandwidth is the best of short trials during which the thread kept
# its CPU, and the source says how many of how many; the L2 triad's working
# set is half the L2 that sysfs reports (when it does).
# On a busy host (CI) no trial may run undisturbed: the source then says so.
check calibrated_trials 0 "" -- grep -qE "best of [0-9]+ (undisturbed 24 MiB trials \(of [0-9]+\)|24 MiB trials, none undisturbed: the host was busy)" "$tmp/cal/host.yaml"
# The compute peaks are timed the same way: the vector FMA and the sgemm
# sources each say how many of how many trials ran undisturbed (or that none
# did), and no more trials are undisturbed than were run.
peak_re='(FMA chains|OpenBLAS sgemm( \([A-Za-z0-9_]+ kernels\))? n=256( reached [0-9.e+]+ FLOP/s \([0-9]+ % of it\)|, above the FMA chains'"'"' [0-9.e+]+ FLOP/s)), best of [0-9]+ (undisturbed trials \(of [0-9]+\)|trials, none undisturbed: the host was busy)"'
if [ "$(grep -cE "$peak_re" "$tmp/cal/host.yaml")" = 2 ]; then pass=$((pass + 1)); else
  echo "FAIL calibrated_peak_trials: the vector and matrix sources do not both give their trials"
  grep "fp32" "$tmp/cal/host.yaml"; fails=$((fails + 1))
fi
if grep -oE "best of [0-9]+ undisturbed trials \(of [0-9]+\)" "$tmp/cal/host.yaml" |
  awk '{ gsub(/[()]/, ""); if ($3 + 0 < 1 || $3 + 0 > $7 + 0) bad = 1 } END { exit bad }'; then
  pass=$((pass + 1))
else
  echo "FAIL calibrated_peak_counts: more undisturbed trials than trials run"; fails=$((fails + 1))
fi
# The int8 dot-product peak (x86 with AVX2; VNNI's vpdpbusd where the CPU
# has it), written for the vector and the matrix unit, so a quantized
# contraction is timed at it (matrix/int8), a depthwise one on the vector
# unit; the knob dot8= runs each narrower kernel the host has. Without
# AVX2 no int8 figure is written (int8 work then runs as fp32).
if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo; then
  check calibrated_int8 0 "" -- test "$(grep -c '^    int8: {peak: ' "$tmp/cal/host.yaml")" = 2
  check calibrated_int8_source 0 "" -- grep -qE "int8 dot-product chains, 2 operations per u8 x s8 multiply-add, best of [0-9]+ (undisturbed trials \(of [0-9]+\)|trials, none undisturbed)" "$tmp/cal/host.yaml"
  check calibrated_int8_matrix 0 "the vector int8 peak, the units an int8 GEMM runs on" -- cat "$tmp/cal/host.yaml"
  check calibrated_int8_conv 0 "conv_out CONV_2D" -- sh -c "'$bin' analyze '$data/tiny_int8.tflite' --profile '$tmp/cal/host.yaml' --passes none --per-node | grep 'matrix/int8'"
  check calibrated_int8_depthwise 0 "dw_out   DEPTHWISE_CONV_2D" -- sh -c "'$bin' analyze '$data/tiny_int8.tflite' --profile '$tmp/cal/host.yaml' --passes none --per-node | grep 'vector/int8'"
  check calibrated_int8_avx2 0 "AVX2 (vpmaddubsw, vpmaddwd, vpaddd) int8 dot-product chains" -- env FOLDLINE_CALIBRATE_TEST=dot8=avx2 "$bin" calibrate --short --threads 1
  if grep -qw avx_vnni /proc/cpuinfo; then
    check calibrated_int8_avxvnni 0 "AVX-VNNI (vpdpbusd) int8 dot-product chains" -- env FOLDLINE_CALIBRATE_TEST=dot8=avxvnni "$bin" calibrate --short --threads 1
  fi
  if grep -qw avx512_vnni /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo; then
    check calibrated_int8_vnni512 0 "AVX-512 VNNI (vpdpbusd) int8 dot-product chains" -- cat "$tmp/cal/host.yaml"
  fi
else
  check calibrated_no_int8 0 "" -- test "$(grep -c 'int8: {peak: ' "$tmp/cal/host.yaml")" = 0
fi
for idx in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ "$(cat "$idx/level" 2>/dev/null)" = 2 ] || continue
  l2=$(cat "$idx/size")
  case "$l2" in
    *K) half=$((${l2%K} / 2)) ;;
    *M) half=$((${l2%M} * 512)) ;;
    *) continue ;;
  esac
  check calibrated_l2_half 0 "triad, $half KiB per thread, best of " -- cat "$tmp/cal/host.yaml"
done
# The busy-host fallback and the order checks, run on any host through
# calibrate's test knob FOLDLINE_CALIBRATE_TEST (client/calibrate.c, not for
# users): "disturbed" counts every trial as disturbed, so each figure is the
# best of all its trials, every source says none was undisturbed, one warning
# names them all, and the profile still loads and estimates. "NAME=F" puts F
# in place of a measured figure before the checks: an SGEMM above the vector
# FMA peak or under a quarter of it, and an L2 slower than the next level,
# are warned about, in the profile too. Every warning is a line cli_progress
# tolerates on a busy host.
check cal_busy 0 "foldline: calibrate: warning: no trial of the vector FMA peak, the sgemm peak, the L2 bandwidth" -- env FOLDLINE_CALIBRATE_TEST=disturbed "$bin" calibrate --short --threads 1 -o "$tmp/cal/busy.yaml"
busy_want=$((4 + $(grep -c "name: L3," "$tmp/cal/busy.yaml") + $(grep -c "int8 dot-product chains" "$tmp/cal/busy.yaml")))
busy_got=$(grep -c ", none undisturbed: the host was busy" "$tmp/cal/busy.yaml")
if [ "$busy_got" = "$busy_want" ] && ! grep -q " undisturbed .*(of " "$tmp/cal/busy.yaml"; then
  pass=$((pass + 1))
else
  echo "FAIL cal_busy_sources: $busy_got of $busy_want sources say none was undisturbed"
  cat "$tmp/cal/busy.yaml"; fails=$((fails + 1))
fi
check cal_busy_comment 0 "# Warning: no trial of the vector FMA peak" -- cat "$tmp/cal/busy.yaml"
check cal_busy_estimates 0 "roofline on busy" -- "$bin" analyze "$m" --bind input.0=1 --profile "$tmp/cal/busy.yaml"
check cal_sgemm_low 0 "is under a quarter of the vector FMA peak 1e+15 FLOP/s" -- env FOLDLINE_CALIBRATE_TEST=vector=1e15 "$bin" calibrate --short --threads 1 -o "$tmp/cal/low.yaml"
check cal_sgemm_low_comment 0 "# Warning: sgemm " -- cat "$tmp/cal/low.yaml"
# The matrix peak is the vector FMA peak (the units an SGEMM runs on), so the
# profile's peaks bound a runtime whose GEMM outruns OpenBLAS's; the sgemm
# rate is stated in the source as a share of it. Only an sgemm above the FMA
# chains' figure is the peak itself, its source saying so.
check cal_matrix_is_fma 0 "" -- test "$(grep -c 'fp32: {peak: 1e+15, source: ' "$tmp/cal/low.yaml")" = 2
check cal_matrix_share 0 "% of it), best of " -- grep "  fp32: {peak: 1e+15, source: .*: the vector FMA peak, the units SGEMM runs on; OpenBLAS sgemm" "$tmp/cal/low.yaml"
check cal_sgemm_high 0 "above the vector FMA peak 1e+03 FLOP/s is not the hardware's order" -- env FOLDLINE_CALIBRATE_TEST=vector=1e3 "$bin" calibrate --short --threads 1 -o "$tmp/cal/high.yaml"
check cal_matrix_sgemm_above 0 "above the FMA chains' 1000 FLOP/s" -- cat "$tmp/cal/high.yaml"
check cal_matrix_sgemm_peak 0 "" -- test "$(grep -c 'fp32: {peak: 1000, source: ' "$tmp/cal/high.yaml")" = 1
check cal_l2_slow 0 "foldline: calibrate: warning: L2 5 < " -- env FOLDLINE_CALIBRATE_TEST=l2=5 "$bin" calibrate --short --threads 1 -o "$tmp/cal/slow.yaml"
check cal_l2_slow_comment 0 "# Warning: L2 5 < " -- cat "$tmp/cal/slow.yaml"
env FOLDLINE_CALIBRATE_TEST=disturbed,vector=1e3,l2=5 "$bin" calibrate --short --threads 1 -o "$tmp/cal/all.yaml" 2>"$tmp/cal/all.err"
if [ "$(grep -c '^foldline: calibrate: warning: .* the host was busy' "$tmp/cal/all.err")" = 3 ] &&
  ! grep -v -e '^calibrate: wrote ' -e '^foldline: calibrate: warning: .* the host was busy' "$tmp/cal/all.err"; then
  pass=$((pass + 1))
else
  echo "FAIL cal_warnings_tolerated: not three warnings cli_progress accepts"; cat "$tmp/cal/all.err"; fails=$((fails + 1))
fi
check cal_knob_dot8_bad 2 "FOLDLINE_CALIBRATE_TEST: unknown item 'dot8=sse'" -- env FOLDLINE_CALIBRATE_TEST=dot8=sse "$bin" calibrate --short --threads 1 -o "$tmp/cal/bad.yaml"
check cal_knob_bad 2 "FOLDLINE_CALIBRATE_TEST: unknown item 'l4=3'" -- env FOLDLINE_CALIBRATE_TEST=disturbed,l4=3 "$bin" calibrate --short --threads 1 -o "$tmp/cal/bad.yaml"
check cal_knob_zero 2 "FOLDLINE_CALIBRATE_TEST: unknown item 'sgemm=0'" -- env FOLDLINE_CALIBRATE_TEST=sgemm=0 "$bin" calibrate --short --threads 1 -o "$tmp/cal/bad.yaml"
check calibrate_threads_bad 2 "--threads expects a number of threads from 1 to 1024, got '0'" -- "$bin" calibrate --threads 0
check calibrate_threads_value 2 "calibrate: option --threads needs a value" -- "$bin" calibrate --threads
check calibrate_unknown 2 "calibrate: unexpected argument '--fast'" -- "$bin" calibrate --fast
if grep -q "median\"}" "$tmp/cal/host.yaml"; then
  echo "FAIL calibrated_source_honest: a source ends in 'median' for a 10th percentile"; fails=$((fails + 1))
else pass=$((pass + 1)); fi

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
assert d['schema_version']==2 and d['sweep']=={'symbol': 'input.0', 'values': [1, 8]}, d['sweep']
p=d['results']
# each result is the record analyze --json prints, with the swept binding
assert [x['options']['symbols'] for x in p]==[[{'name': 'input.0', 'value': v}] for v in (1, 8)]
assert p[1]['totals']['flops']['value'] == 8 * p[0]['totals']['flops']['value'] == 8 * 617852
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
  skip_part "python3 absent: JSON parse checks"
fi

finish
