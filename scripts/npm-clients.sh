#!/usr/bin/env bash
# Installs the real client libraries the integration tests drive, pinned, into the cache,
# idempotently: the MCP TypeScript SDK (@modelcontextprotocol/sdk) into
# $ATMA_CACHE/npm/mcp-client and Mem0's client (mem0ai) into $ATMA_CACHE/npm/mem0-client. A version already installed is not fetched again. Needs Node.js
# and npm (on every development and CI machine); without them it says so and the tests that
# need the clients skip. `make test` runs it.
set -euo pipefail
cache=${ATMA_CACHE:-$HOME/.cache/atma}
install() { # dir package version
  local dir=$1 pkg=$2 version=$3 have
  have=$(node -p "require('$dir/node_modules/$pkg/package.json').version" 2>/dev/null || true)
  [ "$have" = "$version" ] && return 0
  mkdir -p "$dir"
  npm install --prefix "$dir" "$pkg@$version" --no-audit --no-fund --silent >/dev/null
}
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "npm-clients: no node/npm on PATH; the tests with the real clients will skip" >&2
  exit 0
fi
install "$cache/npm/mcp-client" @modelcontextprotocol/sdk 1.32.2
install "$cache/npm/mem0-client" mem0ai 3.3.1
