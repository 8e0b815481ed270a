package sentry

import (
	"context"
	"fmt"
	"math"
)

// Example is one training pair: the backbone embeddings of the two texts (u, the stored
// memory, and p, the new statement) and the target similarities of the two heads. Targets are
// in [-1, 1] (the range of a dot product of unit vectors); the usual labels are YTop = 1 for
// the same slot (the same attribute of the same entity) and 0 otherwise, and YLog = 1 when the
// two statements are consistent and 0 when they conflict.
type Example struct {
	U, P       []float32
	YTop, YLog float32
}

// Conflict reports whether the pair is "same slot and conflicting", the condition the gate
// should route to the Judge: YTop > 0.5 and YLog < 0.5.
func (e Example) Conflict() bool { return e.YTop > 0.5 && e.YLog < 0.5 }

// checkExamples verifies that every example has embeddings of length dim (the first
// example's when dim is 0) and finite values, and returns dim. what names the split in errors.
func checkExamples(what string, exs []Example, dim int) (int, error) {
	for i, ex := range exs {
		if dim == 0 {
			dim = len(ex.U)
			if dim == 0 {
				return 0, fmt.Errorf("%s example %d: empty embedding", what, i)
			}
		}
		for _, v := range []struct {
			name string
			e    []float32
		}{{"U", ex.U}, {"P", ex.P}} {
			if len(v.e) != dim {
				return 0, fmt.Errorf("%s example %d: %s has %d values, want %d", what, i, v.name, len(v.e), dim)
			}
			for j, x := range v.e {
				if !finite32(x) {
					return 0, fmt.Errorf("%s example %d: %s[%d] is %v", what, i, v.name, j, x)
				}
			}
		}
		for _, y := range []struct {
			name string
			v    float32
		}{{"YTop", ex.YTop}, {"YLog", ex.YLog}} {
			if !finite32(y.v) || y.v < -1 || y.v > 1 {
				return 0, fmt.Errorf("%s example %d: %s = %v is outside [-1, 1]", what, i, y.name, y.v)
			}
		}
	}
	return dim, nil
}

func finite32(x float32) bool {
	f := float64(x)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// TextPair is a labelled pair of texts, before embedding.
type TextPair struct {
	U, P       string
	YTop, YLog float32
}

// EmbedPairs embeds the distinct texts of pairs once each, in calls of at most batch texts
// (0 means 256), and returns one Example per pair; pairs that share a text share its
// embedding slice. Wrap the Embedder in a Cache to keep the embeddings across runs. An
// embedding that is not finite or differs in size from the first is an error naming the pair.
func EmbedPairs(ctx context.Context, e Embedder, pairs []TextPair, batch int) ([]Example, error) {
	if batch <= 0 {
		batch = 256
	}
	index := map[string]int{}
	var texts []string
	for _, p := range pairs {
		for _, t := range []string{p.U, p.P} {
			if _, ok := index[t]; !ok {
				index[t] = len(texts)
				texts = append(texts, t)
			}
		}
	}
	embs := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed pairs: %w", err)
		}
		chunk := texts[start:min(start+batch, len(texts))]
		got, err := e.Embed(ctx, chunk)
		if err != nil {
			return nil, fmt.Errorf("embed pairs: %w", err)
		}
		if len(got) != len(chunk) {
			return nil, fmt.Errorf("embed pairs: embedder returned %d vectors for %d texts", len(got), len(chunk))
		}
		embs = append(embs, got...)
	}
	exs := make([]Example, len(pairs))
	for i, p := range pairs {
		exs[i] = Example{U: embs[index[p.U]], P: embs[index[p.P]], YTop: p.YTop, YLog: p.YLog}
	}
	if _, err := checkExamples("pair", exs, 0); err != nil {
		return nil, fmt.Errorf("embed pairs: %w", err)
	}
	return exs, nil
}
