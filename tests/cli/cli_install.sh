#!/usr/bin/env bash
# The installed tree works as deployed: `cmake --install` into a scratch
# prefix, then the installed CLI runs locally and, when the build has gRPC,
# finds its remote-mode module in PREFIX/lib/foldline (as the container's
# health check does) and talks to the installed foldlined.
# The installed library too: a program (use_library.c) built with only the
# installed header and `pkg-config --cflags --libs foldline` runs against the
# installed libfoldline.so, whose SONAME is libfoldline.so.MAJOR and which
# exports exactly the FL_EXTERN functions of the installed headers.
# Usage: cli_install.sh FOLDLINE_BINARY TEST_DATA_DIR
# (the build directory is the binary's; $CMAKE_COMMAND, when set, is the cmake
# to install with; $CC the C compiler and $FL_SAN_FLAGS the sanitizer flags of
# the build, for the program.)
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
build="$(cd "$(dirname "$bin")" && pwd)"
cmake="${CMAKE_COMMAND:-cmake}"
prefix="$tmp/prefix"
pid=""
stop_server() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=""
  fi
}
trap 'stop_server; rm -rf "$tmp"' EXIT

if ! "$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  echo "FAIL install: $(tail -n 5 "$tmp/install.log")"
  exit 1
fi
ifl="$prefix/bin/foldline"
version=$(sed -n 's/^project(foldline VERSION \([0-9.]*\) .*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
check installed_version 0 "foldline $version" -- "$ifl" --version
check installed_analyze 0 "617852*input.0" -- "$ifl" analyze "$data/tiny_cnn.pb" --passes none
check installed_profiles 0 "xeon-8380" -- env FOLDLINE_PROFILES_DIR="$prefix/share/foldline/profiles" "$ifl" profiles

# The library, as another program uses it.
libdir=$(dirname "$(find "$prefix" -name 'libfoldline.so.*.*.*' | head -n 1)")
pcdir="$libdir/pkgconfig"
check pc_installed 0 "" -- test -f "$pcdir/foldline.pc"
check header_installed 0 "" -- test -f "$prefix/include/foldline/version.h"
major=$(sed -n 's/^#define FL_VERSION_MAJOR \([0-9]*\)$/\1/p' "$prefix/include/foldline/version.h")
check soname 0 "libfoldline.so.$major]" -- readelf -d "$libdir/libfoldline.so"
check so_versioned_file 0 "" -- test -f "$libdir/libfoldline.so.$("$ifl" --version | sed 's/^foldline //')"
# Exports: every defined dynamic symbol is a public function (fl_, not the
# internal fl__), and every function the headers declare FL_EXTERN is there.
nm -D --defined-only "$libdir/libfoldline.so" | awk '{print $3}' | sort >"$tmp/exported"
grep -ho '^FL_EXTERN [^(]*(' "$prefix"/include/foldline/*.h | sed 's/($//; s/.*[ *]//' | sort >"$tmp/declared"
if [ -s "$tmp/declared" ] && cmp -s "$tmp/exported" "$tmp/declared"; then pass=$((pass + 1)); else
  echo "FAIL exports: libfoldline.so exports other symbols than the FL_EXTERN functions:"
  diff "$tmp/declared" "$tmp/exported" | head -n 20
  fails=$((fails + 1))
fi
# The engine does not depend on jansson (only the CLI's `calibrate` fit reads
# JSON with it): the shared library does not load it, calls no json_ function,
# and foldline.pc does not require it.
check no_jansson_needed 0 "" -- sh -c "! readelf -d '$libdir/libfoldline.so' | grep -q jansson"
check no_jansson_symbols 0 "" -- sh -c "! nm -D --undefined-only '$libdir/libfoldline.so' | grep -q ' json_'"
check no_jansson_pc 0 "" -- sh -c "! grep -q jansson '$pcdir/foldline.pc'"
check no_jansson_static 0 "" -- sh -c "! nm -u '$build/libfoldline.a' 2>/dev/null | grep -q ' json_'"
pkgc="${PKG_CONFIG:-pkg-config}"
if flags=$(PKG_CONFIG_PATH="$pcdir" "$pkgc" --cflags --libs foldline 2>"$tmp/pc.err"); then
  # shellcheck disable=SC2086 # the flags are words
  if "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -pedantic ${FL_SAN_FLAGS:-} \
    "$(dirname "$0")/use_library.c" -o "$tmp/use_library" $flags 2>"$tmp/cc.err"; then
    pass=$((pass + 1))
    check library_run 0 "flops 617852 known 1 macs 295072" -- \
      env LD_LIBRARY_PATH="$libdir" "$tmp/use_library" "$data/tiny_cnn.pb"
    check library_version 0 "version $("$ifl" --version | sed 's/^foldline //')" -- \
      env LD_LIBRARY_PATH="$libdir" "$tmp/use_library" "$data/tiny_cnn.pb"
    # The options' enums reach the remapper: on the GPU only the
    # Conv2D+BiasAdd+Relu fusion fires (19 -> 17 nodes, as `foldline analyze
    # --device gpu`), on the CPU the MatMul fusions too (14).
    check library_gpu 0 "gpu after nodes 17 passes 14" -- \
      env LD_LIBRARY_PATH="$libdir" "$tmp/use_library" "$data/tiny_cnn.pb"
    check library_cpu 0 "cpu after nodes 14" -- \
      env LD_LIBRARY_PATH="$libdir" "$tmp/use_library" "$data/tiny_cnn.pb"
    check library_error 0 "error EUSAGE: input binding names 'nope'" -- \
      env LD_LIBRARY_PATH="$libdir" "$tmp/use_library" "$data/tiny_cnn.pb"
    # The program found the installed library, not the build tree's.
    check library_resolved 0 "$libdir/libfoldline.so.$major" -- \
      env LD_LIBRARY_PATH="$libdir" ldd "$tmp/use_library"
  else
    echo "FAIL library_build: $(head -c 600 "$tmp/cc.err")"
    fails=$((fails + 1))
  fi
else
  echo "FAIL pkg_config: $(head -c 300 "$tmp/pc.err")"
  fails=$((fails + 1))
fi

if [ -f "$build/foldline-remote.so" ]; then
  check module_installed 0 "" -- test -f "$prefix/lib/foldline/foldline-remote.so"
  check module_not_in_bin 1 "" -- test -e "$prefix/bin/foldline-remote.so"
  if [ -x "$prefix/bin/foldlined" ]; then
    "$prefix/bin/foldlined" --listen 127.0.0.1:0 --port-file "$tmp/port" \
      --profiles-dir "$prefix/share/foldline/profiles" 2>"$tmp/server.log" &
    pid=$!
    for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
    if [ -s "$tmp/port" ]; then
      srv="127.0.0.1:$(cat "$tmp/port")"
      check installed_health 0 "SERVING" -- env -u FOLDLINE_MODULE_DIR "$ifl" --server "$srv" --timeout-ms 10000 health
      "$ifl" analyze "$data/tiny_cnn.pb" --json >"$tmp/local.json" 2>&1
      env -u FOLDLINE_MODULE_DIR "$ifl" --server "$srv" --timeout-ms 30000 analyze "$data/tiny_cnn.pb" --json \
        >"$tmp/remote.json" 2>"$tmp/remote.err"
      if cmp -s "$tmp/local.json" "$tmp/remote.json"; then pass=$((pass + 1)); else
        echo "FAIL installed_remote_analyze: remote output differs; stderr: $(head -c 300 "$tmp/remote.err")"
        fails=$((fails + 1))
      fi
      check installed_remote_profiles 0 "xeon-8380" -- env -u FOLDLINE_MODULE_DIR "$ifl" --server "$srv" --timeout-ms 10000 profiles
    else
      echo "FAIL installed_server: foldlined did not start: $(head -c 300 "$tmp/server.log")"
      fails=$((fails + 1))
    fi
    stop_server
  else
    check installed_module_loads 3 "UNAVAILABLE" -- env -u FOLDLINE_MODULE_DIR "$ifl" --server 127.0.0.1:1 --timeout-ms 5000 health
  fi
fi

finish
