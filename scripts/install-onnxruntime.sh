#!/usr/bin/env bash
# Installs the CPU build of ONNX Runtime 1.30.0 into the atma cache, idempotently.
#
# The shared library comes from the onnxruntime-node npm package (fetched with `npm pack`),
# which ships libonnxruntime.so.1 for linux/x64. On GPU nodes, point ATMA_ORT_LIB (or
# --ort-lib) at a CUDA build of ONNX Runtime instead; this script is then not needed.
#
# Usage: scripts/install-onnxruntime.sh [CACHE_DIR]
#   CACHE_DIR defaults to $ATMA_CACHE/onnxruntime/1.30.0 (ATMA_CACHE defaults to ~/.cache/atma).
# Prints the library path on stdout.
set -euo pipefail
version=1.30.0
sha256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
cache=${ATMA_CACHE:-$HOME/.cache/atma}
dir=${1:-$cache/onnxruntime/$version}
lib=$dir/libonnxruntime.so.1

if [ -f "$lib" ] && echo "$sha256  $lib" | sha256sum -c --status; then
  echo "$lib"
  exit 0
fi
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) echo "install-onnxruntime: only linux/x86_64 is packaged; set ATMA_ORT_LIB to your own libonnxruntime" >&2; exit 1;;
esac
command -v npm >/dev/null || { echo "install-onnxruntime: npm not found; run: apt-get install -y npm (or install Node.js)" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "install-onnxruntime: fetching onnxruntime-node@$version with npm pack" >&2
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tar -xzf "$tmp/onnxruntime-node-$version.tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
got=$(sha256sum "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
  echo "install-onnxruntime: sha256 mismatch: got $got, want $sha256" >&2
  exit 1
fi
mkdir -p "$dir"
install -m 0644 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$lib.tmp"
mv "$lib.tmp" "$lib"
echo "$lib"
