#!/usr/bin/env bash
# First contact with the CLI: one usage-error style (exit 2, the bad part
# quoted, the valid choices listed, a pointer to the command's help), names
# checked before the model is read, help for every command in one wording,
# options on the wrong side of the command, and the text summary's tables.
# Usage: cli_usage.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
m="$data/tiny_cnn.pb"

# Bad values: the value is quoted, not the name.
check bind_value_quoted 2 "--bind x.0: '-1' is not an integer >= 0" -- "$bin" analyze "$m" --bind x.0=-1
check bind_no_eq 2 "--bind expects SYMBOL=N, got 'x.0'" -- "$bin" analyze "$m" --bind x.0
check bind_huge 2 "'99999999999999999999' is not an integer >= 0 (that fits 64 bits)" -- "$bin" analyze "$m" --bind input.0=99999999999999999999
check error_points_to_help 2 "(see foldline help analyze)" -- "$bin" analyze "$m" --bind x.0=-1
# A binding that fits 64 bits but makes a count overflow names the binding.
check bind_overflow 1 "with the symbol binding input.0=922337203685477580: counts are exact 64-bit integers" -- "$bin" analyze "$m" --bind input.0=922337203685477580 --passes none
# Names are checked before the model is read (the file does not exist).
check passes_before_model 2 "--passes: unknown pass 'fold' (passes: pruning, cse, qdq, constfold, transpose, shape, arithmetic, remap, dependency, or none)" -- "$bin" analyze "$tmp/absent.pb" --passes fold
check disable_lists_names 2 "--disable: unknown pass 'remapper' (the passes: pruning, cse, qdq, constfold" -- "$bin" analyze "$tmp/absent.pb" --disable remapper
check disable_mentions_remapper 2 "the remapper's rule set is chosen with --remapper standard|onednn" -- "$bin" analyze "$tmp/absent.pb" --disable remapper
check disable_ok 0 "rewrite passes" -- "$bin" analyze "$m" --disable remap
check device_choices 2 "--device must be cpu or gpu, got 'tpu'" -- "$bin" analyze "$tmp/absent.pb" --device tpu
# Options on the wrong side of the command say where they belong.
check remote_option_after 2 "--server is an option of remote mode: it goes before the command" -- "$bin" analyze "$m" --server 127.0.0.1:1
check command_option_before 2 "options of analyze and optimize go after the command (foldline analyze MODEL --json)" -- "$bin" --json analyze "$m"
# optimize does not silently ignore what it cannot do.
check optimize_no_profile 2 "optimize takes no --profile" -- "$bin" optimize "$m" -o "$tmp/o.pb" --profile t4
check optimize_per_node_text 2 "optimize --per-node lists the nodes in its --json output only" -- "$bin" optimize "$m" -o "$tmp/o.pb" --per-node
check optimize_per_node_json 0 '"nodes_after"' -- "$bin" optimize "$m" -o "$tmp/o.pb" --per-node --json

# Help: `help COMMAND`, `COMMAND --help`, `-h`, one wording ("usage: foldline ...").
for c in analyze optimize; do
  check "help_$c" 0 "usage: foldline analyze MODEL [options]" -- "$bin" help "$c"
  check "help_flag_$c" 0 "usage: foldline analyze MODEL [options]" -- "$bin" "$c" --help
  check "help_h_$c" 0 "usage: foldline analyze MODEL [options]" -- "$bin" "$c" "$m" -h
done
for c in profiles calibrate fit health; do
  check "help_$c" 0 "usage: foldline" -- "$bin" help "$c"
  check "help_flag_$c" 0 "usage: foldline" -- "$bin" "$c" --help
  check "help_h_$c" 0 "usage: foldline" -- "$bin" "$c" -h
done
check help_same 0 "" -- cmp -s <("$bin" help profiles) <("$bin" profiles --help)
check help_top_h 0 "usage: foldline analyze" -- "$bin" -h
check help_unknown 2 "help: unknown command 'bogus' (the commands: analyze, optimize, profiles" -- "$bin" help bogus
check unknown_command_lists 2 "(the commands: analyze, optimize, profiles, calibrate, fit, health, diff, card, report, schema)" -- "$bin" frobnicate

# Text summary: op types that count no FLOPs are not listed as top ops
# (tiny_cnn: 8 op types with FLOPs, the Reshape/Const/Identity/... count 0),
# and the ledger says how many of all pass runs fired a rule.
"$bin" analyze "$m" --input input=1,32,32,3 --top 20 >"$tmp/t.txt"
rows=$(sed -n '/^top ops by FLOPs/,/^$/p' "$tmp/t.txt" | grep -c '^  [A-Z]')
check top_ops_rows 0 "" -- test "$rows" -eq 8
check top_ops_no_zero 1 "" -- grep -qE '^  (Reshape|Const|Identity|Placeholder) ' "$tmp/t.txt"
check ledger_runs 0 "ledger    3 rule firing(s) in 1 of 14 pass run(s)" -- cat "$tmp/t.txt"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
