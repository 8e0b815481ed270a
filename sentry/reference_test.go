package sentry

import (
	"math"

	"github.com/atma-dev/atma/sentry/gate"
	"gonum.org/v1/gonum/mat"
)

// refNet is an independent plain-gonum (mat.Dense, float64) forward and backward pass of the
// same two heads and loss as the Gorgonia graph. Tests check the graph against it; the
// training-step benchmark compares their speed.
type refNet struct {
	alpha, beta float64
	heads       [2]refHead
}

type refHead struct {
	act            gate.Activation
	w1, b1, w2, b2 *mat.Dense // In×Hidden, 1×Hidden, Hidden×Out, 1×Out
	// gradients, same shapes
	gw1, gb1, gw2, gb2 *mat.Dense
}

func newRefNet(h *gate.Heads, alpha, beta float64) *refNet {
	r := &refNet{alpha: alpha, beta: beta}
	for i, hd := range []*gate.Head{&h.Topic, &h.Logic} {
		r.heads[i] = refHead{
			act: hd.Act,
			w1:  mat.NewDense(hd.In, hd.Hidden, to64(hd.W1)),
			b1:  mat.NewDense(1, hd.Hidden, to64(hd.B1)),
			w2:  mat.NewDense(hd.Hidden, hd.Out, to64(hd.W2)),
			b2:  mat.NewDense(1, hd.Out, to64(hd.B2)),
			gw1: mat.NewDense(hd.In, hd.Hidden, nil),
			gb1: mat.NewDense(1, hd.Hidden, nil),
			gw2: mat.NewDense(hd.Hidden, hd.Out, nil),
			gb2: mat.NewDense(1, hd.Out, nil),
		}
	}
	return r
}

func to64(s []float32) []float64 {
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = float64(v)
	}
	return d
}

// params and grads return the backing slices in paramNames order.
func (r *refNet) params() [8]any {
	var p [8]any
	for i := range r.heads {
		h := &r.heads[i]
		p[4*i], p[4*i+1], p[4*i+2], p[4*i+3] = h.w1.RawMatrix().Data, h.b1.RawMatrix().Data, h.w2.RawMatrix().Data, h.b2.RawMatrix().Data
	}
	return p
}

func (r *refNet) grads() [8]any {
	var g [8]any
	for i := range r.heads {
		h := &r.heads[i]
		g[4*i], g[4*i+1], g[4*i+2], g[4*i+3] = h.gw1.RawMatrix().Data, h.gb1.RawMatrix().Data, h.gw2.RawMatrix().Data, h.gb2.RawMatrix().Data
	}
	return g
}

// headFwd holds one head's forward values for one side of the pairs.
type headFwd struct {
	x, a, hid, z *mat.Dense
	r            []float64
}

func (h *refHead) forward(x *mat.Dense) headFwd {
	n, _ := x.Dims()
	_, hidden := h.w1.Dims()
	_, out := h.w2.Dims()
	f := headFwd{x: x, a: mat.NewDense(n, hidden, nil), hid: mat.NewDense(n, hidden, nil), z: mat.NewDense(n, out, nil), r: make([]float64, n)}
	f.a.Mul(x, h.w1)
	b1 := h.b1.RawRowView(0)
	f.hid.Apply(func(i, j int, v float64) float64 {
		v += b1[j]
		f.a.Set(i, j, v)
		if h.act == gate.ReLU {
			return math.Max(0, v)
		}
		return math.Tanh(v)
	}, f.a)
	f.z.Mul(f.hid, h.w2)
	b2 := h.b2.RawRowView(0)
	for i := range n {
		row := f.z.RawRowView(i)
		var s float64
		for j := range row {
			row[j] += b2[j]
			s += row[j] * row[j]
		}
		f.r[i] = math.Sqrt(s + gate.NormEps)
		for j := range row {
			row[j] /= f.r[i]
		}
	}
	return f
}

// backward accumulates the gradients for dz, the loss gradient with respect to f.z.
func (h *refHead) backward(f headFwd, dz *mat.Dense) {
	n, out := dz.Dims()
	do := mat.NewDense(n, out, nil)
	for i := range n {
		z, g, d := f.z.RawRowView(i), dz.RawRowView(i), do.RawRowView(i)
		var zg float64
		for j := range z {
			zg += z[j] * g[j]
		}
		for j := range z {
			d[j] = (g[j] - z[j]*zg) / f.r[i]
		}
	}
	var gw2 mat.Dense
	gw2.Mul(f.hid.T(), do)
	h.gw2.Add(h.gw2, &gw2)
	addColSums(h.gb2, do)
	var dh mat.Dense
	dh.Mul(do, h.w2.T())
	dh.Apply(func(i, j int, v float64) float64 {
		if h.act == gate.ReLU {
			if f.a.At(i, j) > 0 {
				return v
			}
			return 0
		}
		t := f.hid.At(i, j)
		return v * (1 - t*t)
	}, &dh)
	var gw1 mat.Dense
	gw1.Mul(f.x.T(), &dh)
	h.gw1.Add(h.gw1, &gw1)
	addColSums(h.gb1, &dh)
}

func addColSums(dst *mat.Dense, m *mat.Dense) {
	n, c := m.Dims()
	row := dst.RawRowView(0)
	for i := range n {
		for j, v := range m.RawRowView(i)[:c] {
			row[j] += v
		}
	}
}

// step computes the per-head mean squared errors of batch and the gradients of
// α·top + β·log.
func (r *refNet) step(batch []Example) (top, log float64) {
	n, d := len(batch), len(batch[0].U)
	u, p := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	for i, ex := range batch {
		for j := range d {
			u.Set(i, j, float64(ex.U[j]))
			p.Set(i, j, float64(ex.P[j]))
		}
	}
	var losses [2]float64
	for k := range r.heads {
		h := &r.heads[k]
		for _, g := range []*mat.Dense{h.gw1, h.gb1, h.gw2, h.gb2} {
			g.Zero()
		}
		coef := r.alpha
		if k == 1 {
			coef = r.beta
		}
		fu, fp := h.forward(u), h.forward(p)
		_, out := fu.z.Dims()
		du, dp := mat.NewDense(n, out, nil), mat.NewDense(n, out, nil)
		for i, ex := range batch {
			y := float64(ex.YTop)
			if k == 1 {
				y = float64(ex.YLog)
			}
			zu, zp := fu.z.RawRowView(i), fp.z.RawRowView(i)
			var s float64
			for j := range zu {
				s += zu[j] * zp[j]
			}
			e := s - y
			losses[k] += e * e / float64(n)
			ds := coef * 2 * e / float64(n)
			gu, gp := du.RawRowView(i), dp.RawRowView(i)
			for j := range zu {
				gu[j] = ds * zp[j]
				gp[j] = ds * zu[j]
			}
		}
		h.backward(fu, du)
		h.backward(fp, dp)
	}
	return losses[0], losses[1]
}

func newDenseRow(v []float32) *mat.Dense { return mat.NewDense(1, len(v), to64(v)) }
