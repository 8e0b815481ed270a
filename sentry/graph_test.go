package sentry

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/gate/gatetest"
	"gorgonia.org/tensor"
)

// randomExamples returns n pairs of random dim-sized embeddings with random targets in [-1, 1].
func randomExamples(rng *rand.Rand, n, dim int) []Example {
	exs := make([]Example, n)
	for i := range exs {
		exs[i] = Example{U: randVec(rng, dim), P: randVec(rng, dim), YTop: float32(2*rng.Float64() - 1), YLog: float32(2*rng.Float64() - 1)}
	}
	return exs
}

// paramNames are the names of the eight parameters of heads without a pair head.
var paramNames = (gate.Layout{}).Names()

func randVec(rng *rand.Rand, dim int) []float32 { return gatetest.RandomVec(rng, dim) }

// randomHeads returns small heads with non-zero biases, so every parameter gets a gradient.
func randomHeads(seed uint64, in, hidden, out int) *gate.Heads {
	return gatetest.RandomHeads(seed, in, hidden, out)
}

// randomPairHeads are randomHeads with a pair head of pairHidden units and non-zero biases.
func randomPairHeads(seed uint64, in, hidden, out, pairHidden int) *gate.Heads {
	return gatetest.RandomPairHeads(seed, in, hidden, out, pairHidden)
}

func newGraphT(t testing.TB, h *gate.Heads, batch int, alpha, beta float64, dt tensor.Dtype) *netGraph {
	t.Helper()
	n, err := newNetGraph(h, batch, alpha, beta, dt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.close() })
	return n
}

// gradsOf returns the graph's gradients in float64, one slice per parameter.
func gradsOf(t testing.TB, n *netGraph) [][]float64 {
	t.Helper()
	out := make([][]float64, len(n.params))
	for i := range out {
		g, err := n.grad(i)
		if err != nil {
			t.Fatal(err)
		}
		switch g := g.(type) {
		case []float64:
			out[i] = append([]float64(nil), g...)
		case []float32:
			out[i] = to64(g)
		}
	}
	return out
}

// TestGradientCheck compares the graph's gradients with central finite differences of its
// loss, in float64, on a partial batch (3 pairs in a graph for 4).
func TestGradientCheck(t *testing.T) {
	const alpha, beta = 0.7, 1.3
	h := randomHeads(1, 5, 4, 3)
	exs := randomExamples(rand.New(rand.NewPCG(2, 2)), 3, 5)
	n := newGraphT(t, h, 4, alpha, beta, tensor.Float64)
	if checked := checkGradients(t, n, exs, alpha, beta); checked != 2*(5*4+4+4*3+3) {
		t.Errorf("checked %d parameters", checked)
	}
}

// checkGradients compares the gradients of the float64 graph n (built with loss weights
// alpha and beta) on exs with central finite differences of its loss, checking on the way
// that the loss is α·top + β·log, and returns how many parameter values it checked.
func checkGradients(t *testing.T, n *netGraph, exs []Example, alpha, beta float64) int {
	t.Helper()
	if _, _, err := n.run(exs); err != nil {
		t.Fatal(err)
	}
	grads := gradsOf(t, n)
	lossAt := func() float64 {
		top, log, err := n.run(exs)
		if err != nil {
			t.Fatal(err)
		}
		if l := scalarOf(n.loss); math.Abs(l-(alpha*top+beta*log)) > 1e-12 {
			t.Fatalf("loss %v, want α·top + β·log = %v", l, alpha*top+beta*log)
		}
		return alpha*top + beta*log
	}
	const eps = 1e-6
	checked := 0
	for i, name := range n.dims.Names() {
		p := data(n.params[i]).([]float64)
		for j := range p {
			orig := p[j]
			p[j] = orig + eps
			up := lossAt()
			p[j] = orig - eps
			down := lossAt()
			p[j] = orig
			fd := (up - down) / (2 * eps)
			if d := math.Abs(fd - grads[i][j]); d > 1e-7+1e-5*math.Abs(fd) {
				t.Errorf("%s[%d]: gradient %.10g, finite difference %.10g", name, j, grads[i][j], fd)
			}
			checked++
		}
	}
	return checked
}

// TestGraphMatchesReference checks the Gorgonia graph against the independent gonum
// implementation, in float64 and float32.
func TestGraphMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		dt  tensor.Dtype
		tol float64
	}{{tensor.Float64, 1e-12}, {tensor.Float32, 2e-5}} {
		t.Run(tc.dt.String(), func(t *testing.T) {
			h := randomHeads(3, 7, 6, 5)
			exs := randomExamples(rand.New(rand.NewPCG(4, 4)), 6, 7)
			n := newGraphT(t, h, 6, 1.5, 0.5, tc.dt)
			top, log, err := n.run(exs)
			if err != nil {
				t.Fatal(err)
			}
			ref := newRefNet(h, 1.5, 0.5)
			rtop, rlog := ref.step(exs)
			if math.Abs(top-rtop) > tc.tol || math.Abs(log-rlog) > tc.tol {
				t.Errorf("losses %v, %v; reference %v, %v", top, log, rtop, rlog)
			}
			got := gradsOf(t, n)
			want := ref.grads()
			for i, name := range paramNames {
				compareSlices(t, name, got[i], want[i].([]float64), tc.tol)
			}
		})
	}
}

func compareSlices(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", name, len(got), len(want))
		return
	}
	for j := range got {
		if d := math.Abs(got[j] - want[j]); !(d <= tol) {
			t.Errorf("%s[%d] = %.12g, want %.12g", name, j, got[j], want[j])
			return
		}
	}
}

// TestPartialBatchExact checks that a short batch in a graph built for a larger one gives
// exactly the loss and gradients of a graph built for the short batch, for every size.
func TestPartialBatchExact(t *testing.T) {
	h := randomHeads(5, 6, 5, 4)
	exs := randomExamples(rand.New(rand.NewPCG(6, 6)), 8, 6)
	big := newGraphT(t, h, 8, 1, 2, tensor.Float64)
	for n := 1; n <= 8; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			// Run the full batch first so stale values from it would show.
			if _, _, err := big.run(exs); err != nil {
				t.Fatal(err)
			}
			top, log, err := big.run(exs[:n])
			if err != nil {
				t.Fatal(err)
			}
			got := gradsOf(t, big)
			small := newGraphT(t, h, n, 1, 2, tensor.Float64)
			wtop, wlog, err := small.run(exs[:n])
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(top-wtop) > 1e-13 || math.Abs(log-wlog) > 1e-13 {
				t.Errorf("losses %v, %v; exact graph %v, %v", top, log, wtop, wlog)
			}
			want := gradsOf(t, small)
			for i, name := range paramNames {
				compareSlices(t, name, got[i], want[i], 1e-13)
			}
		})
	}
}

// TestProjectMatchesReference checks the plain-Go inference path against the gonum
// reference forward pass, one embedding at a time and batched.
func TestProjectMatchesReference(t *testing.T) {
	h := randomHeads(41, 9, 7, 5)
	rng := rand.New(rand.NewPCG(42, 42))
	embs := make([][]float32, 300) // more than one ProjectAll chunk
	for i := range embs {
		embs[i] = randVec(rng, 9)
	}
	ref := newRefNet(h, 1, 1)
	all := h.ProjectAll(embs)
	for _, i := range []int{0, 1, 255, 256, 299} {
		top, log := h.Project(embs[i])
		for k, hd := range ref.heads {
			x := newDenseRow(embs[i])
			want := hd.forward(x).z.RawRowView(0)
			got, gotAll := top, all[i].Top
			if k == 1 {
				got, gotAll = log, all[i].Log
			}
			compareSlices(t, "Project", to64(got), want, 1e-6)
			compareSlices(t, "ProjectAll", to64(gotAll), want, 1e-6)
		}
		var norm float64
		for _, v := range top {
			norm += float64(v) * float64(v)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("topic projection norm² %v", norm)
		}
	}
}
