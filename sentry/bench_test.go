package sentry

import (
	"fmt"
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
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			b.Run(fmt.Sprintf("%s/gorgonia-%v", s.name, dt), func(b *testing.B) {
				n := newGraphT(b, h, s.b, 1, 1, dt)
				var params [8]any
				for i, p := range n.params {
					params[i] = data(p)
				}
				opt := newAdamW(cfg, params[:], paramNames)
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
			hp.Pair = gate.NewPairHead(s.out, DefaultPairHidden, rand.New(rand.NewPCG(5, 5)))
			n := newGraphT(b, hp, s.b, 1, 1, tensor.Float32)
			opt := newAdamW(cfg, n.paramData(), n.dims.Names())
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
