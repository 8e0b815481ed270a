package onnx

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// testLibrary finds ONNX Runtime for tests: ATMA_ORT_LIB, else the default cache.
func testLibrary(t testing.TB) string {
	t.Helper()
	p, err := ResolveLibrary("", os.Getenv("ATMA_ORT_LIB"), testCacheDir())
	if err != nil {
		t.Fatalf("these tests run the real ONNX Runtime: %v", err)
	}
	return p
}

// testCacheDir is the atma cache: ATMA_CACHE, else ~/.cache/atma. (internal/orttest has
// the same for other packages; it imports onnx, so onnx's own tests cannot use it.)
func testCacheDir() string {
	if d := os.Getenv("ATMA_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "atma")
}

func initORT(t testing.TB) {
	t.Helper()
	if err := Init(testLibrary(t)); err != nil {
		t.Fatal(err)
	}
}

var bertTokenizer struct {
	once sync.Once
	path string
	err  error
}

// bertTokenizerPath is the real bert-base-uncased tokenizer.json shipped in a Go module.
func bertTokenizerPath(t testing.TB) string {
	t.Helper()
	bertTokenizer.once.Do(func() {
		var out, errb bytes.Buffer
		cmd := exec.Command("go", "mod", "download", "-json", "github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9")
		cmd.Stdout, cmd.Stderr = &out, &errb
		if bertTokenizer.err = cmd.Run(); bertTokenizer.err != nil {
			bertTokenizer.err = &exec.Error{Name: "go mod download: " + errb.String(), Err: bertTokenizer.err}
			return
		}
		var info struct{ Dir string }
		if bertTokenizer.err = json.Unmarshal(out.Bytes(), &info); bertTokenizer.err == nil {
			bertTokenizer.path = filepath.Join(info.Dir, "all_minilm_l6_v2", "tokenizer.json")
		}
	})
	if bertTokenizer.err != nil {
		t.Fatalf("locate bert-base-uncased tokenizer.json: %v", bertTokenizer.err)
	}
	return bertTokenizer.path
}
