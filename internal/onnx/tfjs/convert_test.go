package tfjs

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// TestUnrankedValueInfo checks that an input and output of unknown rank are declared without
// a shape (ONNX's "any rank"), not with an empty one, which would mean a scalar.
func TestUnrankedValueInfo(t *testing.T) {
	m := loadFixture(t, "elementwise")
	tests := []struct {
		out    string
		ranked bool
	}{
		{out: "relu_unranked", ranked: false},
		{out: "relu", ranked: true},
	}
	for _, tc := range tests {
		t.Run(tc.out, func(t *testing.T) {
			b, err := m.Convert(Options{OutputName: tc.out})
			if err != nil {
				t.Fatal(err)
			}
			var mp onnxpb.ModelProto
			if err := proto.Unmarshal(b, &mp); err != nil {
				t.Fatal(err)
			}
			for _, vi := range append(mp.GetGraph().GetInput(), mp.GetGraph().GetOutput()...) {
				shape := vi.GetType().GetTensorType().GetShape()
				if got := shape != nil; got != tc.ranked {
					t.Errorf("%s: has shape = %v, want %v", vi.GetName(), got, tc.ranked)
				}
				if tc.ranked && len(shape.GetDim()) != 2 {
					t.Errorf("%s: %d dims, want 2", vi.GetName(), len(shape.GetDim()))
				}
			}
		})
	}
}
