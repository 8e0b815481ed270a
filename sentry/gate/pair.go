package gate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
)

// Logic heads: how the logic similarity b of a pair is computed.
const (
	// LogicCosine is the paper's logic head: b = ⟨z_log(u), z_log(p)⟩.
	LogicCosine = "cosine"
	// LogicPair adds a pair head over the two logic vectors: b = PairHead.Score(z_log(u), z_log(p)).
	LogicPair = "pair"
)

// PairHead scores a pair of logic vectors from pair features instead of their dot product:
//
//	b = tanh(W2·ReLU(W1·[|x − y|, x ⊙ y] + B1) + B2)
//
// |x − y| and x ⊙ y are symmetric in the two texts, so b(x, y) = b(y, x), and b is in
// (−1, 1) like a cosine, so the gate's thresholds keep their meaning. A dot product can only
// say how aligned two vectors are; the pair head can weigh which coordinates differ, so "the
// same words, another value" need not look like agreement. Weights are input-major like Head's.
type PairHead struct {
	In, Hidden int       // In is the logic vectors' size (the heads' Out)
	W1         []float32 // 2In×Hidden: rows 0…In−1 weigh |x − y|, rows In…2In−1 weigh x ⊙ y
	B1         []float32 // Hidden
	W2         []float32 // Hidden (one output)
	B2         []float32 // 1
}

// NewPairHead returns a pair head over in-d logic vectors with hidden units and seeded random
// weights: the first layer Kaiming-uniform, the second Xavier-uniform, biases zero.
func NewPairHead(in, hidden int, rng *rand.Rand) *PairHead {
	p := &PairHead{
		In: in, Hidden: hidden,
		W1: make([]float32, 2*in*hidden), B1: make([]float32, hidden),
		W2: make([]float32, hidden), B2: make([]float32, 1),
	}
	uniform(p.W1, math.Sqrt(6/float64(2*in)), rng)
	uniform(p.W2, math.Sqrt(6/float64(hidden+1)), rng)
	return p
}

func (p *PairHead) clone() *PairHead {
	if p == nil {
		return nil
	}
	c := *p
	c.W1 = append([]float32(nil), p.W1...)
	c.B1 = append([]float32(nil), p.B1...)
	c.W2 = append([]float32(nil), p.W2...)
	c.B2 = append([]float32(nil), p.B2...)
	return &c
}

func (p *PairHead) validate(in int) error {
	if p.In != in || p.Hidden <= 0 {
		return fmt.Errorf("pair head sizes %d, %d: want input %d and a positive hidden size", p.In, p.Hidden, in)
	}
	for _, s := range []struct {
		name      string
		got, want int
	}{{"W1", len(p.W1), 2 * p.In * p.Hidden}, {"B1", len(p.B1), p.Hidden}, {"W2", len(p.W2), p.Hidden}, {"B2", len(p.B2), 1}} {
		if s.got != s.want {
			return fmt.Errorf("pair head %s has %d values, want %d", s.name, s.got, s.want)
		}
	}
	return nil
}

// Score returns b for the logic vectors x and y. It panics if their lengths differ from
// p.In (a programmer error). Safe for concurrent use.
func (p *PairHead) Score(x, y []float32) float64 {
	if len(x) != p.In || len(y) != p.In {
		panic(fmt.Sprintf("gate: pair head takes %d-d vectors, got %d and %d", p.In, len(x), len(y)))
	}
	// One allocation for the features and the hidden layer.
	buf := make([]float32, 2*p.In+p.Hidden)
	feat, hid := buf[:2*p.In], buf[2*p.In:]
	for i := range x {
		feat[i] = float32(math.Abs(float64(x[i] - y[i])))
		feat[p.In+i] = x[i] * y[i]
	}
	copy(hid, p.B1)
	blas32.Sgemv(blas.Trans, 2*p.In, p.Hidden, 1, p.W1, p.Hidden, feat, 1, 1, hid, 1)
	var s float64
	for j, h := range hid {
		if h > 0 {
			s += float64(h) * float64(p.W2[j])
		}
	}
	return math.Tanh(s + float64(p.B2[0]))
}
