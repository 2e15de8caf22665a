#!/usr/bin/env bash
# Start-up cost, checked structurally (not by timing): the local commands must
# load libc, libm, protobuf-c, libyaml and jansson only. gRPC lives in the remote-mode
# module (foldline-remote.so, dlopened for --server) and OpenBLAS is dlopened
# by calibrate; neither may come back as a link dependency. Also the module's
# look-up (FOLDLINE_MODULE_DIR, beside the executable, ../lib/foldline) and
# its errors: missing, unloadable, from another build; and calibrate's error
# without OpenBLAS. tests/bench/bench_startup.sh measures the time itself.
# Usage: cli_startup.sh FOLDLINE_BINARY TEST_DATA_DIR
# (FL_BAD_MODULE_DIR, when set: a directory holding a module with a foreign
# interface version, tests/cli/bad_module.c.)
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

fail() {
  echo "FAIL $1"
  fails=$((fails + 1))
}

# 1. The executable's direct dependencies (ELF NEEDED): an allow-list, so a
#    new heavy dependency is noticed too. Sanitizer builds add their runtimes.
if command -v readelf >/dev/null 2>&1; then
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  bad=""
  for lib in $needed; do
    case "$lib" in
      libc.so.* | libm.so.* | libprotobuf-c.so.* | libyaml-0.so.* | libjansson.so.* | ld-linux*) ;;
      libasan.so.* | libubsan.so.* | libdl.so.* | libpthread.so.* | librt.so.* | libgcc_s.so.*) ;;
      *) bad="$bad $lib" ;;
    esac
  done
  if [ -z "$needed" ]; then
    fail "needed: readelf found no NEEDED entries in $bin"
  elif [ -n "$bad" ]; then
    fail "needed: $bin links$bad (local commands would load them at every start; load them with dlopen where they are used)"
  else
    pass=$((pass + 1))
  fi
else
  skip_part "readelf absent: NEEDED check"
fi

# 2. Nor indirectly (the whole load closure).
if command -v ldd >/dev/null 2>&1; then
  if ldd "$bin" | grep -E 'libgrpc|libgpr|libabsl|libopenblas|libssl|libuv' >"$tmp/ldd"; then
    fail "ldd: $bin loads $(tr '\n' ' ' <"$tmp/ldd")"
  else
    pass=$((pass + 1))
  fi
fi

# 3. At run time the local commands open nothing more (the dynamic linker's
#    own trace of the files it loads).
for args in "--version" "analyze $data/tiny_cnn.pb --passes none --json" "--help"; do
  # shellcheck disable=SC2086
  LD_DEBUG=files "$bin" $args >/dev/null 2>"$tmp/ld"
  if grep -E 'file=[^ ]*(libgrpc|libgpr|libabsl|libopenblas|foldline-remote)' "$tmp/ld" >"$tmp/ldhit"; then
    fail "runtime_loads ($args): $(head -c 300 "$tmp/ldhit")"
  else
    pass=$((pass + 1))
  fi
done

# 4. Remote mode and its module. A copy of the executable in $tmp/bin has no
#    module beside it, and $tmp/lib/foldline is its install-layout directory.
mkdir -p "$tmp/bin" "$tmp/empty" "$tmp/lib/foldline" "$tmp/broken"
cp "$bin" "$tmp/bin/foldline"
lone="$tmp/bin/foldline"
module="$(dirname "$bin")/foldline-remote.so"
# Port 1 on loopback refuses connections: reaching gRPC's UNAVAILABLE proves
# the module loaded and ran, without a server.
refused=(--server 127.0.0.1:1 --timeout-ms 5000 health)
check usage_before_module 2 "analyze needs a MODEL file" -- env FOLDLINE_MODULE_DIR="$tmp/empty" "$lone" --server 127.0.0.1:1 analyze
check local_without_module 0 "617852*input.0" -- env FOLDLINE_MODULE_DIR="$tmp/empty" "$lone" analyze "$data/tiny_cnn.pb" --passes none
if [ -f "$module" ]; then
  check module_beside_binary 3 "UNAVAILABLE" -- "$bin" "${refused[@]}"
  check module_missing 3 "foldline-remote.so not found (looked for $tmp/empty/foldline-remote.so (FOLDLINE_MODULE_DIR), $tmp/bin/foldline-remote.so (beside the executable), $tmp/lib/foldline/foldline-remote.so (install layout)" -- env FOLDLINE_MODULE_DIR="$tmp/empty" "$lone" "${refused[@]}"
  check module_missing_analyze 3 "remote mode is unavailable" -- env FOLDLINE_MODULE_DIR="$tmp/empty" "$lone" --server 127.0.0.1:1 analyze "$data/tiny_cnn.pb"
  check module_missing_profiles 3 "remote mode is unavailable" -- env -u FOLDLINE_MODULE_DIR "$lone" --server 127.0.0.1:1 profiles
  check module_from_env 3 "UNAVAILABLE" -- env FOLDLINE_MODULE_DIR="$(dirname "$bin")" "$lone" "${refused[@]}"
  : >"$tmp/broken/foldline-remote.so"
  check module_unloadable 3 "cannot load $tmp/broken/foldline-remote.so: " -- env FOLDLINE_MODULE_DIR="$tmp/broken" "$lone" "${refused[@]}"
  if [ -n "${FL_BAD_MODULE_DIR:-}" ]; then
    check module_other_build 3 "has interface version 999, this foldline needs" -- env FOLDLINE_MODULE_DIR="$FL_BAD_MODULE_DIR" "$lone" "${refused[@]}"
  fi
  cp "$module" "$tmp/lib/foldline/"
  check module_install_layout 3 "UNAVAILABLE" -- env -u FOLDLINE_MODULE_DIR "$lone" "${refused[@]}"
else
  echo "no $module (built without gRPC): remote mode must say it is unavailable"
  check remote_unavailable 3 "built without gRPC" -- "$bin" "${refused[@]}"
fi

# 5. calibrate without OpenBLAS: a clear error before any measuring.
check calibrate_without_openblas 3 "OpenBLAS, which cannot be loaded (tried $tmp/none/libopenblas.so.0:" -- env FOLDLINE_OPENBLAS="$tmp/none/libopenblas.so.0" "$bin" calibrate --short -o "$tmp/cal.yaml"

finish
