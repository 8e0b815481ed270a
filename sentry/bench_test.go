package sentry

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

var benchSizes = []struct {
	name               string
	in, hidden, out, b int
}{
	{"Small", 64, 64, 32, 32},
	{"Med", 384, 512, 256, 64},
	{"Large", 768, 512, 256, 64},
}

// BenchmarkTrainStep measures one training step (forward, backward, AdamW update) of both
// heads on a full batch, with the Gorgonia graph and with the plain gonum/mat implementation
// of the same network in the same run. pairs/s is the throughput to compare.
func BenchmarkTrainStep(b *testing.B) {
	cfg := Config{}.withDefaults()
	for _, s := range benchSizes {
		h := randomHeads(1, s.in, s.hidden, s.out)
		batch := randomExamples(rand.New(rand.NewPCG(2, 2)), s.b, s.in)
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			b.Run(fmt.Sprintf("%s/gorgonia-%v", s.name, dt), func(b *testing.B) {
				n := newGraphT(b, h, s.b, 1, 1, dt)
				var params [8]any
				for i, p := range n.params {
					params[i] = data(p)
				}
				opt := newAdamW(cfg, params[:], paramNames[:])
				for b.Loop() {
					if _, _, err := n.run(batch); err != nil {
						b.Fatal(err)
					}
					var grads [8]any
					for i := range grads {
						grads[i], _ = n.grad(i)
					}
					if err := opt.step(grads[:], 1e-3); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.b)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
		b.Run(s.name+"/gorgonia-pair-float32", func(b *testing.B) {
			hp := h.Clone()
			hp.Pair = newPairHead(s.out, DefaultPairHidden, rand.New(rand.NewPCG(5, 5)))
			n := newGraphT(b, hp, s.b, 1, 1, tensor.Float32)
			opt := newAdamW(cfg, n.paramData(), n.dims.names())
			for b.Loop() {
				if _, _, err := n.run(batch); err != nil {
					b.Fatal(err)
				}
				grads := make([]any, len(n.params))
				for i := range grads {
					grads[i], _ = n.grad(i)
				}
				if err := opt.step(grads, 1e-3); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.b)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
		b.Run(s.name+"/gonum-float64", func(b *testing.B) {
			ref := newRefNet(h, 1, 1)
			ps := ref.params()
			opt := newAdamW(cfg, ps[:], paramNames[:])
			for b.Loop() {
				ref.step(batch)
				if g := ref.grads(); opt.step(g[:], 1e-3) != nil {
					b.Fatal("optimizer step failed")
				}
			}
			b.ReportMetric(float64(s.b)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

// BenchmarkProject measures the plain-Go inference path, one text at a time and batched.
func BenchmarkProject(b *testing.B) {
	for _, s := range benchSizes {
		h := randomHeads(1, s.in, s.hidden, s.out)
		rng := rand.New(rand.NewPCG(3, 3))
		embs := make([][]float32, 256)
		for i := range embs {
			embs[i] = randVec(rng, s.in)
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
		h := randomHeads(1, s.in, s.hidden, s.out)
		rng := rand.New(rand.NewPCG(4, 4))
		const texts, pairs = 1000, 20000
		embs := make([][]float32, texts)
		for i := range embs {
			embs[i] = randVec(rng, s.in)
		}
		idx := make([][2]int, pairs)
		for i := range idx {
			idx[i] = [2]int{rng.IntN(texts), rng.IntN(texts)}
		}
		g := NewGate(DefaultThresholds())
		proj := h.ProjectAll(embs)
		b.Run(s.name+"/scored", func(b *testing.B) {
			i, routed := 0, 0
			for b.Loop() {
				p := idx[i%pairs]
				if g.Score(proj[p[0]], proj[p[1]]).Route {
					routed++
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
		hp := h.Clone()
		hp.Pair = newPairHead(s.out, DefaultPairHidden, rand.New(rand.NewPCG(5, 5)))
		projPair := hp.ProjectAll(embs)
		b.Run(s.name+"/scored-pair", func(b *testing.B) {
			i, routed := 0, 0
			for b.Loop() {
				p := idx[i%pairs]
				if g.Score(projPair[p[0]], projPair[p[1]]).Route {
					routed++
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
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
