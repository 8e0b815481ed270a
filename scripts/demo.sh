#!/usr/bin/env bash
# The atma demo: replays a scenario through the whole overlay on the embedded defaults
# (use-lite backbone, its default Sentry checkpoint from `make models`,
# the rule auditor — or the LLM judge when ATMA_LLM_URL is set), asks current, historical and
# change questions, and prints the labelled evidence packets and the bank at the end.
# `make demo` runs it after building and installing what it needs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atma=${ATMA_BIN:-$here/bin/atma}
cache=${ATMA_CACHE:-$HOME/.cache/atma}
demo=${ATMA_DEMO_DIR:-$cache/demo}
export ATMA_DATA=$demo/data
user=demo
answer=()
[ -n "${ATMA_LLM_URL:-}" ] && answer=(--answer)

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }

# The embedded defaults: the use-lite backbone and its default Sentry checkpoint, which
# `make models` trains into the model cache; every command finds it without flags.
export ATMA_BACKBONE=${ATMA_BACKBONE:-use-lite}
GO=${GO:-go} "$here/scripts/default-sentry.sh" "$ATMA_BACKBONE"
rm -rf "$ATMA_DATA"
mkdir -p "$ATMA_DATA"

say "Replaying the scenario: moves, a job change, a pet given away, a revised number, a scoped preference, small talk"
while IFS='|' read -r at text; do
  [ -z "$at" ] && continue
  "$atma" overlay add -u "$user" --at "${at}T09:00:00Z" "$text" 2>/dev/null
done <<'SCENARIO'
2024-01-10|I live in Berlin.
2024-01-12|I work as a nurse at Charité hospital.
2024-01-15|I have a dog named Rex.
2024-02-01|My commute to work is 25 minutes by bike.
2024-02-03|I love spicy food.
2024-03-05|The weather at the lake was lovely today.
2024-05-20|I moved to Hamburg last week.
2024-05-22|I left the hospital and now work as a pharmacist at Elbe Apotheke.
2024-07-01|I gave Rex to my sister, so I don't have a dog anymore.
2024-08-10|Actually my commute to work is 40 minutes now.
2024-09-01|I love spicy food, except at lunch on weekdays.
2024-10-11|I watched a great documentary about octopuses.
2025-03-15|I moved to Lisbon in March.
SCENARIO

ask() {
  say "Q: $1"
  "$atma" overlay query -u "$user" --top-k 4 "${answer[@]}" "$1" 2>/dev/null | grep -v '^trace:'
}
ask "Where do I live now?"
ask "Where did I live before?"
ask "How has where I live changed over time?"
ask "What is my job now?"
ask "What was my previous job?"
ask "Do I still have a dog?"
ask "How long is my commute these days?"

say "The bank at the end (superseded records stay for history; transitions link both states)"
"$atma" overlay show -u "$user"
say "Invariants"
"$atma" overlay check -u "$user"
