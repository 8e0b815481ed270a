package overlaytest_test

import (
	"math"
	"testing"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/overlaytest"
)

var _ overlay.Embedder = overlaytest.BagEmbedder{}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestBagEmbedder(t *testing.T) {
	const tol = 1e-6
	texts := []string{
		"My dog Rex plays in the park",
		"my DOG rex, plays in the park!",
		"Rex the dog",
		"quarterly tax filing deadline",
		"",
	}
	vs, err := overlaytest.BagEmbedder{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != overlaytest.BagDim {
			t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), overlaytest.BagDim)
		}
	}
	tests := []struct {
		name     string
		a, b     int
		min, max float64
	}{
		{"unit length", 0, 0, 1 - tol, 1 + tol},
		{"case and punctuation ignored", 0, 1, 1 - tol, 1 + tol},
		{"shared words are close", 0, 2, 0.5, 1 - 1e-3},
		{"empty text is the zero vector", 4, 4, 0, tol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dot(vs[tt.a], vs[tt.b]); got < tt.min || got > tt.max {
				t.Errorf("cosine(%q, %q) = %v, want in [%v, %v]", texts[tt.a], texts[tt.b], got, tt.min, tt.max)
			}
		})
	}
	t.Run("disjoint words are farther", func(t *testing.T) {
		if near, far := dot(vs[0], vs[2]), dot(vs[0], vs[3]); far >= near {
			t.Errorf("cosine to a disjoint text %v ≥ to one sharing words %v", far, near)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		again, err := overlaytest.BagEmbedder{}.Embed(t.Context(), texts[2:3])
		if err != nil {
			t.Fatal(err)
		}
		for j := range again[0] {
			if math.Abs(float64(again[0][j]-vs[2][j])) > tol {
				t.Fatalf("component %d: %v then %v", j, vs[2][j], again[0][j])
			}
		}
	})
}
