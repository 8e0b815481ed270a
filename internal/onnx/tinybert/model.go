package tinybert

import (
	"math"
	"math/rand/v2"
)

// Linear is a dense layer y = x·Weight + Bias.
type Linear struct {
	In, Out int
	// Weight is In×Out, row-major: Weight[i*Out+o] connects input i to output o.
	Weight []float32
	// Bias has Out elements.
	Bias []float32
}

// LayerNorm holds the affine parameters of a layer normalization over the hidden axis.
type LayerNorm struct {
	Gamma, Beta []float32
}

// Layer is one transformer encoder layer (BERT post-LayerNorm layout).
type Layer struct {
	Query, Key, Value Linear
	// AttentionOutput projects the concatenated heads back to Hidden.
	AttentionOutput Linear
	AttentionNorm   LayerNorm
	// Intermediate (Hidden→Intermediate, then GELU) and Output (Intermediate→Hidden) form the
	// feed-forward block.
	Intermediate, Output Linear
	OutputNorm           LayerNorm
}

// Model is a BERT-like encoder with seeded random weights. Its fields are exported for tests
// and tools that want to inspect them; changing them changes both ONNX and Forward.
// A Model is safe for concurrent use as long as nobody modifies it.
type Model struct {
	// Config is the resolved configuration (no zero fields).
	Config Config
	// WordEmbeddings is VocabSize×Hidden, PositionEmbeddings MaxPositions×Hidden,
	// TypeEmbeddings TypeVocab×Hidden, all row-major.
	WordEmbeddings, PositionEmbeddings, TypeEmbeddings []float32
	EmbeddingNorm                                      LayerNorm
	Layers                                             []Layer
}

// Standard deviations of the random weights: small enough that nothing saturates, large
// enough that attention is not uniform. Dense weights use 1/sqrt(fan-in), which keeps
// activations near unit variance at every width.
const (
	embeddingStd = 0.1
	biasStd      = 0.02
	normStd      = 0.05
)

// New returns the model that cfg describes, with weights drawn from a PCG generator seeded by
// cfg.Seed. Equal configurations give bit-identical models.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	r := rand.New(rand.NewPCG(uint64(c.Seed), 0x7469_6e79_6265_7274)) // "tinybert"
	normal := func(n int, mean, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(mean + std*r.NormFloat64())
		}
		return out
	}
	linear := func(in, out int) Linear {
		return Linear{In: in, Out: out, Weight: normal(in*out, 0, 1/math.Sqrt(float64(in))), Bias: normal(out, 0, biasStd)}
	}
	norm := func() LayerNorm {
		return LayerNorm{Gamma: normal(c.Hidden, 1, normStd), Beta: normal(c.Hidden, 0, biasStd)}
	}
	m := &Model{
		Config:             c,
		WordEmbeddings:     normal(c.VocabSize*c.Hidden, 0, embeddingStd),
		PositionEmbeddings: normal(c.MaxPositions*c.Hidden, 0, embeddingStd),
		TypeEmbeddings:     normal(c.TypeVocab*c.Hidden, 0, embeddingStd),
		EmbeddingNorm:      norm(),
	}
	for range c.Layers {
		var l Layer
		l.Query = linear(c.Hidden, c.Hidden)
		l.Key = linear(c.Hidden, c.Hidden)
		l.Value = linear(c.Hidden, c.Hidden)
		l.AttentionOutput = linear(c.Hidden, c.Hidden)
		l.AttentionNorm = norm()
		l.Intermediate = linear(c.Hidden, c.Intermediate)
		l.Output = linear(c.Intermediate, c.Hidden)
		l.OutputNorm = norm()
		m.Layers = append(m.Layers, l)
	}
	return m, nil
}
