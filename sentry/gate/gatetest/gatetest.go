package gatetest

import (
	"math/rand/v2"

	"github.com/atma-dev/atma/sentry/gate"
)

// RandomHeads returns heads of the given sizes from seed, with biases uniform in ±0.3.
func RandomHeads(seed uint64, in, hidden, out int) *gate.Heads {
	rng := rand.New(rand.NewPCG(seed, 99))
	h := gate.NewHeads(in, hidden, out, rng)
	for _, hd := range []*gate.Head{&h.Topic, &h.Logic} {
		fill(hd.B1, 0.3, rng)
		fill(hd.B2, 0.3, rng)
	}
	return h
}

// RandomPairHeads are RandomHeads with a pair head of pairHidden units, its biases uniform in
// ±0.3 too.
func RandomPairHeads(seed uint64, in, hidden, out, pairHidden int) *gate.Heads {
	h := RandomHeads(seed, in, hidden, out)
	rng := rand.New(rand.NewPCG(seed, 98))
	h.Pair = gate.NewPairHead(out, pairHidden, rng)
	fill(h.Pair.B1, 0.3, rng)
	fill(h.Pair.B2, 0.3, rng)
	return h
}

// RandomVec returns dim standard normal values.
func RandomVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func fill(dst []float32, bound float64, rng *rand.Rand) {
	for i := range dst {
		dst[i] = float32((2*rng.Float64() - 1) * bound)
	}
}
