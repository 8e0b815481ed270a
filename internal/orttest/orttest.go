// Package orttest loads the real ONNX Runtime for tests and benchmarks: ATMA_ORT_LIB, else
// the library scripts/install-onnxruntime.sh put in the cache (ATMA_CACHE, else
// ~/.cache/atma), through onnx.ResolveLibrary and onnx.Init, so every package's tests find it
// the way the product does. A missing library fails the test with the command that fixes it.
//
// Package onnx's own tests cannot import this package (it imports onnx); they use the same
// two calls directly.
package orttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/atma-dev/atma/onnx"
)

// CacheDir is the atma cache the tests use: ATMA_CACHE, else ~/.cache/atma.
func CacheDir() string {
	if d := os.Getenv("ATMA_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "atma")
}

// Require initialises ONNX Runtime once per process, or fails tb saying how to install it.
func Require(tb testing.TB) {
	tb.Helper()
	lib, err := onnx.ResolveLibrary("", os.Getenv("ATMA_ORT_LIB"), CacheDir())
	if err != nil {
		tb.Fatalf("this test runs the real ONNX Runtime: %v", err)
	}
	if err := onnx.Init(lib); err != nil {
		tb.Fatalf("this test runs the real ONNX Runtime: %v", err)
	}
}
