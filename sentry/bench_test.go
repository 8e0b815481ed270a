package sentry

import (
	"math/rand/v2"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
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
		hp := h.Clone()
		hp.Pair = gate.NewPairHead(s.out, DefaultPairHidden, rand.New(rand.NewPCG(5, 5)))
		for _, c := range []struct {
			name  string
			heads *gate.Heads
			dt    tensor.Dtype
		}{{"gorgonia-float32", h, tensor.Float32}, {"gorgonia-float64", h, tensor.Float64}, {"gorgonia-pair-float32", hp, tensor.Float32}} {
			b.Run(s.name+"/"+c.name, func(b *testing.B) {
				n := newGraphT(b, c.heads, s.b, 1, 1, c.dt)
				opt := newAdamW(cfg, n.paramData(), n.dims.Names())
				for b.Loop() {
					if _, _, err := n.run(batch); err != nil {
						b.Fatal(err)
					}
					grads, err := n.grads()
					if err != nil {
						b.Fatal(err)
					}
					if err := opt.step(grads, 1e-3); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.b)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
		b.Run(s.name+"/gonum-float64", func(b *testing.B) {
			ref := newRefNet(h, 1, 1)
			ps := ref.params()
			opt := newAdamW(cfg, ps[:], paramNames)
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
