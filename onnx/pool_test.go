package onnx

import (
	"math"
	"math/rand/v2"
	"slices"
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
	same := []tokenizer.Encoding{enc(20), enc(20), enc(20), enc(20), enc(20)}
	tests := []struct {
		name            string
		encs            []tokenizer.Encoding
		size, maxTokens int
		want            [][]int
	}{
		// Sorted lengths 3 3 10 12 50 200: padding the short ones to 50 (or 200) costs
		// more than a call of their own; padding 3s to 12 costs less.
		{"lengths apart", encs, 8, 1 << 20, [][]int{{1, 3, 0, 5}, {2}, {4}}},
		{"by size", same, 2, 1 << 20, [][]int{{0, 1}, {2, 3}, {4}}},
		{"by tokens", same, 8, 60, [][]int{{0, 1, 2}, {3, 4}}},
		{"equal lengths in one call", same, 8, 1 << 20, [][]int{{0, 1, 2, 3, 4}}},
		{"one per batch", encs, 1, 1 << 20, [][]int{{1}, {3}, {0}, {5}, {2}, {4}}},
		{"too long alone", []tokenizer.Encoding{enc(500), enc(4)}, 8, 100, [][]int{{1}, {0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planBatches(tt.encs, tt.size, tt.maxTokens); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if b := planBatches(nil, 4, 100); len(b) != 0 {
		t.Errorf("no texts gave batches %v", b)
	}
}

// TestPlanBatchesBound checks plans of random lengths: every text once, in length order,
// within the limits, and never costlier than cutting greedily (fill each call in
// length order until a limit), the plan before batches were chosen by cost.
func TestPlanBatchesBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	planCost := func(encs []tokenizer.Encoding, plan [][]int) int {
		c := 0
		for _, b := range plan {
			long := 1
			for _, i := range b {
				long = max(long, encs[i].Len())
			}
			c += len(b)*long + batchCallTokens
		}
		return c
	}
	for trial := range 300 {
		n := rng.IntN(70)
		encs := make([]tokenizer.Encoding, n)
		for i := range encs {
			encs[i] = tokenizer.Encoding{IDs: make([]int32, rng.IntN(60))}
		}
		size, maxTokens := 1+rng.IntN(40), 20+rng.IntN(600)
		plan := planBatches(encs, size, maxTokens)
		var seen []int
		prev := -1
		for _, b := range plan {
			long := 0
			for _, i := range b {
				if encs[i].Len() < prev {
					t.Fatalf("trial %d: plan %v is not in length order", trial, plan)
				}
				prev = encs[i].Len()
				long = max(long, encs[i].Len())
				seen = append(seen, i)
			}
			if len(b) == 0 || len(b) > size || (len(b) > 1 && len(b)*max(long, 1) > maxTokens) {
				t.Fatalf("trial %d: batch %v breaks size %d / max tokens %d", trial, b, size, maxTokens)
			}
		}
		slices.Sort(seen)
		for i, v := range seen {
			if v != i {
				t.Fatalf("trial %d: plan %v does not hold each of %d texts once", trial, plan, n)
			}
		}
		// The greedy plan.
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return encs[a].Len() - encs[b].Len() })
		var greedy [][]int
		var cur []int
		for _, i := range order {
			if len(cur) > 0 && (len(cur) == size || (len(cur)+1)*encs[i].Len() > maxTokens) {
				greedy, cur = append(greedy, cur), nil
			}
			cur = append(cur, i)
		}
		if len(cur) > 0 {
			greedy = append(greedy, cur)
		}
		if got, g := planCost(encs, plan), planCost(encs, greedy); got > g {
			t.Fatalf("trial %d: plan costs %d, the greedy plan %d", trial, got, g)
		}
	}
}
