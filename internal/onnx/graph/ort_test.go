package graph_test

import (
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/orttest"
)

// requireORT fails the test when ONNX Runtime cannot be loaded.
func requireORT(t *testing.T) {
	t.Helper()
	orttest.Require(t)
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
