#!/usr/bin/env bash
# Three foldlined replicas behind one gRPC target (ipv4:A,B,C): the CLI
# spreads calls round-robin over them and retries on UNAVAILABLE (its
# service config, client/remote.c). Under 16 concurrent clients (each a loop
# of `foldline --server TARGET analyze`), one replica is
#   1. killed with SIGKILL: its queued and running calls die with the
#      connection; they are retried on the others;
#   2. drained with SIGTERM: it stops taking calls, finishes its own, exits 0.
# Both times every call must succeed with the same output as local mode.
# The replicas run one analysis thread each, so calls queue on them and a
# kill always finds some in flight (checked: the killed replica had calls).
# The signal goes to the first address's replica, the busiest: each CLI
# process is a new channel, whose first call goes to the first replica
# that connects.
# 3. (drain_queue) one replica, queue longer than its grace: see below.
# Usage: replicas.sh FOLDLINED FOLDLINE DATA_DIR
set -u
foldlined="$1"
foldline="$2"
data="$3"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is needed to write the test graphs"
  [ "${FL_REQUIRE_ALL:-0}" = 1 ] && exit 1
  exit 77
fi
# chain_graph FILE N: a GraphDef (protobuf written by hand) of a [1,64] float
# Placeholder followed by a chain of N Relu nodes.
chain_graph() {
  PYTHONPATH="$here/../tools" python3 - "$1" "$2" <<'PY'
import sys
from pbwrite import attr, ld, varint
float_type = varint(6 << 3) + varint(1)  # AttrValue.type = DT_FLOAT
shape = ld(7, ld(2, varint(1 << 3) + varint(1)) + ld(2, varint(1 << 3) + varint(64)))
nodes = [ld(1, ld(1, b"x") + ld(2, b"Placeholder") + attr("dtype", float_type) + attr("shape", shape))]
prev = b"x"
for i in range(int(sys.argv[2])):
    name = b"r%d" % i
    nodes.append(ld(1, ld(1, name) + ld(2, b"Relu") + ld(3, prev) + attr("T", float_type)))
    prev = name
open(sys.argv[1], "wb").write(b"".join(nodes))
PY
}

# A chain of 10,000 Relu nodes: each analysis takes long enough (tens of ms)
# that calls are always in flight on the replica that gets the signal.
model="$tmp/chain.pb"
chain_graph "$model" 10000 || { echo "cannot write the chain graph (python3)"; exit 1; }
"$foldline" analyze "$model" --json >"$tmp/expected.json" || { echo "local analysis failed"; exit 1; }

start_replica() { # name -> sets port_NAME, pid_NAME
  local n="$1"
  "$foldlined" --listen 127.0.0.1:0 --port-file "$tmp/$n.port" --threads 1 --grace-ms 5000 \
    --cache-mb 0 2>"$tmp/$n.log" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do
    [ -s "$tmp/$n.port" ] && break
    sleep 0.05
  done
  eval "pid_$n=$pid port_$n=$(head -n 1 "$tmp/$n.port")"
}

# client WORKER TARGET: loops until $tmp/stop exists, one line per call.
client() {
  local w="$1" target="$2" i=0
  while [ ! -e "$tmp/stop" ]; do
    i=$((i + 1))
    # The deadline only bounds a hung call: under sanitizers on a loaded host
    # a call can wait behind many others (30 s was once too short there).
    if "$foldline" --server "$target" --timeout-ms 120000 analyze "$model" --json \
      >"$tmp/out.$w" 2>"$tmp/err.$w" && cmp -s "$tmp/out.$w" "$tmp/expected.json"; then
      echo ok >>"$tmp/calls.$w"
    else
      echo "fail: $(head -c 300 "$tmp/err.$w")" >>"$tmp/calls.$w"
    fi
  done
}

calls_in_log() { grep -c "\"method\":\"Analyze" "$tmp/$1.log"; }

# scenario NAME SIGNAL: three replicas, 16 clients, the first replica gets
# SIGNAL once every replica has answered calls, the clients go on 3 s more.
scenario() {
  local name="$1" sig="$2"
  rm -f "$tmp"/stop "$tmp"/calls.* "$tmp"/*.port
  start_replica a
  start_replica b
  start_replica c
  local target="ipv4:127.0.0.1:$port_a,127.0.0.1:$port_b,127.0.0.1:$port_c"
  local cpids=()
  for w in $(seq 16); do
    client "$w" "$target" &
    cpids+=($!)
  done
  for _ in $(seq 300); do
    [ "$(calls_in_log a)" -gt 2 ] && [ "$(calls_in_log b)" -gt 2 ] && [ "$(calls_in_log c)" -gt 2 ] && break
    sleep 0.05
  done
  local before
  before=$(calls_in_log a)
  kill "-$sig" "$pid_a"
  local t0=$SECONDS rc=0
  if [ "$sig" = TERM ]; then
    wait "$pid_a"
    rc=$?
  fi
  local took=$((SECONDS - t0))
  sleep 3
  touch "$tmp/stop"
  wait "${cpids[@]}"
  local total ok bad
  total=$(cat "$tmp"/calls.* | wc -l)
  ok=$(cat "$tmp"/calls.* | grep -c '^ok$')
  bad=$((total - ok))
  echo "$name: $total calls by 16 clients, $bad failed; replica a answered $before before SIG$sig" \
    "(b: $(calls_in_log b), c: $(calls_in_log c) in all)$([ "$sig" = TERM ] && echo ", drained in $took s")"
  [ "$bad" -eq 0 ] || { fail "$name: $bad failed calls"; grep -h '^fail' "$tmp"/calls.* | sort | uniq -c | head -5; }
  [ "$total" -ge 16 ] || fail "$name: only $total calls"
  [ "$before" -gt 0 ] || fail "$name: replica a had answered no call before the signal"
  if [ "$sig" = TERM ]; then
    [ "$rc" -eq 0 ] || fail "$name: the drained replica exited $rc"
  fi
  for p in "$pid_b" "$pid_c"; do kill -TERM "$p"; wait "$p" || fail "$name: a replica did not exit 0"; done
}

# drain_queue: one replica (one thread, 1 s grace) with more queued analyses
# of a 100,000-node chain than half its grace period can finish (at the mean
# analysis time it has measured). At SIGTERM it hands the surplus back at
# once - UNAVAILABLE, "the analysis was not started", before the calls it
# kept are done - finishes those and exits 0. Its clients have nowhere else
# to go here, so exactly the handed-back calls fail, with that status, and
# at once: the graph (3 MB) is streamed (AnalyzeStream), whose retry by
# gRPC's policy used to keep the CLI waiting past its deadline.
drain_queue() {
  local big="$tmp/chain100k.pb"
  chain_graph "$big" 100000 || { fail "drain_queue: cannot write the graph"; return; }
  rm -f "$tmp/q.port" "$tmp"/q.out.* "$tmp"/q.err.* "$tmp"/q.rc.*
  "$foldlined" --listen 127.0.0.1:0 --port-file "$tmp/q.port" --threads 1 --grace-ms 1000 \
    --cache-mb 0 --metrics-listen 127.0.0.1:0 2>"$tmp/q.log" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do
    [ -s "$tmp/q.port" ] && [ "$(wc -l <"$tmp/q.port")" -ge 2 ] && break
    sleep 0.05
  done
  local port mport
  port=$(sed -n 1p "$tmp/q.port" 2>/dev/null)
  mport=$(sed -n 2p "$tmp/q.port" 2>/dev/null)
  [ -n "$mport" ] || { fail "drain_queue: the replica did not start"; cat "$tmp/q.log"; return; }
  local cpids=()
  for w in $(seq 12); do
    ( "$foldline" --server "127.0.0.1:$port" --timeout-ms 120000 analyze "$big" --json \
        >"$tmp/q.out.$w" 2>"$tmp/q.err.$w"; echo $? >"$tmp/q.rc.$w" ) &
    cpids+=($!)
  done
  # SIGTERM once an analysis has finished (the server has its mean time)
  # and at least 8 calls are in flight.
  local inflight=0
  for _ in $(seq 1200); do
    inflight=$(python3 -c 'import sys, urllib.request
for l in urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode().splitlines():
    if l.startswith("foldlined_in_flight "): print(l.split()[1])' "$mport" 2>/dev/null)
    [ "$(calls_in_log q)" -ge 1 ] && [ "${inflight:-0}" -ge 8 ] && break
    sleep 0.05
  done
  kill -TERM "$pid"
  wait "$pid"
  local rc=$?
  wait "${cpids[@]}"
  local handed ok_lines unav_lines ok_clients bad_clients
  handed=$(sed -n 's/^foldlined: \([0-9]*\) queued calls handed back.*/\1/p' "$tmp/q.log")
  ok_lines=$(grep -c '"method":"Analyze[A-Za-z]*".*"status":"OK"' "$tmp/q.log")
  unav_lines=$(grep -c '"method":"Analyze[A-Za-z]*".*"status":"UNAVAILABLE"' "$tmp/q.log")
  ok_clients=$(cat "$tmp"/q.rc.* | grep -c '^0$')
  bad_clients=$(grep -l 'UNAVAILABLE' "$tmp"/q.err.* 2>/dev/null | wc -l)
  echo "drain_queue: $inflight calls in flight at SIGTERM; handed back ${handed:-0}; the server" \
    "answered $ok_lines OK and $unav_lines UNAVAILABLE; clients $ok_clients ok," \
    "$bad_clients UNAVAILABLE; exit $rc"
  [ "${handed:-0}" -ge 1 ] || fail "drain_queue: no queued call was handed back"
  # Answered before the grace period was over: between the "handed back"
  # line and the "grace period over" one (when the calls kept outlast it).
  local early
  early=$(awk '/queued calls handed back/ { on = 1 } /grace period over/ { on = 0 }
    on && /"method":"Analyze[A-Za-z]*".*"status":"UNAVAILABLE"/ { n++ } END { print n + 0 }' "$tmp/q.log")
  [ "$early" -ge "${handed:-0}" ] || fail "drain_queue: $early of ${handed:-0} handed-back calls answered before the grace period was over"
  [ "$unav_lines" -ge "${handed:-0}" ] || fail "drain_queue: $unav_lines UNAVAILABLE, ${handed:-0} handed back"
  [ "$ok_lines" -ge 1 ] && [ "$ok_clients" -eq "$ok_lines" ] || fail "drain_queue: $ok_clients clients ok, $ok_lines OK answers"
  [ "$bad_clients" -eq $((12 - ok_clients)) ] || fail "drain_queue: $bad_clients of the failed clients saw UNAVAILABLE"
  [ "$rc" -eq 0 ] || fail "drain_queue: the replica exited $rc"
  if [ "$fails" -gt 0 ]; then
    for w in $(seq 12); do
      [ "$(cat "$tmp/q.rc.$w")" = 0 ] || echo "client $w: $(head -c 300 "$tmp/q.err.$w")"
    done
    grep -v '^{"grpc_log"' "$tmp/q.log" | tail -n 20
  fi
}

# FL_REPLICAS_ONLY=NAME runs one scenario (kill_one, drain_one, drain_queue),
# e.g. to repeat it under load.
only="${FL_REPLICAS_ONLY:-}"
[ -z "$only" ] || [ "$only" = kill_one ] && scenario kill_one KILL
[ -z "$only" ] || [ "$only" = drain_one ] && scenario drain_one TERM
# drain_queue runs in a network namespace of its own when this user may make
# one (root, or unprivileged user namespaces) and iproute2 is there: then its
# kernel counters are the test's alone, and it reports how many TCP
# connections were reset for data that reached a socket the server had closed
# (TCPAbortOnData). Such a reset discards what the server's socket still held:
# when that is the tail of a reply the server logged OK, its client ends
# UNAVAILABLE, and drain_queue's own checks (OK answers = clients ok) fail.
# A reset after a client had its whole reply (its channel closing, say) loses
# nothing, so the count is reported, not a failure in itself.
aborts_on_data() {
  awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else { split($0, v)
    for (i in k) if (k[i] == "TCPAbortOnData") print v[i] } }' /proc/net/netstat
}
if [ -z "$only" ] || [ "$only" = drain_queue ]; then
  if [ "${FL_REPLICAS_NETNS:-}" = inside ]; then
    ip link set lo up || fail "drain_queue: cannot bring up the namespace's loopback"
    a0=$(aborts_on_data)
    drain_queue
    a1=$(aborts_on_data)
    echo "drain_queue: $((a1 - a0)) TCP connections reset for data after their close"
  elif [ -z "${FL_REPLICAS_NETNS:-}" ] && [ -r /proc/net/netstat ] && command -v ip >/dev/null &&
    unshare -n true 2>/dev/null; then
    FL_REPLICAS_ONLY=drain_queue FL_REPLICAS_NETNS=inside unshare -n bash "$0" "$@" ||
      fails=$((fails + 1))
  else
    echo "drain_queue: connection resets not checked (no network namespace of its own)"
    drain_queue
  fi
fi
[ "$fails" -eq 0 ] && echo "replicas: every call succeeded"
[ "$fails" -eq 0 ]
