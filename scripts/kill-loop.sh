#!/usr/bin/env bash
# The kill -9 probe of the overlay server (issue: multi-tenant security and reliability):
# a client adds memories with idempotency keys while the server is killed with SIGKILL at
# random moments and restarted; every add the client did not see answered is sent again
# with its key. At the end each memory must be in the bank exactly once — none lost, none
# twice — and the bank's invariants and its file must check clean.
#
#   scripts/kill-loop.sh [ROUNDS] [MEMORIES_PER_ROUND]     (default 20 rounds × 30)
#
# Needs bin/atma (make build) and the models (make models). Prints one line per round and
# a summary; exits 1 when a memory is lost or duplicated or the bank does not check.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atma=${ATMA_BIN:-$here/bin/atma}
rounds=${1:-20}
per=${2:-30}
work=$(mktemp -d)
trap 'kill -9 "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
export ATMA_DATA=$work/data ATMA_BACKBONE=${ATMA_BACKBONE:-use-lite}
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
port=$((20000 + RANDOM % 20000))
url=http://127.0.0.1:$port

start() {
  "$atma" overlay serve --addr 127.0.0.1:$port --token "$token" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do
    curl -fs "$url/healthz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "the server did not start:" >&2; tail -5 "$work/serve.log" >&2; exit 1
}

add() { # key text → 0 when the server answered 200; other answers go to $work/refused.log
  local code
  code=$(curl -s -m 20 -o "$work/last.json" -w '%{http_code}' -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"memories\":[{\"content\":\"$2\",\"idempotency_key\":\"$1\"}]}" "$url/v1/users/kay/memories") || code=000
  [ "$code" = 200 ] && return 0
  { printf '%s %s ' "$code" "$1"; head -c 300 "$work/last.json" 2>/dev/null; echo; } >>"$work/refused.log"
  return 1
}

pending=()
total=0
start
for r in $(seq "$rounds"); do
  for i in $(seq "$per"); do
    pending+=("r$r-m$i")
  done
  total=$((total + per))
  # Send everything not yet acknowledged; the kill lands somewhere in the middle.
  ( sleep "0.$((RANDOM % 9 + 1))"; kill -9 "$pid" 2>/dev/null || true ) &
  killer=$!
  left=()
  for k in "${pending[@]}"; do
    if ! add "$k" "note $k: the tram to the old town was late again"; then
      left+=("$k")
    fi
  done
  wait "$killer" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pending=("${left[@]+"${left[@]}"}")
  echo "round $r: $((total - ${#pending[@]})) of $total acknowledged, ${#pending[@]} to send again"
  start
done
# Whatever is left goes through a live server.
for k in "${pending[@]+"${pending[@]}"}"; do
  add "$k" "note $k: the tram to the old town was late again" || { echo "add $k failed on a live server" >&2; exit 1; }
done
kill "$pid"; wait "$pid" 2>/dev/null || true
"$atma" overlay show -u kay --json --limit 100000 >"$work/bank.json"
got=$(jq '[.[] | select(.Status != "transition")] | length' "$work/bank.json")
dups=$(jq -r '[.[] | select(.Status != "transition") | .Content] | group_by(.) | map(select(length > 1)) | length' "$work/bank.json")
checked=ok
"$atma" overlay check -u kay >/dev/null 2>&1 || checked=failed
echo "kill -9 loop: $rounds kills, $total memories sent; in the bank: $got, duplicated: $dups, check: $checked"
[ "$got" -eq "$total" ] && [ "$dups" -eq 0 ] && [ "$checked" = ok ]
