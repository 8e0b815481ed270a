package onnx

import (
	"math"
	"testing"

	"github.com/atma-dev/atma/tokenizer"
)

func TestFinish(t *testing.T) {
	v := []float32{1, 2, 3, 4}
	t.Run("normalise only", func(t *testing.T) {
		got := finish(v, &Manifest{Normalize: true}, 4)
		n := math.Sqrt(30)
		for i, x := range v {
			if d := math.Abs(float64(got[i]) - float64(x)/n); d > 1e-7 {
				t.Errorf("[%d] = %v, want %v", i, got[i], float64(x)/n)
			}
		}
	})
	t.Run("layer norm then truncate then normalise", func(t *testing.T) {
		got := finish(v, &Manifest{Normalize: true, LayerNorm: true, LayerNormEps: 1e-5}, 2)
		// layer norm: mean 2.5, var 1.25 → (-1.5, -0.5)/sqrt(1.25+1e-5); normalised → direction of (-3, -1).
		want := []float64{-3 / math.Sqrt(10), -1 / math.Sqrt(10)}
		for i := range want {
			if d := math.Abs(float64(got[i]) - want[i]); d > 1e-6 {
				t.Errorf("[%d] = %v, want %v", i, got[i], want[i])
			}
		}
	})
	t.Run("zero vector stays zero", func(t *testing.T) {
		got := finish([]float32{0, 0}, &Manifest{Normalize: true}, 2)
		if got[0] != 0 || got[1] != 0 {
			t.Errorf("got %v", got)
		}
	})
}

func TestPlanBatches(t *testing.T) {
	enc := func(n int) tokenizer.Encoding { return tokenizer.Encoding{IDs: make([]int32, n)} }
	encs := []tokenizer.Encoding{enc(10), enc(3), enc(50), enc(3), enc(200), enc(12)}
	tests := []struct {
		name            string
		size, maxTokens int
		want            [][]int
	}{
		{"by size", 2, 1 << 20, [][]int{{1, 3}, {0, 5}, {2, 4}}},
		{"by tokens", 8, 100, [][]int{{1, 3, 0, 5}, {2}, {4}}},
		{"one per batch", 1, 1 << 20, [][]int{{1}, {3}, {0}, {5}, {2}, {4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planBatches(encs, tt.size, tt.maxTokens)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if len(got[i]) != len(tt.want[i]) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
				for j := range got[i] {
					if got[i][j] != tt.want[i][j] {
						t.Fatalf("got %v, want %v", got, tt.want)
					}
				}
			}
		})
	}
	if b := planBatches(nil, 4, 100); len(b) != 0 {
		t.Errorf("no texts gave batches %v", b)
	}
}
