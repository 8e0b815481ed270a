#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only) into the atma cache, idempotently, for the
# integration tests of package llm (`go test -tags integration ./llm/`).
#
# The source is the git bundle that the node-llama-cpp npm package ships
# (package/llama/gitRelease.bundle), fetched with `npm pack`; the build needs cmake, a C++17
# compiler and make, and no network beyond the npm registry. It takes some 10-20 minutes on two
# cores. The binary is linked statically against libllama and libggml, so it can be copied.
#
# Usage: scripts/build-llama-server.sh [CACHE_DIR]
#   CACHE_DIR defaults to $ATMA_CACHE/llama-server (ATMA_CACHE defaults to ~/.cache/atma).
#   JOBS (default 2) sets the parallel compile jobs.
# Prints the binary's path on stdout; progress goes to stderr.
set -euo pipefail
pkg=node-llama-cpp
version=3.21.1
tgz_sha256=7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f
# The commit the bundle's HEAD points to; checked so that a different bundle is noticed.
commit=80fb11ac73e66d89eae2c6a91d8a77428fa733ed
cache=${ATMA_CACHE:-$HOME/.cache/atma}
dir=${1:-$cache/llama-server}
bin=$dir/bin/llama-server
stamp=$dir/bin/llama-server.stamp
jobs=${JOBS:-2}

log() { echo "build-llama-server: $*" >&2; }

if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkg@$version $commit" ] \
  && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

for tool in npm git make g++; do
  command -v "$tool" >/dev/null || { log "$tool not found; install it first"; exit 1; }
done
if ! command -v cmake >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "cmake not found; installing it with apt-get"
    apt-get install -y cmake >&2 || { apt-get update >&2 && apt-get install -y cmake >&2; }
  else
    log "cmake not found; install it (e.g. sudo apt-get install -y cmake) and run again"
    exit 1
  fi
fi

mkdir -p "$dir"
tgz=$dir/$pkg-$version.tgz
if ! { [ -f "$tgz" ] && echo "$tgz_sha256  $tgz" | sha256sum -c --status; }; then
  log "fetching $pkg@$version with npm pack"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null)
  got=$(sha256sum "$tmp/$pkg-$version.tgz" | cut -d' ' -f1)
  if [ "$got" != "$tgz_sha256" ]; then
    log "sha256 mismatch for $pkg-$version.tgz: got $got, want $tgz_sha256"
    exit 1
  fi
  mv "$tmp/$pkg-$version.tgz" "$tgz"
fi

bundle=$dir/gitRelease.bundle
if [ ! -f "$bundle" ]; then
  log "extracting package/llama/gitRelease.bundle"
  tar -xzf "$tgz" -C "$dir" --strip-components=2 package/llama/gitRelease.bundle
fi

src=$dir/src
if [ "$(git -C "$src" rev-parse HEAD 2>/dev/null || true)" != "$commit" ]; then
  log "cloning llama.cpp from the bundle"
  rm -rf "$src"
  git -c advice.detachedHead=false clone --quiet "$bundle" "$src"
  got=$(git -C "$src" rev-parse HEAD)
  if [ "$got" != "$commit" ]; then
    log "bundle HEAD is $got, want $commit"
    exit 1
  fi
fi

# Flags this llama.cpp knows (see its CMakeLists.txt): LLAMA_CURL is only a deprecation warning
# there, so it is not passed; LLAMA_OPENSSL=OFF because only plain HTTP on 127.0.0.1 is used;
# LLAMA_BUILD_UI=OFF and LLAMA_USE_PREBUILT_UI=OFF so configuring downloads nothing and the
# server embeds no web UI; BUILD_SHARED_LIBS=OFF so the installed binary stands alone;
# GGML_NATIVE=OFF keeps it portable (AVX2/FMA/F16C baseline).
build=$dir/build
log "configuring in $build"
cmake -S "$src" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF \
  -DGGML_NATIVE=OFF \
  -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_OPENSSL=OFF >&2
log "building llama-server with -j$jobs (slow: 10-20 minutes on two cores)"
cmake --build "$build" --target llama-server -j"$jobs" >&2

mkdir -p "$dir/bin"
install -m 0755 "$build/bin/llama-server" "$bin.tmp"
mv "$bin.tmp" "$bin"
"$bin" --version >&2
echo "$pkg@$version $commit" >"$stamp"
echo "$bin"
