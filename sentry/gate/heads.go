package gate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Activation is the non-linearity between a head's two linear layers.
type Activation string

// The activations of the two heads.
const (
	ReLU Activation = "relu" // topic head
	Tanh Activation = "tanh" // logic head
)

// NormEps is added to the squared norm before the square root when a head's output is
// normalised: z = h / sqrt(Σh² + NormEps). Training (package sentry), Heads.Project and the
// ONNX export use the same formula, so their outputs agree.
const NormEps = 1e-12

// Head is one projection head: Linear(In, Hidden), Act, Linear(Hidden, Out), then L2
// normalisation. Weights are stored input-major (x·W), which is PyTorch's weight transposed;
// checkpoints store them in PyTorch's [out, in] layout.
type Head struct {
	In, Hidden, Out int
	Act             Activation
	W1              []float32 // In×Hidden: W1[i*Hidden+j] connects input i to hidden unit j
	B1              []float32 // Hidden
	W2              []float32 // Hidden×Out
	B2              []float32 // Out
}

// Heads are the topic and logic heads over one backbone, and the pair head when the logic
// similarity comes from one (LogicPair; nil is the paper's cosine). They are read-only after
// training and safe for concurrent use.
type Heads struct {
	Topic Head
	Logic Head
	Pair  *PairHead
}

// Projection is a text's pair of normalised head outputs. Gate.Score compares two of them;
// computing each text's Projection once and reusing it is what makes gating cheap. A
// Projection made by Heads (ProjectAll, Heads.Projection) also carries the heads' pair
// head, if any, and Gate.Score compares the logic vectors with it; one built as a literal
// from stored vectors carries none, so at least one side of a pair must come from Heads.
type Projection struct {
	Top, Log []float32

	pair *PairHead
}

// Projection rebuilds a text's Projection from stored topic and logic vectors, attached to
// the heads' pair head (if any) the way ProjectAll attaches it.
func (h *Heads) Projection(top, log []float32) Projection {
	return Projection{Top: top, Log: log, pair: h.Pair}
}

// LogicKind names how the heads compute the logic similarity: LogicCosine or LogicPair.
func (h *Heads) LogicKind() string {
	if h.Pair != nil {
		return LogicPair
	}
	return LogicCosine
}

// NewHeads returns heads with seeded random weights: the first layer Kaiming-uniform for the
// ReLU head (bound √(6/in)) and Xavier-uniform for the tanh head (bound √(6/(in+out))), the
// second layer Xavier-uniform, biases zero. It panics if a size is not positive.
func NewHeads(in, hidden, out int, rng *rand.Rand) *Heads {
	if in <= 0 || hidden <= 0 || out <= 0 {
		panic(fmt.Sprintf("gate: head sizes %d, %d, %d must be positive", in, hidden, out))
	}
	return &Heads{
		Topic: newHead(in, hidden, out, ReLU, rng),
		Logic: newHead(in, hidden, out, Tanh, rng),
	}
}

func newHead(in, hidden, out int, act Activation, rng *rand.Rand) Head {
	h := Head{
		In: in, Hidden: hidden, Out: out, Act: act,
		W1: make([]float32, in*hidden), B1: make([]float32, hidden),
		W2: make([]float32, hidden*out), B2: make([]float32, out),
	}
	bound1 := math.Sqrt(6 / float64(in+hidden))
	if act == ReLU {
		bound1 = math.Sqrt(6 / float64(in))
	}
	uniform(h.W1, bound1, rng)
	uniform(h.W2, math.Sqrt(6/float64(hidden+out)), rng)
	return h
}

func uniform(dst []float32, bound float64, rng *rand.Rand) {
	for i := range dst {
		dst[i] = float32((2*rng.Float64() - 1) * bound)
	}
}

// Dim is the backbone embedding size the heads take.
func (h *Heads) Dim() int { return h.Topic.In }

// Clone returns a deep copy.
func (h *Heads) Clone() *Heads {
	return &Heads{Topic: h.Topic.clone(), Logic: h.Logic.clone(), Pair: h.Pair.clone()}
}

func (h Head) clone() Head {
	c := h
	c.W1 = append([]float32(nil), h.W1...)
	c.B1 = append([]float32(nil), h.B1...)
	c.W2 = append([]float32(nil), h.W2...)
	c.B2 = append([]float32(nil), h.B2...)
	return c
}

// Validate checks that the heads' slices match their sizes, that both heads share them, that
// their activations are the topic's ReLU and the logic's Tanh, and that a pair head takes the
// logic head's output. It reports every problem at once.
func (h *Heads) Validate() error {
	var errs []error
	for _, hd := range []struct {
		name string
		h    *Head
		act  Activation
	}{{"topic", &h.Topic, ReLU}, {"logic", &h.Logic, Tanh}} {
		x := hd.h
		if x.In <= 0 || x.Hidden <= 0 || x.Out <= 0 {
			errs = append(errs, fmt.Errorf("%s head sizes %d, %d, %d must be positive", hd.name, x.In, x.Hidden, x.Out))
			continue
		}
		if x.Act != hd.act {
			errs = append(errs, fmt.Errorf("%s head activation %q, want %q", hd.name, x.Act, hd.act))
		}
		for _, s := range []struct {
			name string
			got  int
			want int
		}{{"W1", len(x.W1), x.In * x.Hidden}, {"B1", len(x.B1), x.Hidden}, {"W2", len(x.W2), x.Hidden * x.Out}, {"B2", len(x.B2), x.Out}} {
			if s.got != s.want {
				errs = append(errs, fmt.Errorf("%s head %s has %d values, want %d", hd.name, s.name, s.got, s.want))
			}
		}
	}
	if len(errs) == 0 && (h.Topic.In != h.Logic.In || h.Topic.Hidden != h.Logic.Hidden || h.Topic.Out != h.Logic.Out) {
		errs = append(errs, fmt.Errorf("topic head %d→%d→%d and logic head %d→%d→%d differ in size",
			h.Topic.In, h.Topic.Hidden, h.Topic.Out, h.Logic.In, h.Logic.Hidden, h.Logic.Out))
	}
	if h.Pair != nil {
		if err := h.Pair.validate(h.Logic.Out); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var blas32 gonum.Implementation

// Project returns the normalised topic and logic vectors of one backbone embedding. It panics
// if len(emb) is not h.Dim() (a programmer error).
func (h *Heads) Project(emb []float32) (top, log []float32) {
	if len(emb) != h.Dim() {
		panic(fmt.Sprintf("gate: embedding has %d values, heads take %d", len(emb), h.Dim()))
	}
	// One allocation: both outputs, then the hidden layer's scratch space.
	nt, nl := h.Topic.Out, h.Logic.Out
	buf := make([]float32, nt+nl+max(h.Topic.Hidden, h.Logic.Hidden))
	top, log, hidden := buf[:nt:nt], buf[nt:nt+nl:nt+nl], buf[nt+nl:]
	h.Topic.forward1(emb, hidden, top)
	h.Logic.forward1(emb, hidden, log)
	return top, log
}

// forward1 runs one embedding through the head into z (Out values); hidden is scratch space.
func (h *Head) forward1(x, hidden, z []float32) {
	hid := hidden[:h.Hidden]
	copy(hid, h.B1)
	// hid += W1ᵀ·x with W1 stored In×Hidden row-major.
	blas32.Sgemv(blas.Trans, h.In, h.Hidden, 1, h.W1, h.Hidden, x, 1, 1, hid, 1)
	activate(h.Act, hid)
	copy(z, h.B2)
	blas32.Sgemv(blas.Trans, h.Hidden, h.Out, 1, h.W2, h.Out, hid, 1, 1, z, 1)
	normalize(z)
}

func activate(act Activation, v []float32) {
	switch act {
	case ReLU:
		for i, x := range v {
			if x < 0 {
				v[i] = 0
			}
		}
	case Tanh:
		for i, x := range v {
			v[i] = float32(math.Tanh(float64(x)))
		}
	default:
		panic(fmt.Sprintf("gate: unknown activation %q", act))
	}
}

// FirstNonFinite returns the index of the first NaN or infinite value of v, and false if all
// are finite.
func FirstNonFinite[T float32 | float64](v []T) (int, bool) {
	for i, x := range v {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return i, true
		}
	}
	return 0, false
}

// normalize scales v to unit length: v / sqrt(Σv² + NormEps).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s+NormEps))
	for i := range v {
		v[i] *= inv
	}
}

// projectChunk is how many embeddings ProjectAll pushes through one matrix product.
const projectChunk = 256

// ProjectAll projects many embeddings with matrix products; out[i] is Project(embs[i]). It
// panics if an embedding has the wrong length.
func (h *Heads) ProjectAll(embs [][]float32) []Projection {
	out := make([]Projection, len(embs))
	d := h.Dim()
	x := make([]float32, min(len(embs), projectChunk)*d)
	var scratch []float32
	for start := 0; start < len(embs); start += projectChunk {
		n := min(projectChunk, len(embs)-start)
		for i := range n {
			e := embs[start+i]
			if len(e) != d {
				panic(fmt.Sprintf("gate: embedding %d has %d values, heads take %d", start+i, len(e), d))
			}
			copy(x[i*d:(i+1)*d], e)
		}
		top, sc := h.Topic.forwardBatch(x[:n*d], n, scratch)
		log, sc := h.Logic.forwardBatch(x[:n*d], n, sc)
		scratch = sc
		for i := range n {
			out[start+i] = Projection{Top: top[i*h.Topic.Out : (i+1)*h.Topic.Out : (i+1)*h.Topic.Out], Log: log[i*h.Logic.Out : (i+1)*h.Logic.Out : (i+1)*h.Logic.Out], pair: h.Pair}
		}
	}
	return out
}

// forwardBatch runs n row-major embeddings x through the head and returns the n×Out outputs
// (freshly allocated) and the scratch buffer for reuse.
func (h *Head) forwardBatch(x []float32, n int, scratch []float32) ([]float32, []float32) {
	if cap(scratch) < n*h.Hidden {
		scratch = make([]float32, n*h.Hidden)
	}
	hid := scratch[:n*h.Hidden]
	for i := range n {
		copy(hid[i*h.Hidden:(i+1)*h.Hidden], h.B1)
	}
	blas32.Sgemm(blas.NoTrans, blas.NoTrans, n, h.Hidden, h.In, 1, x, h.In, h.W1, h.Hidden, 1, hid, h.Hidden)
	activate(h.Act, hid)
	z := make([]float32, n*h.Out)
	for i := range n {
		copy(z[i*h.Out:(i+1)*h.Out], h.B2)
	}
	blas32.Sgemm(blas.NoTrans, blas.NoTrans, n, h.Out, h.Hidden, 1, hid, h.Hidden, h.W2, h.Out, 1, z, h.Out)
	for i := range n {
		normalize(z[i*h.Out : (i+1)*h.Out])
	}
	return z, scratch
}

// dot returns Σ a[i]·b[i] accumulated in float64.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("gate: dot of vectors of length %d and %d", len(a), len(b)))
	}
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}
