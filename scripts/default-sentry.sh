#!/usr/bin/env bash
# Trains the default Sentry checkpoint of a backbone (use-lite unless given) into the model
# cache, $ATMA_CACHE/models/sentry/<backbone>/, where every command that uses Sentry finds
# it without flags. Training is seeded (weights, data, split) and takes about 15 s on two
# cores; it runs again only when its key changes: a hash of the backbone's model file, of
# this script (its training flags) and of the data generator's and the trainer's sources
# (data/, sentry/ and its sub-packages sentry/gate and sentry/safetensors, which hold the
# heads' forward pass and the checkpoint format), kept beside the checkpoint. `make models` runs it. The default has the
# pair logic head (--logic pair), which beats the paper's cosine head on the corpus dev
# split (docs/benchmarks.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${ATMA_CACHE:-$HOME/.cache/atma}
backbone=${1:-use-lite}
model=$cache/backbones/$backbone/model.onnx
dir=$cache/models/sentry/$backbone
[ -f "$model" ] || { echo "default-sentry: no backbone $backbone at $model; run make models" >&2; exit 1; }
key=$( { sha256sum < "$model"; sha256sum < "$here/scripts/default-sentry.sh"; cd "$here" && ls data/*.go sentry/*.go sentry/*/*.go | grep -v '_test\.go$' | xargs cat | sha256sum; } | sha256sum | cut -c1-16)
if [ -f "$dir/sentry_best.safetensors" ] && [ "$(cat "$dir/key" 2>/dev/null)" = "$key" ]; then
  exit 0
fi
mkdir -p "$cache/models/sentry"
tmp=$(mktemp -d "$cache/models/sentry/.train-$backbone-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "training the default Sentry checkpoint for $backbone (once; key $key)" >&2
if ! (cd "$here" && ${GO:-go} run ./cmd/sentry train --backbone "$backbone" --out "$tmp" --epochs 10 --seed 1 --data-seed 1 --split-seed 1 --logic pair) >"$tmp/train.log" 2>&1; then
  tail -20 "$tmp/train.log" >&2
  exit 1
fi
echo "$key" >"$tmp/key"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
tail -3 "$dir/train.log" | grep -v '^ *$' >&2 || true
