#!/usr/bin/env bash
# The installed tree works as deployed: `cmake --install` into a scratch
# prefix, then the installed CLI runs locally and, when the build has gRPC,
# finds its remote-mode module in PREFIX/lib/foldline (as the container's
# health check does) and talks to the installed foldlined.
# Usage: cli_install.sh FOLDLINE_BINARY TEST_DATA_DIR
# (the build directory is the binary's; $CMAKE_COMMAND, when set, is the cmake
# to install with.)
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
check installed_version 0 "foldline 0." -- "$ifl" --version
check installed_analyze 0 "617852*input.0" -- "$ifl" analyze "$data/tiny_cnn.pb" --passes none
check installed_profiles 0 "xeon-8380" -- env FOLDLINE_PROFILES_DIR="$prefix/share/foldline/profiles" "$ifl" profiles

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
