package gate_test

import (
	"math/rand/v2"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/gate/gatetest"
)

// benchSizes are package sentry's benchmark sizes; pairHidden is sentry.DefaultPairHidden.
var benchSizes = []struct {
	name            string
	in, hidden, out int
}{
	{"Small", 64, 64, 32},
	{"Med", 384, 512, 256},
	{"Large", 768, 512, 256},
}

const pairHidden = 64

// BenchmarkProject measures the plain-Go inference path, one text at a time and batched.
func BenchmarkProject(b *testing.B) {
	for _, s := range benchSizes {
		h := gatetest.RandomHeads(1, s.in, s.hidden, s.out)
		rng := rand.New(rand.NewPCG(3, 3))
		embs := make([][]float32, 256)
		for i := range embs {
			embs[i] = gatetest.RandomVec(rng, s.in)
		}
		b.Run(s.name+"/one", func(b *testing.B) {
			i := 0
			for b.Loop() {
				h.Project(embs[i%len(embs)])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "texts/s")
		})
		b.Run(s.name+"/all", func(b *testing.B) {
			for b.Loop() {
				h.ProjectAll(embs)
			}
			b.ReportMetric(float64(len(embs)*b.N)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// BenchmarkGate measures gating pairs of texts whose embeddings are cached: "scored" compares
// precomputed projections; "cached-embeddings" projects every distinct text once (ProjectAll)
// and then scores all pairs, the whole cost divided over the pairs.
func BenchmarkGate(b *testing.B) {
	for _, s := range benchSizes {
		h := gatetest.RandomHeads(1, s.in, s.hidden, s.out)
		rng := rand.New(rand.NewPCG(4, 4))
		const texts, pairs = 1000, 20000
		embs := make([][]float32, texts)
		for i := range embs {
			embs[i] = gatetest.RandomVec(rng, s.in)
		}
		idx := make([][2]int, pairs)
		for i := range idx {
			idx[i] = [2]int{rng.IntN(texts), rng.IntN(texts)}
		}
		g := gate.NewGate(gate.DefaultThresholds())
		hp := h.Clone()
		hp.Pair = gate.NewPairHead(s.out, pairHidden, rand.New(rand.NewPCG(5, 5)))
		for _, sc := range []struct {
			name string
			proj []gate.Projection
		}{{"scored", h.ProjectAll(embs)}, {"scored-pair", hp.ProjectAll(embs)}} {
			b.Run(s.name+"/"+sc.name, func(b *testing.B) {
				i, routed := 0, 0
				for b.Loop() {
					p := idx[i%pairs]
					if g.Score(sc.proj[p[0]], sc.proj[p[1]]).Route {
						routed++
					}
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
		b.Run(s.name+"/cached-embeddings", func(b *testing.B) {
			routed := 0
			for b.Loop() {
				pr := h.ProjectAll(embs)
				for _, p := range idx {
					if g.Score(pr[p[0]], pr[p[1]]).Route {
						routed++
					}
				}
			}
			b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
