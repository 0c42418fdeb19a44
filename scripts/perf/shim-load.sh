#!/usr/bin/env bash
# Loads the shim as users load it: one throwaway redis-server, the shim in its own process, then
# autocannon (HTTP, keep-alive) for the shim and redis-benchmark for direct Redis, with the same
# EVALSHA (a fixed-window decision), at c=1 and c=50, and the shim's CPU per request (from
# /proc: other load on the machine does not count). Loopback only, bounded by SECONDS.
# Usage: scripts/perf/shim-load.sh [SECONDS] [extra node flags for the shim, e.g. --cpu-prof]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_RUN=${1:-4}
NODE_FLAGS=${2:-}
REDIS_PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
SHIM_PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
TOKEN=perf-token
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >/dev/null &
REDIS_PID=$!
# shellcheck disable=SC2086
node $NODE_FLAGS --import tsx scripts/upstash-shim/cli.ts --port "$SHIM_PORT" --redis-url "redis://127.0.0.1:$REDIS_PORT" --token "$TOKEN" >/dev/null &
SHIM_PID=$!
trap 'kill -INT $SHIM_PID 2>/dev/null || true; sleep 1; kill $REDIS_PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$SHIM_PORT/" && break; sleep 0.2; done
SCRIPT='#!lua flags=allow-key-locking
local n = redis.call("INCRBY", KEYS[1], ARGV[2]) if n == tonumber(ARGV[2]) then redis.call("PEXPIRE", KEYS[1], 3600000) end return {1, 1, 0, 1, 1000000000 - n, tonumber(ARGV[1]) + 3600000, 0}'
SHA=$(printf '%s' "$SCRIPT" | sha1sum | cut -d' ' -f1)
curl -s -H "Authorization: Bearer $TOKEN" -d "$(node -e 'console.log(JSON.stringify(["SCRIPT","LOAD",process.argv[1]]))' "$SCRIPT")" "http://127.0.0.1:$SHIM_PORT/" >/dev/null
DIRECT_SHA=$(redis-cli -p "$REDIS_PORT" SCRIPT LOAD "$(printf '%s' "$SCRIPT" | tail -n +2)")
BODY="[\"EVALSHA\",\"$SHA\",1,\"rate:fixed:{bench}:1\",\"1700000000000\",\"1\"]"
curl -s -H "Authorization: Bearer $TOKEN" -d "$BODY" "http://127.0.0.1:$SHIM_PORT/"; echo
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SHIM_PID/stat"; }
for C in 1 50; do
  BEFORE=$(cpu_ticks)
  RESULT=$(npx autocannon -c "$C" -d "$SECONDS_PER_RUN" -m POST -H "authorization=Bearer $TOKEN" -H "content-type=application/json" -b "$BODY" --json "http://127.0.0.1:$SHIM_PORT/" 2>/dev/null)
  TICKS=$(( $(cpu_ticks) - BEFORE ))
  echo "$RESULT" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(`shim   c='"$C"': ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, mean ${r.latency.average} ms, non2xx ${r.non2xx}, errors ${r.errors}, shim CPU ${('"$TICKS"' * 1e4 / r.requests.total).toFixed(1)} µs/request`)})'
  REQUESTS=$((C == 1 ? 40000 : 400000))
  redis-benchmark -p "$REDIS_PORT" -c "$C" -n "$REQUESTS" -q --csv EVALSHA "$DIRECT_SHA" 1 "rate:fixed:{bench}:1" 1700000000000 1 | tail -1 | sed "s/^/direct c=$C: /"
done
