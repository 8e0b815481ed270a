package graph_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// ortOnce loads ONNX Runtime once per test binary: ATMA_ORT_LIB, else the library that
// scripts/install-onnxruntime.sh puts in the default cache.
var ortOnce = sync.OnceValues(func() (string, error) {
	lib := os.Getenv("ATMA_ORT_LIB")
	if lib == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		lib = filepath.Join(home, ".cache", "atma", "onnxruntime", "1.30.0", "libonnxruntime.so.1")
	}
	if _, err := os.Stat(lib); err != nil {
		return lib, err
	}
	ort.SetSharedLibraryPath(lib)
	return lib, ort.InitializeEnvironment()
})

// requireORT fails the test when ONNX Runtime cannot be loaded.
func requireORT(t *testing.T) {
	t.Helper()
	if lib, err := ortOnce(); err != nil {
		t.Fatalf("ONNX Runtime unavailable (%s: %v); run `make onnxruntime` or set ATMA_ORT_LIB", lib, err)
	}
}

// runORT runs model on inputs with ONNX Runtime and returns the outputs named outNames. The
// caller destroys the inputs; outputs are destroyed when the test ends.
func runORT(t *testing.T, model []byte, inNames []string, inputs []ort.Value, outNames []string) []ort.Value {
	t.Helper()
	requireORT(t)
	opts, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, inNames, outNames, opts)
	if err != nil {
		t.Fatalf("load model in ONNX Runtime: %v", err)
	}
	defer s.Destroy()
	outs := make([]ort.Value, len(outNames))
	if err := s.Run(inputs, outs); err != nil {
		t.Fatalf("run model in ONNX Runtime: %v", err)
	}
	t.Cleanup(func() {
		for _, o := range outs {
			if o != nil {
				o.Destroy()
			}
		}
	})
	return outs
}
