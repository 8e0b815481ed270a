package overlaytest

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
)

// BagDim is the dimension of BagEmbedder's vectors.
const BagDim = 64

// BagEmbedder embeds a text as its words hashed into BagDim buckets (lower-cased, with
// trailing and leading ".,!?" trimmed), normalised to unit length; a text without words
// is the zero vector. It satisfies overlay.Embedder and is safe for concurrent use.
type BagEmbedder struct{}

// Embed returns one vector per text.
func (BagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, BagDim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".,!?")))
			v[h.Sum32()%BagDim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}
