#!/usr/bin/env bash
# Fetches nomic-embed-text-v1.5 (ONNX export + tokenizer.json) from Hugging Face into the atma
# backbone cache and writes a manifest that pins the sha256 of what it fetched.
#
# This needs a machine that can reach Hugging Face; CI and the development machines cannot, so
# there the embedded default (use-lite) or the test backbone is used instead. Copy the
# resulting directory to offline machines, or point --backbone-dir at it.
#
# Usage: scripts/fetch-nomic.sh [DIR]
#   DIR defaults to ${ATMA_CACHE:-~/.cache/atma}/backbones/nomic-embed-text-v1.5
# Environment: NOMIC_REVISION (default main) pins a Hugging Face commit;
#   NOMIC_MODEL_SHA256 / NOMIC_TOKENIZER_SHA256, when set, must match what was fetched.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${ATMA_CACHE:-$HOME/.cache/atma}
dir=${1:-$cache/backbones/nomic-embed-text-v1.5}
rev=${NOMIC_REVISION:-main}
base="https://huggingface.co/nomic-ai/nomic-embed-text-v1.5/resolve/$rev"
command -v curl >/dev/null || { echo "fetch-nomic: curl not found; run: apt-get install -y curl" >&2; exit 1; }
mkdir -p "$dir"

fetch() { # url dest expected-sha
  local url=$1 dest=$2 want=${3:-}
  if [ ! -s "$dest" ]; then
    echo "fetch-nomic: downloading $url" >&2
    curl -fL --retry 3 --connect-timeout 20 -o "$dest.part" "$url" || {
      echo "fetch-nomic: cannot download $url; this machine may not reach Hugging Face — fetch on one that does and copy $dir" >&2
      rm -f "$dest.part"; exit 1; }
    mv "$dest.part" "$dest"
  fi
  local got; got=$(sha256sum "$dest" | cut -d' ' -f1)
  if [ -n "$want" ] && [ "$got" != "$want" ]; then
    echo "fetch-nomic: $dest has sha256 $got, expected $want; delete it and fetch again" >&2; exit 1
  fi
  echo "$got"
}
model_sha=$(fetch "$base/onnx/model.onnx" "$dir/model.onnx" "${NOMIC_MODEL_SHA256:-}")
tok_sha=$(fetch "$base/tokenizer.json" "$dir/tokenizer.json" "${NOMIC_TOKENIZER_SHA256:-}")

sed -e "s|\"model\": {\"path\": \"model.onnx\"}|\"model\": {\"path\": \"model.onnx\", \"sha256\": \"$model_sha\"}|" \
    -e "s|\"tokenizer\": {\"kind\": \"wordpiece\", \"path\": \"tokenizer.json\"}|\"tokenizer\": {\"kind\": \"wordpiece\", \"path\": \"tokenizer.json\", \"sha256\": \"$tok_sha\"}|" \
    "$here/onnx/manifests/nomic-embed-text-v1.5.json" > "$dir/manifest.json.tmp"
grep -q "$model_sha" "$dir/manifest.json.tmp" || { echo "fetch-nomic: could not pin the sha256 in the manifest" >&2; exit 1; }
mv "$dir/manifest.json.tmp" "$dir/manifest.json"
echo "fetch-nomic: model sha256 $model_sha, tokenizer sha256 $tok_sha" >&2
echo "$dir/manifest.json"
