#!/usr/bin/env bash
# Regenerates onnx/onnxpb/onnx.pb.go from the onnx.proto that Debian's libonnx-dev ships
# (ONNX 1.12, IR version 8). Run through `go generate ./onnx/onnxpb`.
# Needs: apt-get install libonnx-dev protobuf-compiler; protoc-gen-go from the Go module proxy.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
proto=${ONNX_PROTO:-/usr/include/onnx/onnx.proto}
if [ ! -f "$proto" ]; then
  echo "gen-onnxpb: $proto not found; run: apt-get install -y libonnx-dev" >&2
  exit 1
fi
command -v protoc >/dev/null || { echo "gen-onnxpb: protoc not found; run: apt-get install -y protobuf-compiler" >&2; exit 1; }
gobin=$(go env GOPATH)/bin
[ -x "$gobin/protoc-gen-go" ] || go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/onnx"
cp "$proto" "$tmp/onnx/onnx.proto"
PATH="$gobin:$PATH" protoc -I "$tmp" \
  --go_out="$tmp" --go_opt=paths=source_relative \
  --go_opt=Monnx/onnx.proto=github.com/atma-dev/atma/onnx/onnxpb \
  "$tmp/onnx/onnx.proto"
cp "$tmp/onnx/onnx.pb.go" "$here/onnx/onnxpb/onnx.pb.go"
